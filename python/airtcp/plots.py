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


def cwnd(result, flows: str | Iterable[str] | None = None, ax=None, seed: int | None = None):
    """cwnd (solid) and ssthresh (dashed, where it is finite) in kB over
    time, one colour per flow."""
    ax = _axes(ax)
    s = _series(result, "flow", ["cwnd_bytes", "ssthresh_bytes"], flows, seed)
    for name, g in s.groupby("name", sort=False):
        c = g[g.metric == "cwnd_bytes"]
        (line,) = ax.step(c.time_s, c.value / 1e3, where="post", label=f"{name} cwnd")
        t = g[g.metric == "ssthresh_bytes"]
        if not t.empty:
            ax.step(t.time_s, t.value / 1e3, where="post", ls="--", color=line.get_color(), label=f"{name} ssthresh")
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
    ax.step(acks.time_s, acks.ack / 1e3, where="post", color="tab:green", lw=1, label="ACK at sender")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence (kB)")
    ax.set_title(f"time-sequence diagram: {flow}")
    ax.legend(loc="upper left", fontsize="small")
    return ax
