"""The common figures of a run, with matplotlib (imported only here).

Each function draws on ``ax`` (a new figure if None) and returns the axes:

* :func:`cwnd` — congestion window and ssthresh over time, per flow;
* :func:`goodput` — goodput over time, per flow;
* :func:`queue` — queue length over time, per link direction;
* :func:`time_sequence` — the time-sequence diagram of a flow from the
  per-packet trace: segments sent, retransmitted and lost, and the ACKs.

The first three read the time series (``[output.timeseries]`` in the
scenario), the last the trace (``trace=True``). With several seeds, pass
``seed=`` to choose the run.

>>> import airtcp
>>> r = airtcp.run("examples/wireless.toml", trace=True)   # doctest: +SKIP
>>> airtcp.plots.time_sequence(r, until_s=2.0)             # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["cwnd", "goodput", "queue", "time_sequence"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(8, 4), constrained_layout=True)
    return ax


def _one_seed(table, seed: int | None, result_seed: int | None, what: str):
    """The rows of run ``seed``: required for a table of several seeds; a
    seed the result does not hold is an error, never an empty plot."""
    if "seed" in table.columns:
        if seed is None:
            raise ValueError(f"a {what} of several seeds: pass seed= to choose the run to plot")
        if not (table.seed == seed).any():
            seeds = sorted(int(s) for s in table.seed.unique())
            raise ValueError(f"seed {seed} is not in this {what} (its seeds: {_listed(seeds)})")
        return table[table.seed == seed]
    if seed is not None and result_seed is not None and seed != result_seed:
        raise ValueError(f"seed {seed} is not in this {what}: it is a run of seed {result_seed}")
    return table


def _listed(values, most: int = 10) -> str:
    shown = ", ".join(str(v) for v in values[:most])
    return shown + (f", ... ({len(values)} in all)" if len(values) > most else "")


def _unknown(wanted: list[str], present: Iterable[str], what: str):
    """A name the user asked for that the result does not hold is an
    error naming it, never a figure without it."""
    present = list(dict.fromkeys(present))
    missing = [n for n in wanted if n not in set(present)]
    if missing:
        raise ValueError(f"no {what} named {', '.join(map(repr, missing))} in this result ({what}s: {_listed(present)})")


def _series(result, kind: str, metrics: list[str], names: Iterable[str] | None, seed: int | None):
    s = _one_seed(result.series, seed, getattr(result, "seed", None), "result")
    s = s[(s.kind == kind) & s.metric.isin(metrics)]
    if s.empty:
        raise ValueError(
            f"no {', '.join(metrics)} series in this result: add [output.timeseries] to the scenario "
            "(e.g. interval = \"100ms\")"
        )
    if names is not None:
        wanted = [names] if isinstance(names, str) else list(names)
        _unknown(wanted, s.name, kind)
        s = s[s.name.isin(wanted)]
    return s


def _connection_ends(result, seed: int | None) -> dict[str, list[float]]:
    """Per flow name, when each of its completed transfers (connections)
    ended, in order."""
    transfers = _one_seed(result.transfers, seed, getattr(result, "seed", None), "result")
    flows = _one_seed(result.flows, seed, getattr(result, "seed", None), "result")
    names = dict(zip(flows.flow, flows.name))
    return {names[f]: sorted(g.end_s) for f, g in transfers.groupby("flow", sort=False)}


def _pieces(times, connection_ends: list[float], interval_s: float):
    """Split a series' sample times (sorted) into runs that each lie within
    one connection: a new run where a connection ended between two samples
    (a repeated download's next transfer), or where samples are missing for
    more than an interval (no connection was open: the series has no value
    there). Each run as (row positions, until when its last value holds:
    the next sampling time, or the end of its connection if that comes
    first; its last sample if the connection's end is unknown)."""
    import numpy as np

    t = np.asarray(times, dtype=float)
    if len(t) == 0:
        return []
    ends = np.asarray(connection_ends, dtype=float)
    connection = np.searchsorted(ends, t, side="left")
    breaks = np.flatnonzero((np.diff(connection) != 0) | (np.diff(t) > 1.5 * interval_s)) + 1
    pieces = []
    for rows in np.split(np.arange(len(t)), breaks):
        last, k = t[rows[-1]], connection[rows[-1]]
        held = min(last + interval_s, ends[k]) if k < len(ends) else last
        pieces.append((rows, held))
    return pieces


def _step_pieces(ax, g, connection_ends, interval_s, label, **style):
    """``ax.step`` of each piece of series ``g`` (see :func:`_pieces`), its
    last value held until the piece's end, in one colour, labelled once;
    the first line."""
    first = None
    for rows, held in _pieces(g.time_s, connection_ends, interval_s):
        x = list(g.time_s.iloc[rows]) + [held]
        y = list(g.value.iloc[rows] / 1e3)
        (line,) = ax.step(x, y + y[-1:], where="post", label=label if first is None else "_nolegend_", **style)
        if first is None:
            first = line
            style["color"] = line.get_color()
    return first


def cwnd(result, flows: str | Iterable[str] | None = None, ax=None, seed: int | None = None):
    """cwnd (solid) and ssthresh (dashed, where it is finite) in kB over
    time, one colour per flow. The lines are drawn only while a connection
    is open, and each connection's apart: a repeated download's think time
    is blank, and a new connection (in slow start, ssthresh still
    "arbitrarily high") is not drawn with the previous one's ssthresh."""
    ax = _axes(ax)
    s = _series(result, "flow", ["cwnd_bytes", "ssthresh_bytes"], flows, seed)
    times = sorted(set(_one_seed(result.series, seed, getattr(result, "seed", None), "result").time_s))
    interval_s = min((b - a for a, b in zip(times, times[1:])), default=float("inf"))
    ends = _connection_ends(result, seed)
    for name, g in s.groupby("name", sort=False):
        g = g.sort_values("time_s", kind="stable")
        c = g[g.metric == "cwnd_bytes"]
        line = _step_pieces(ax, c, ends.get(name, []), interval_s, f"{name} cwnd")
        t = g[g.metric == "ssthresh_bytes"]
        if not t.empty:
            _step_pieces(ax, t, ends.get(name, []), interval_s, f"{name} ssthresh", ls="--", color=line.get_color())
    ax.set_xlabel("time (s)")
    ax.set_ylabel("kB")
    ax.set_title("congestion window")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def goodput(result, flows: str | Iterable[str] | None = None, ax=None, seed: int | None = None):
    """Goodput (Mb/s) over each sampling interval, one line per flow."""
    ax = _axes(ax)
    s = _series(result, "flow", ["goodput_bps"], flows, seed)
    for name, g in s.groupby("name", sort=False):
        ax.step(g.time_s, g.value / 1e6, where="pre", label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mb/s)")
    ax.set_title("goodput")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def queue(result, links: str | Iterable[str] | None = None, ax=None, seed: int | None = None):
    """Packets waiting in each link direction's queue (by default the
    directions whose queue was ever non-empty)."""
    ax = _axes(ax)
    s = _series(result, "link", ["queue_pkts"], links, seed)
    for name, g in s.groupby("name", sort=False):
        if links is None and not (g.value > 0).any():
            continue
        ax.step(g.time_s, g.value, where="post", label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets waiting")
    ax.set_title("queue length")
    ax.legend(loc="upper right", fontsize="small")
    return ax


def time_sequence(
    trace: Any,
    flow: str | None = None,
    ax=None,
    seed: int | None = None,
    since_s: float = 0.0,
    until_s: float | None = None,
):
    """The time-sequence diagram of ``flow`` (default: the first) from a
    trace (a :class:`airtcp.Result` with a trace, or the DataFrame of
    :func:`airtcp.read_trace`): the data sender's segments (new data,
    retransmissions), the segments that were dropped, and the cumulative
    ACK arriving back at the sender, in kB of the stream."""
    t = trace.trace if hasattr(trace, "trace_files") else trace
    if t is None:
        raise ValueError("this result has no trace: run with trace=True (or a [trace] table)")
    t = _one_seed(t, seed, trace.seed if hasattr(trace, "trace_files") else None, "trace")
    if t.empty:
        raise ValueError("the trace holds no packets")
    if flow is None:
        flow = t.flow.iloc[0]
    else:
        _unknown([flow], (str(f) for f in t.flow.unique()), "flow")
    if not since_s >= 0 or (until_s is not None and not until_s >= since_s):
        raise ValueError(f"since_s={since_s!r}, until_s={until_s!r}: need 0 <= since_s <= until_s")
    t = t[(t.flow == flow) & (t.time_s >= since_s)]
    if until_s is not None:
        t = t[t.time_s <= until_s]
    ax = _axes(ax)
    data = t[(t.packet == "data") & (t.payload_bytes > 0)]
    sent = data[data.event == "send"]
    new, rtx = sent[~sent.retransmission], sent[sent.retransmission]
    dropped = data[data.event == "drop"]
    acks = t[(t.packet == "ack") & (t.event == "deliver")]
    ax.plot(new.time_s, new.seq / 1e3, ".", ms=3, color="tab:blue", label="sent")
    ax.plot(rtx.time_s, rtx.seq / 1e3, "o", ms=5, mfc="none", color="tab:red", label="retransmitted")
    ax.plot(dropped.time_s, dropped.seq / 1e3, "x", ms=6, color="black", label="dropped (" + ", ".join(
        sorted(dropped.cause.astype(str).unique())) + ")" if len(dropped) else "dropped")
    # Each connection's ACKs apart: successive connections of a flow count
    # their bytes from 0 each.
    for i, (_, a) in enumerate(acks.groupby("connection", sort=True) if len(acks) else [(None, acks)]):
        ax.step(a.time_s, a.ack / 1e3, where="post", color="tab:green", lw=1, label="_nolegend_" if i else "ACK at sender")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence (kB)")
    ax.set_title(f"time-sequence diagram: {flow}")
    ax.legend(loc="upper left", fontsize="small")
    return ax
