"""The Python API: load scenarios, run them, collect results as DataFrames.

pandas, pyarrow and tqdm are imported only when needed (a DataFrame, a
pyarrow table or a progress bar is asked for), so that ``import airtcp``,
``airtcp run`` and its summary stay fast and small.
"""

from __future__ import annotations

import heapq
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import _core
from ._core import ScenarioError

TABLES = ("flows", "links", "transfers", "agents", "series")

# The most runs one command plans: ``run --runs`` / :func:`run_many`'s
# seeds, a sweep's points x seeds, a reproduction's cells x schemes x runs.
# Every run is planned, and its results kept, in memory (a reproduction
# plans a run in about 150 us and 250 B before running anything), so a
# count without a bound is an allocation without one: 10^9 runs grew to
# 12 GB before the first ran. A million runs is days of simulation for any
# scenario worth a million runs; more goes in parts (other seeds).
MAX_RUNS = 1_000_000
MAX_RUNS_WHY = (
    f"at most {MAX_RUNS:,} runs in one command (each run is planned and its results kept in memory; "
    "run more in parts, with other seeds)"
)


def bounded_seeds(seeds: Iterable[int], what: str = "seeds") -> list:
    """``seeds`` as a list, refused with a ValueError once past
    :data:`MAX_RUNS` (a range of 10^12 or an endless iterator is never
    made a list)."""
    import itertools

    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise TypeError(f"{what} must be a list (or another iterable) of ints, not {type(seeds).__name__}")
    taken = list(itertools.islice(seeds, MAX_RUNS + 1))
    if len(taken) > MAX_RUNS:
        raise ValueError(f"{what}: more than {MAX_RUNS:,}: {MAX_RUNS_WHY}")
    return taken

__all__ = ["Scenario", "Result", "DeterministicScenarioWarning", "load", "run", "run_many", "jain_fairness"]


class DeterministicScenarioWarning(UserWarning):
    """Several seeds were asked of a scenario with no random component:
    every run would be identical. The CLI prints it as one
    ``airtcp: warning: ...`` line on stderr."""


def _scenario_error(file: str, message: str, line: int | None = None, field: str = "") -> ScenarioError:
    """A ScenarioError made on the Python side, by the core's constructor:
    one line, control characters in its parts escaped in ``str()`` and in
    the attributes alike."""
    return _core.scenario_error(file, message, line, field)


class Scenario:
    """A validated scenario: its TOML text and the name used in errors.

    Create one with :func:`airtcp.load`. Attributes: ``text``,
    ``source_name``, ``seed`` (the file's seed), ``duration_s``, the
    counts ``nodes``, ``links`` and ``flows``, ``has_sweep`` (the file
    has a ``[sweep]`` table: :func:`airtcp.sweep` runs it, :func:`run`
    runs the base scenario), and ``random`` (False when no component draws
    random numbers, so that every seed gives the same run).

    >>> import airtcp
    >>> sc = airtcp.load({"simulation": {"duration": "2s", "seed": 7},
    ...                   "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "10ms"}],
    ...                   "flow": [{"from": "A", "to": "B", "app": {"kind": "bulk"}}]})
    >>> (sc.seed, sc.duration_s, sc.nodes, sc.links, sc.flows)
    (7, 2.0, 2, 1, 1)
    """

    __slots__ = ("text", "source_name", "seed", "duration_s", "nodes", "links", "flows", "has_sweep", "random", "_core")

    def __init__(self, text: str, source_name: str):
        # Validating builds the world for the file's seed; the first run
        # with that seed uses it (one build for load + run).
        core = _core.load(text, source_name)
        self._core = core
        self.text = text
        self.source_name = source_name
        self.seed: int = core.seed
        self.duration_s: float = core.duration_s
        self.nodes: int = core.nodes
        self.links: int = core.links
        self.flows: int = core.flows
        self.has_sweep: bool = core.has_sweep
        self.random: bool = core.random

    def __repr__(self) -> str:
        return (
            f"Scenario({self.source_name!r}, {self.nodes} nodes, {self.links} links, "
            f"{self.flows} flows, {self.duration_s:g}s, seed={self.seed})"
        )

    # Scenarios travel (to other processes) by their text.
    def __reduce__(self):
        return (Scenario, (self.text, self.source_name))


def _load_mapping(source: Mapping[str, Any], name: str) -> Scenario:
    """A scenario from a dict, written out as TOML (with tomli_w) and called
    ``name`` in error messages."""
    import tomli_w

    try:
        text = tomli_w.dumps(source)
    except (TypeError, ValueError) as e:
        raise _scenario_error(name, f"cannot write the dict as TOML: {e}") from None
    return Scenario(text, name)


def load(source: Scenario | str | os.PathLike | Mapping[str, Any]) -> Scenario:
    """Load and validate a scenario from a TOML file path or a dict.

    A dict is written out as TOML (with tomli_w) and named ``"<dict>"`` in
    error messages. Any mistake, including a missing file, raises
    :class:`airtcp.ScenarioError` (a ValueError) whose ``str()`` is one line
    ``file:line: field: message``.

    >>> import airtcp
    >>> sc = airtcp.load("examples/wireless.toml")   # doctest: +SKIP
    >>> airtcp.load({"simulation": {"duration": "1s"}, "link": []})
    Traceback (most recent call last):
    ...
    airtcp.ScenarioError: <dict>: link: a scenario needs at least one [[link]]
    """
    if isinstance(source, Scenario):
        return source
    if isinstance(source, Mapping):
        return _load_mapping(source, "<dict>")
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        try:
            with open(name, "rb") as f:
                # Bounded: /dev/zero or an endless pipe is refused once
                # past the limit, never read whole.
                data = f.read(_core.MAX_SCENARIO_FILE_BYTES + 1)
        except OSError as e:
            raise _scenario_error(name, f"cannot read file: {e.strerror or e}") from None
        if len(data) > _core.MAX_SCENARIO_FILE_BYTES:
            raise _scenario_error(name, _core.SCENARIO_FILE_TOO_LARGE) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise _scenario_error(name, "file is not valid UTF-8", line=line) from None
        return Scenario(text, name)
    raise TypeError(f"expected a Scenario, a path or a dict, not {type(source).__name__}")


def _arrow_table(columns: Mapping[str, list], schema: Mapping[str, str]):
    """A pyarrow Table from plain columns (an unpickled Result has only
    those)."""
    import pyarrow as pa

    fields = [pa.field(name, pa.type_for_alias(t)) for name, t in schema.items()]
    return pa.table(dict(columns), schema=pa.schema(fields))


def _arrow_table_of_buffers(columns: list):
    """A pyarrow Table from the core's buffers (``_core.arrow_columns``):
    no Python object per cell, and no pandas import."""
    import pyarrow as pa

    names, arrays = [], []
    for name, type_name, chunks in columns:
        arrow_type = pa.type_for_alias(type_name)
        parts = [
            pa.Array.from_buffers(arrow_type, rows, [validity and pa.py_buffer(validity), *map(pa.py_buffer, buffers)])
            for rows, validity, buffers in chunks
        ]
        names.append(name)
        arrays.append(pa.chunked_array(parts, type=arrow_type))
    return pa.Table.from_arrays(arrays, names=names)


class Result:
    """Results of one run, or of several seeds (:func:`run_many`).

    Tables (pandas DataFrames, built on first access via pyarrow):
    ``flows``, ``links`` (one row per link direction), ``transfers``,
    ``agents`` and ``series``. Results of several seeds have a leading
    ``seed`` column. Scalars: ``seed`` (None for several seeds), ``seeds``,
    ``duration_s``, and ``events`` and ``packet_hops`` (summed over seeds).
    ``tables`` holds the same data as pyarrow Tables; ``columns`` as plain
    lists (``columns["flows"]["goodput_bps"]``), which need neither pandas
    nor pyarrow. Every column is documented in docs/results.md.

    What the run observed: ``captures``, a list of (pcapng file, packets
    written) (``capture_files``: the same as (seed, file, packets)), and
    ``trace``, the per-packet trace read back (None if none was written;
    ``trace_files`` lists (seed, file)). ``removed_files``
    lists (seed, file) of the runs of :func:`run_many` stopped midway by
    Ctrl-C, whose partial captures and traces were removed (empty if
    none).

    >>> import airtcp
    >>> r = airtcp.run({"simulation": {"duration": "5s"},
    ...                 "link": [{"a": "A", "b": "B", "rate": "1Mbps", "delay": "10ms"}],
    ...                 "flow": [{"from": "A", "to": "B", "app": {"kind": "bulk"}}]})
    >>> bool(0.5e6 < r.flows.goodput_bps[0] < 1e6)
    True
    >>> list(r.links.name)
    ['A->B', 'B->A']
    """

    def __init__(
        self,
        runs: list,
        seeds: list[int],
        duration_s: float,
        events: int,
        packet_hops: int,
        multi: bool,
        capture_files: Iterable[tuple[int, str, int]] = (),
        trace_files: Iterable[tuple[int, str]] = (),
    ):
        # ``runs``: the core's tables of each run (``_core.RunTables``), in
        # the order of ``seeds``; made into lists on first access of
        # ``columns`` and into Arrow tables on first access of ``tables``
        # (then released), so that a simulation thread of run_many hands
        # its tables over without building Python objects under the GIL.
        self._runs = list(runs)
        self._columns: dict[str, dict[str, list]] | None = None
        self.capture_files = [(int(s), str(p), int(n)) for s, p, n in capture_files]
        self.captures = [(p, n) for _, p, n in self.capture_files]
        self.trace_files = [(int(s), str(p)) for s, p in trace_files]
        # (seed, file) of runs stopped midway by Ctrl-C (run_many): removed.
        self.removed_files: list[tuple[int, str]] = []
        self.seeds = list(seeds)
        self.seed = None if multi else self.seeds[0]
        schema = _core.schema()
        self._schema = {k: {"seed": "uint64", **schema[k]} for k in TABLES} if multi else schema
        self.duration_s = duration_s
        self.events = events
        self.packet_hops = packet_hops
        self._tables: dict[str, Any] | None = None
        self._frames: dict[str, Any] = {}

    @property
    def columns(self) -> dict[str, dict[str, list]]:
        """The tables as plain lists, ``columns[table][column]`` (made on
        first access; with several seeds, a leading ``seed`` column)."""
        if self._columns is None:
            self._columns = _core.columns(self._runs, self.seed is None)
            self._release_runs()
        return self._columns

    def _release_runs(self) -> None:
        """Free the core's tables once both forms have been made."""
        if self._columns is not None and self._tables is not None:
            self._runs = []

    def _write_text(self, table: str, path: str, fmt: str) -> None:
        """Write one table to ``path`` as CSV or JSON (``airtcp run --out``),
        straight from the core's tables (``tables/text.rs``: byte for byte
        what pandas' ``to_csv(index=False)`` writes, and JSON records in full
        precision), without a Python object per cell."""
        if not self._runs and self.seeds:
            # Released once both the lists and the Arrow tables were made
            # (a result with no run, Ctrl-C before any finished, has none).
            raise RuntimeError("the core's tables of this result were released; write its DataFrames instead")
        _core.write_text(self._runs, self.seed is None, table, path, fmt)

    def __getstate__(self) -> dict[str, Any]:
        # The core's tables do not pickle; their lists (made here if not
        # yet) do.
        columns = self.columns
        return {**self.__dict__, "_columns": columns, "_runs": []}

    @classmethod
    def _from_core(cls, d: Mapping[str, Any]) -> Result:
        return cls(
            [d["tables"]],
            [d["seed"]],
            d["duration_s"],
            d["events"],
            d["packet_hops"],
            multi=False,
            capture_files=_capture_files([d]),
            trace_files=_trace_files([d]),
        )

    @classmethod
    def _from_many(cls, runs: list[Mapping[str, Any]], seeds: list[int], duration_s: float) -> Result:
        return cls(
            [d["tables"] for d in runs],
            seeds,
            duration_s,
            sum(d["events"] for d in runs),
            sum(d["packet_hops"] for d in runs),
            multi=True,
            capture_files=_capture_files(runs),
            trace_files=_trace_files(runs),
        )

    @property
    def tables(self) -> dict[str, Any]:
        """The result tables as pyarrow Tables (built on first access)."""
        if self._tables is None:
            if self._runs:
                buffers = _core.arrow_columns(self._runs, self.seed is None)
                self._tables = {k: _arrow_table_of_buffers(buffers[k]) for k in TABLES}
                self._release_runs()
            else:
                self._tables = {k: _arrow_table(self.columns[k], self._schema[k]) for k in TABLES}
        return self._tables

    def _frame(self, name: str):
        if name not in self._frames:
            self._frames[name] = self.tables[name].to_pandas()
        return self._frames[name]

    @property
    def flows(self):
        """Per-flow results (DataFrame)."""
        return self._frame("flows")

    @property
    def links(self):
        """Per link-direction results (DataFrame)."""
        return self._frame("links")

    @property
    def transfers(self):
        """One row per completed transfer (file and repeated apps)."""
        return self._frame("transfers")

    @property
    def agents(self):
        """Middlebox agent counters, long format (node, agent, counter, value)."""
        return self._frame("agents")

    @property
    def trace(self):
        """The per-packet event trace, sorted by ``time_s`` (see
        :func:`airtcp.read_trace`); with several seeds, a leading ``seed``
        column. None when the run wrote no trace."""
        if not self.trace_files:
            return None
        if "trace" not in self._frames:
            from ._trace import read_trace

            if self.seed is not None:
                frame = read_trace(self.trace_files[0][1])
            else:
                import numpy as np
                import pandas as pd

                # uint64, as the tables' seed column (a seed may exceed 2**63).
                frame = pd.concat(
                    [read_trace(p).assign(seed=np.uint64(s)) for s, p in self.trace_files], ignore_index=True
                )
                frame = frame[["seed", *[c for c in frame.columns if c != "seed"]]]
            self._frames["trace"] = frame
        return self._frames["trace"]

    @property
    def series(self):
        """Sampled time series, long format: time_s, kind (flow or link),
        name, metric (its unit in its name: cwnd_bytes, goodput_bps, ...),
        value. See docs/results.md."""
        return self._frame("series")

    def series_wide(self, metric: str | None = None, kind: str | None = None):
        """The time series in wide form, ready to plot: one row per sampling
        instant (index ``time_s``; with several seeds ``(seed, time_s)``),
        one column per (name, metric), or per name when ``metric`` is
        given; ``kind`` ("flow" or "link") keeps one kind. A value a sample
        does not have (ssthresh before the first loss, a flow that has not
        started) is NaN.

        >>> r.series_wide("cwnd_bytes").plot(drawstyle="steps-post")   # doctest: +SKIP
        """
        s = self.series
        if kind is not None:
            if kind not in ("flow", "link"):
                raise ValueError(f"kind must be 'flow' or 'link', not {kind!r}")
            s = s[s.kind == kind]
        if metric is not None:
            known = sorted(set(s.metric))
            if metric not in known:
                raise ValueError(f"no {metric!r} series in this result (series: {', '.join(known) or 'none'})")
            s = s[s.metric == metric]
        index = ["seed", "time_s"] if "seed" in s.columns else "time_s"
        columns = "name" if metric is not None else ["name", "metric"]
        return s.pivot_table(index=index, columns=columns, values="value", aggfunc="first", sort=False)

    def __repr__(self) -> str:
        seeds = f"seed={self.seed}" if self.seed is not None else f"{len(self.seeds)} seeds"
        return (
            f"<airtcp.Result {seeds}, {self.duration_s:g}s, {len(self.columns['flows']['flow'])} flow rows, "
            f"{self.events} events>"
        )

    def summary(self, max_rows: int | None = 40) -> str:
        """A short human-readable table of flows and busy links.

        With several seeds, numbers are means over the seeds. At most
        ``max_rows`` flows and links are listed (None: all). Made from the
        plain columns: it needs neither pandas nor pyarrow.
        """
        out = []
        if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)):
            raise TypeError(f"max_rows must be an int or None, not {type(max_rows).__name__}")
        if max_rows is not None and max_rows < 1:
            # -1 listed nothing and said "the -1 busiest of 4 link directions".
            raise ValueError(f"max_rows must be at least 1 (None: all), got {max_rows}")
        for block in self._summary_blocks(max_rows):
            out.append(block if isinstance(block, str) else _table(*block))
        return "\n".join(out)

    def _repr_html_(self) -> str:
        """Jupyter shows the summary as HTML tables (and the captures and
        trace written)."""
        import html

        parts = []
        for block in self._summary_blocks(40):
            if isinstance(block, str):
                if block:
                    parts.append(f"<p>{html.escape(block)}</p>")
                continue
            header, rows = block
            head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
            body = []
            for r in rows:
                if len(r) != len(header):
                    body.append(f'<tr><td colspan="{len(header)}">{html.escape(r[0])}</td></tr>')
                else:
                    cells = "".join(
                        f'<td style="text-align:{"left" if i < 2 else "right"}">{html.escape(str(c))}</td>'
                        for i, c in enumerate(r)
                    )
                    body.append(f"<tr>{cells}</tr>")
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
        files = [p for p, _ in self.captures] + [p for _, p in self.trace_files]
        if files:
            parts.append("<p>files: " + ", ".join(f"<code>{html.escape(f)}</code>" for f in files) + "</p>")
        return "<div><b>airtcp.Result</b>" + "".join(parts) + "</div>"

    def _summary_blocks(self, max_rows: int | None) -> list:
        """The summary as lines (str) and tables ((header, rows))."""
        multi = self.seed is None
        lines = []
        if multi:
            lines.append(f"{len(self.seeds)} seeds ({_seed_list(self.seeds)}), {self.duration_s:g} s each; means over seeds")
        else:
            lines.append(f"seed {self.seed}, {self.duration_s:g} s simulated, {self.events:,} events")
        flows = _SummaryRows(self.columns["flows"], "flow", group=multi)
        shown = range(len(flows) if max_rows is None else min(len(flows), max_rows))
        rows = []
        for g in shown:
            rtt_s = flows.mean(g, "mean_rtt_s")
            rows.append(
                [
                    flows.first(g, "name"),
                    f"{flows.first(g, 'src')}->{flows.first(g, 'dst')}",
                    flows.first(g, "variant") or flows.first(g, "protocol"),
                    f"{flows.mean(g, 'goodput_bps') / 1e6:.3f}",
                    _num(flows.mean(g, "retransmitted_segments")),
                    _num(flows.mean(g, "timeouts")),
                    _num(flows.mean(g, "drops")),
                    "-" if rtt_s != rtt_s else f"{rtt_s * 1e3:.1f}",
                ]
            )
        if len(flows) > len(shown):
            more = len(flows) - len(shown)
            rows.append([f"... {more} more flow{'s' if more > 1 else ''}"])
        lines.append("")
        lines.append(
            (["flow", "path", "tcp", "goodput Mb/s", "retransmits", "timeouts", "drops", "rtt ms"], rows)
            if rows
            else "no flows"
        )
        links = _SummaryRows(self.columns["links"], "link", group=multi)
        utilization, drops = links.column_means("utilization"), links.column_means("drops")
        busy = [g for g in range(len(links)) if utilization[g] > 0 or drops[g] > 0]  # skip idle directions
        link_note = ""
        if max_rows is not None and len(busy) > max_rows:
            # Too many to list: the busiest ones, in their usual order.
            busy = sorted(heapq.nsmallest(max_rows, busy, key=lambda g: (-utilization[g], g)))
            link_note = f"(the {max_rows} busiest of {len(links)} link directions)"
        rows = [
            [
                links.first(g, "name"),
                _rate(links.first(g, "rate_bps")),
                f"{utilization[g] * 100:.1f}",
                _num(drops[g]),
                f"{links.mean(g, 'mean_queue_pkts'):.2f}",
            ]
            for g in busy
        ]
        lines.append("")
        lines.append((["link", "rate", "util %", "drops", "mean queue pkts"], rows) if rows else "no busy links")
        if link_note:
            lines.append(link_note)
        return lines


def _capture_files(runs: Iterable[Mapping[str, Any]]) -> list[tuple[int, str, int]]:
    return [(d["seed"], path, packets) for d in runs for path, packets in d.get("captures", ())]


def _trace_files(runs: Iterable[Mapping[str, Any]]) -> list[tuple[int, str]]:
    return [(d["seed"], d["trace"][0]) for d in runs if d.get("trace") is not None]


class _SummaryRows:
    """The rows of a result table as the summary shows them: each row, or
    with ``group`` (several seeds), one per ``key`` value in sorted order,
    its text columns taken from its first row and its numbers the means
    over its rows (NaN skipped). ``drops`` is the sum of the ``drops_*``
    columns. Cells are read only for the rows shown, so a summary of
    100,000 flows formats the 40 it lists, not all of them."""

    def __init__(self, columns: Mapping[str, list], key: str, group: bool):
        self.columns = columns
        self.drop_parts = [v for k, v in columns.items() if k.startswith("drops_")]
        self.rows = len(columns[key])
        self.members: list[list[int]] | None = None
        if group:
            members: dict[Any, list[int]] = {}
            for i, k in enumerate(columns[key]):
                members.setdefault(k, []).append(i)
            self.members = [members[k] for k in sorted(members)]

    def __len__(self) -> int:
        return self.rows if self.members is None else len(self.members)

    def _indices(self, g: int) -> list[int]:
        return [g] if self.members is None else self.members[g]

    def _cell(self, i: int, column: str):
        if column == "drops":
            return sum(part[i] for part in self.drop_parts)
        return self.columns[column][i]

    def first(self, g: int, column: str):
        """Row ``g``'s ``column``: its first member's."""
        return self._cell(self._indices(g)[0], column)

    def mean(self, g: int, column: str):
        """Row ``g``'s ``column``: the mean over its members (one row's
        value as it is)."""
        if self.members is None:
            return self._cell(g, column)
        return _mean(self._cell(i, column) for i in self.members[g])

    def column_means(self, column: str) -> list:
        """``mean(g, column)`` of every row ``g``, in one pass."""
        if column == "drops":
            cells = [sum(parts) for parts in zip(*self.drop_parts)] if self.drop_parts else [0] * self.rows
        else:
            cells = self.columns[column]
        if self.members is None:
            return cells
        return [_mean(cells[i] for i in idx) for idx in self.members]


def _mean(xs: Iterable[float]) -> float:
    """The mean of ``xs``, NaN skipped (NaN if nothing is left)."""
    xs = [x for x in xs if x == x]
    return math.fsum(xs) / len(xs) if xs else math.nan


def _seed_list(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _num(x) -> str:
    x = float(x)
    return f"{int(x):,}" if x == int(x) else f"{x:,.1f}"


def _rate(bps) -> str:
    bps = float(bps)
    for unit, scale in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} b/s"


def _table(header: list[str], rows: list[list[str]], left: int = 2) -> str:
    """A plain-text table; the first ``left`` columns are left-aligned."""
    cells = [header] + [[str(c) for c in r] for r in rows if len(r) == len(header)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    notes = [r[0] for r in rows if len(r) != len(header)]  # full-width remarks

    def fmt(r):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return "\n".join([fmt(cells[0]), "  ".join("-" * w for w in widths)] + [fmt(r) for r in cells[1:]] + notes)


def run(
    scenario: Scenario | str | os.PathLike | Mapping[str, Any],
    seed: int | None = None,
    progress: bool | Callable[[float], Any] = False,
    *,
    pcap: str | Iterable[str] | Mapping[str, str | None] | None = None,
    trace: bool | str | os.PathLike | Mapping[str, Any] | None = None,
    out_dir: str | os.PathLike | None = None,
) -> Result:
    """Run a scenario once and return its :class:`Result`.

    ``scenario`` is a :class:`Scenario`, a path or a dict (see :func:`load`);
    ``seed`` overrides the file's seed. ``progress=True`` shows a tqdm bar of
    simulated seconds; a callable is called with the simulated time in
    seconds, once per simulated second. Ctrl-C stops the run and raises
    KeyboardInterrupt; a run that does not reach its end (Ctrl-C, an
    exception raised by ``progress``, a run over its memory budget) leaves
    no capture or trace: its partial files are removed (regular files
    only: a FIFO or a device given as a file is left alone).

    Observing packets (docs/capture.md) never changes the results:

    * ``pcap`` captures packets for Wireshark (pcapng): a capture point or a
      list of them (a link direction ``"A->B"``, both directions
      ``"A<->B"``, or a node name), or a dict {point: file name or None}.
      Default file names are ``capture-<point>.pcapng``.
    * ``trace`` writes the per-packet event trace (Parquet): ``True``
      (``trace.parquet``), a file name, or a dict with ``file``, ``flows``
      and ``links`` (lists of names) to keep only some packets.

    The scenario's own ``[[capture]]`` and ``[trace]`` tables are written
    as well. Files go to ``out_dir`` (default: the current directory);
    :attr:`Result.captures` lists them and :attr:`Result.trace` reads the
    trace. They are created before anything is simulated: one that cannot
    be raises OSError (FileNotFoundError, IsADirectoryError, ...) with the
    file in ``filename`` and the problem in ``strerror``; so does a write
    that fails during the run, when it ends.

    >>> import airtcp
    >>> r = airtcp.run("examples/wireless.toml", seed=3)   # doctest: +SKIP
    >>> r.flows[["name", "goodput_bps", "drops_channel"]]   # doctest: +SKIP
    >>> r = airtcp.run("examples/wireless.toml", pcap="base_station<->mobile", trace=True)  # doctest: +SKIP
    """
    sc = load(scenario)
    if seed is not None:
        seed = _check_seed(seed)
    observe = _observe(pcap, trace, out_dir)
    bar = None
    callback = None
    if callable(progress):
        callback = progress
    elif progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=round(sc.duration_s), unit="sim s", desc=os.path.basename(sc.source_name), leave=False)
        done = [0]

        def callback(t: float) -> None:
            n = int(t)
            if n > done[0]:
                bar.update(n - done[0])
                done[0] = n

    try:
        d = _core.run(sc._core, seed, callback, observe)
    finally:
        if bar is not None:
            bar.close()
    return Result._from_core(d)


def _observe(pcap, trace, out_dir, suffix: str = "") -> dict[str, Any]:
    """The observation request the core takes (see ``_core.run``)."""
    if pcap is None:
        points = []
    elif isinstance(pcap, (str, os.PathLike)):
        points = [(os.fspath(pcap), None)]
    elif isinstance(pcap, Mapping):
        points = [(str(k), None if v is None else os.fspath(v)) for k, v in pcap.items()]
    elif isinstance(pcap, Iterable):
        points = [(str(p), None) for p in pcap]
    else:
        raise TypeError(f"pcap must be a capture point, a list or a dict, not {type(pcap).__name__}")
    if trace is None or trace is False:
        tr = None
    elif trace is True:
        tr = {}
    elif isinstance(trace, (str, os.PathLike)):
        tr = {"file": os.fspath(trace)}
    elif isinstance(trace, Mapping):
        unknown = set(trace) - {"file", "flows", "links"}
        if unknown:
            raise TypeError(f"trace takes the keys file, flows and links, not {', '.join(sorted(map(str, unknown)))}")
        tr = {
            "file": None if trace.get("file") is None else os.fspath(trace["file"]),
            "flows": [str(f) for f in _names(trace.get("flows"))],
            "links": [str(l) for l in _names(trace.get("links"))],
        }
    else:
        raise TypeError(f"trace must be True, a file name or a dict, not {type(trace).__name__}")
    return {
        # "", not ".": files are named as asked ("x.pcapng", not "./x.pcapng").
        "out_dir": "" if out_dir is None else os.fspath(out_dir),
        "suffix": suffix,
        "pcap": points,
        "trace": tr,
    }


def _names(v) -> list:
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if not isinstance(v, Iterable):
        raise TypeError(f"trace flows and links must be a name or a list of names, not {type(v).__name__}")
    return list(v)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) and not hasattr(seed, "__index__"):
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


def run_many(
    scenario: Scenario | str | os.PathLike | Mapping[str, Any],
    seeds: Iterable[int],
    workers: int | None = None,
    progress: bool = True,
    *,
    pcap: str | Iterable[str] | Mapping[str, str | None] | None = None,
    trace: bool | str | os.PathLike | Mapping[str, Any] | None = None,
    out_dir: str | os.PathLike | None = None,
) -> Result:
    """Run a scenario for several seeds, in parallel, and concatenate.

    ``seeds``: at least one, each listed once (a ValueError otherwise: a
    seed twice would be one run counted twice in every mean). Each table
    gets a leading ``seed`` column; rows are in the order of ``seeds``
    whatever the order in which runs finish, so the result is
    identical to a serial run. Runs go on ``workers`` native threads
    (default: all cores; the simulator releases the GIL), so no process is
    spawned and scripts need no ``if __name__ == "__main__":`` guard.
    There are never more threads than seeds: a larger ``workers`` is
    lowered to the number of seeds (the results never depend on it). On
    Ctrl-C, pending runs are cancelled, running ones stopped, and every run
    that finished is returned, in the order of ``seeds`` (with a
    RuntimeWarning saying how many), including one that had finished on its
    thread but was not yet collected when Ctrl-C came.

    Every run's results are kept until the last ends: seeds whose results
    together would exceed the scenario's memory budget are refused with a
    ScenarioError before any run (docs/scenario.md, "Memory budget").

    ``pcap``, ``trace`` and ``out_dir`` are as in :func:`run`; with more
    than one seed each run's files get ``-seed<N>`` before the extension.
    A run stopped midway by Ctrl-C leaves no capture or trace: its partial
    files are removed (the warning says so; :attr:`Result.removed_files`
    lists them), so every file left is a whole run's. A Ctrl-C that comes
    once every run has finished stops nothing: the whole result is
    returned, without a warning.

    >>> import airtcp
    >>> r = airtcp.run_many("examples/wireless.toml", seeds=range(1, 5))   # doctest: +SKIP
    >>> r.flows.groupby("name").goodput_bps.describe()                     # doctest: +SKIP
    """
    sc = load(scenario)
    seeds = [_check_seed(s) for s in bounded_seeds(seeds)]
    # As the CLI (--runs 0) and a sweep (seeds = [], a seed listed twice):
    # no seed is no result, and a seed twice is one run counted twice in
    # every mean (and, with captures or traces, two runs writing one file).
    if not seeds:
        raise ValueError("seeds: empty: run_many needs at least one seed")
    twice = next((s for s, n in _counts(seeds).items() if n > 1), None)
    if twice is not None:
        raise ValueError(
            f"seeds: seed {twice} is listed twice: its runs would be identical, one run counted twice in every mean"
        )
    # Every run's results are kept until the last ends: refused before
    # the first runs if together they exceed the memory budget.
    sc._core.check_runs(len(seeds))
    pointless = seeds_warning(sc, seeds)
    if pointless:
        warnings.warn(pointless, DeterministicScenarioWarning, stacklevel=2)
    _observe(pcap, trace, out_dir)  # check the arguments before starting

    def observe(seed: int) -> dict[str, Any]:
        return _observe(pcap, trace, out_dir, suffix=f"-seed{seed}" if len(seeds) > 1 else "")

    if workers is None:
        from ._threads import default_workers

        workers = default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int, not {type(workers).__name__}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    workers = max(1, min(workers, len(seeds)))

    done: dict[int, dict] = {}
    removed: list[tuple[int, str]] = []  # (seed, file) of the runs stopped midway

    def one(s: int, check=None) -> dict:
        try:
            return _core.run(sc._core, s, check, observe(s))
        except BaseException as e:
            removed.extend((s, f) for f in getattr(e, "_removed_files", ()))
            raise

    interrupted = False
    bar = _bar(total=len(seeds), unit="run", desc=os.path.basename(sc.source_name), disable=not progress)
    try:
        if workers == 1:
            try:
                for i, s in enumerate(seeds):
                    done[i] = one(s)
                    bar.update()
            except KeyboardInterrupt:
                interrupted = len(done) < len(seeds)  # after the last run: stopped nothing
        else:
            from ._threads import run_in_threads

            def finished(i: int, d: dict) -> None:
                done[i] = d
                bar.update()

            interrupted = run_in_threads(seeds, one, workers, finished)
    finally:
        bar.close()
    if interrupted:
        warnings.warn(
            f"interrupted: {len(done)} of {len(seeds)} runs finished; returning those"
            + (f" ({removed_text(removed)})" if removed else ""),
            RuntimeWarning,
            stacklevel=2,
        )
    order = sorted(done)
    res = Result._from_many([done[i] for i in order], [seeds[i] for i in order], sc.duration_s)
    res.removed_files = sorted(removed)
    return res


def _counts(items: Iterable) -> dict:
    counts: dict = {}
    for x in items:
        counts[x] = counts.get(x, 0) + 1
    return counts


def removed_text(removed: Iterable[tuple[int, str]]) -> str:
    """What was removed of the runs stopped midway, for messages: "the
    partial capture and trace files of 2 runs stopped midway were removed"."""
    n = len({seed for seed, _ in removed})
    return f"the partial capture and trace files of {n} run{'s' if n != 1 else ''} stopped midway were removed"


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(disable: bool = False, **kwargs):
    """A tqdm progress bar, or (disabled) a stand-in that imports nothing."""
    if disable:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(**kwargs)


def seeds_warning(sc: Scenario, seeds: list[int]) -> str | None:
    """The warning for running several distinct seeds of a scenario that
    has no random component, or None."""
    distinct = len(set(seeds))
    if sc.random or distinct < 2:
        return None
    return (
        f"{sc.source_name}: no component draws random numbers (no lossy channel, RED-family queue, "
        f"stall, repeated or on/off app), so all {distinct} seeds give the same run"
    )


def jain_fairness(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n * sum x^2): 1.0 if all are
    equal, 1/n if one value has everything. NaN when there is nothing to
    share (an empty list, or all zero): the index is 0/0 there, and a run
    in which no flow got anything must not count as perfectly fair. The
    reproductions' statistics skip NaN runs.

    >>> import airtcp
    >>> airtcp.jain_fairness([1.0, 1.0, 1.0])
    1.0
    >>> airtcp.jain_fairness([3.0, 1.0])
    0.8
    >>> airtcp.jain_fairness([0.0, 0.0])
    nan

    The shares are amounts (throughput, packets delivered): a negative or
    infinite one raises ValueError. A NaN share (an undefined metric)
    makes the index NaN.
    """
    shares = [float(v) for v in values]
    for i, share in enumerate(shares):
        if share < 0 or math.isinf(share):
            raise ValueError(
                f"jain_fairness: share {i} is {share!r}; the index is defined for finite shares >= 0"
            )
    return _core.jain_fairness(shares)
