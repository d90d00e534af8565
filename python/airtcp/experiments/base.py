"""The declarative description of a reproduction.

An :class:`Experiment` says *what* to run and *what the source document
reported*; :mod:`airtcp.experiments.runner` runs it (in parallel, cached,
resumable) and :mod:`airtcp.experiments.report` prints and writes the
comparison. A reproduction module (one per source document) builds one
``Experiment`` and exposes it as ``EXPERIMENT``.

Vocabulary
----------
cell
    One point of the parameter grid, a flat dict of JSON-able values
    (``{"fading": "fast", "size_kb": 10}``). Its *key* is the canonical JSON
    of the dict (:func:`cell_key`).
scheme
    One of the protocols compared (``"tcp"``, ``"kick"``). For a cell, a
    scheme and the experiment's parameters, ``Experiment.scenario`` returns
    a scenario dict; the runner turns it into TOML once per (cell, scheme).
run
    Runs are numbered 1..N. Run *i* of every scheme in a cell uses the same
    simulation seed (common random numbers); ``Experiment.seeds`` maps run
    numbers to seeds (by default run *i* uses seed *i*).
metric
    A number taken from one run's :class:`airtcp.Result`
    (``Experiment.metrics`` returns a dict of them; NaN when undefined).
statistic
    An aggregate of a metric over the runs of a (cell, scheme)
    (``Experiment.statistics``: name -> function of a 1-D float array).
published
    The document's numbers: ``{(cell_key, scheme, metric, statistic): value}``.
claim
    A sentence of the document, with a concrete, pre-registered definition
    and a function that checks it against a :class:`Numbers` view (ours,
    and, where the document published the numbers, the document's own).
choice
    A parameter the document left open: our value and why.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Cell = Mapping[str, Any]


def cell_key(cell: Cell) -> str:
    """Canonical text of a cell: JSON with sorted keys, no spaces."""
    return json.dumps(dict(cell), sort_keys=True, separators=(",", ":"))


def mean(x: np.ndarray) -> float:
    x = x[~np.isnan(x)]
    return float(np.mean(x)) if len(x) else math.nan


# stats.py: paired t intervals for differences of means; ``along_axis`` is
# the same statistic of NaN-free data along an axis (vectorized bootstrap).
mean.is_mean = True
mean.along_axis = lambda x, axis=-1: np.mean(x, axis=axis)


def _percentile_along(x: np.ndarray, q: float, axis: int = -1) -> np.ndarray:
    """np.percentile of NaN-free data along ``axis``, ``inf`` counted as
    larger than every finite value (numpy alone gives NaN where it
    interpolates towards inf)."""
    unfinished = np.isposinf(x)
    if not unfinished.any():
        return np.percentile(x, q, axis=axis)
    top = np.max(np.where(unfinished, -np.inf, x), axis=axis)
    # A finite stand-in far above every finished run: a result above the
    # largest finished run leans on an unfinished one.
    v = np.percentile(np.where(unfinished, 1e300, x), q, axis=axis)
    return np.where(v > top, np.inf, v)


def percentile(q: float) -> Callable[[np.ndarray], float]:
    """The q-th percentile (numpy's default, linear interpolation), ignoring
    NaN. ``inf`` (a run that did not finish) counts as larger than every
    finished run: a percentile that interpolates towards it is ``inf``."""

    def f(x: np.ndarray) -> float:
        x = x[~np.isnan(x)]
        return float(_percentile_along(x, q)) if len(x) else math.nan

    f.__name__ = f"p{q:g}"
    f.percentile_q = q  # stats.py: order-statistic intervals
    f.along_axis = lambda x, axis=-1: _percentile_along(x, q, axis)
    return f


def std(x: np.ndarray) -> float:
    """Sample standard deviation (ddof=1), ignoring NaN."""
    x = x[~np.isnan(x)]
    return float(np.std(x, ddof=1)) if len(x) > 1 else math.nan


std.along_axis = lambda x, axis=-1: np.std(x, axis=axis, ddof=1)


def _kind(v: Any) -> str | None:
    """A parameter's kind: "number", "bool" or "str" (None: any)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return "str" if isinstance(v, str) else None


def _check_param_type(experiment: str, name: str, default: Any, value: Any, nullable: bool = False) -> None:
    """A changed parameter has its default's kind: a number stays a number
    (never the string "2", which float() would read, spaces and all),
    a flag a bool, a word a string. A default of None takes anything; a
    ``nullable`` parameter also takes None (JSON null: the feature off)."""
    want = _kind(default)
    if want is not None and _kind(value) != want and not (nullable and value is None):
        raise ValueError(f"{experiment}: parameter {name} takes a {want} (like {default!r}), got {value!r}")
    if want == "number" and isinstance(value, float) and not math.isfinite(value):
        # --set rate_bps=NaN ended as "airtcp: cannot convert float NaN to integer".
        raise ValueError(f"{experiment}: parameter {name} takes a finite number (like {default!r}), got {value!r}")


def whole(p: Mapping[str, Any], name: str) -> int:
    """Parameter ``name`` of ``p`` as an int; a fraction, a string or a
    bool is an error (int() would truncate 2.5 to 2 or read "2")."""
    v = p[name]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or isinstance(v, float) and not v.is_integer():
        raise ValueError(f"parameter {name} must be a whole number, got {v!r}")
    return int(v)


# --------------------------------------------------------------------------
# Parameter domains: what each open parameter may be, checked before anything
# is planned (Experiment.with_params, Experiment.check_params).


def _show(x: float) -> str:
    """A bound as the messages and reports write it: 65,495; 10,000,000; 0.001; 1e-06."""
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 1e16:
        return f"{int(x):,}"
    return f"{x:g}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class Domain:
    """The values an open parameter may take.

    ``text`` says which ("a whole number from 1 to 65,495"): it is what an
    error, the report's parameter table and ``airtcp reproduce NAME
    --params`` show. ``accepts(value)`` decides. ``bounds`` are accepted
    values at its ends (and every word of a set of words): the tests build
    each experiment's scenarios with each, so that a value the domain
    accepts is one the scenario loader accepts too, and check that each of
    ``outside`` is refused. ``null`` says what
    None means for a parameter whose None is a setting (``--set
    NAME=null``; the experiment's ``nullable``)."""

    text: str
    accepts: Callable[[Any], bool]
    bounds: tuple = ()
    null: str | None = None
    outside: tuple = ()  # values just outside (the tests check that each is refused)

    def or_null(self, meaning: str) -> Domain:
        return dataclasses.replace(self, null=meaning)

    def describe(self) -> str:
        return self.text + (f", or null ({self.null})" if self.null else "")

    def admits(self, value: Any) -> bool:
        if value is None:
            return self.null is not None
        try:
            return bool(self.accepts(value))
        except (TypeError, ValueError, OverflowError):
            return False


def whole_number(lo: int, hi: int, why: str = "") -> Domain:
    """A whole number in [lo, hi] (2.0 is 2; 2.5, "2" and True are not)."""
    def ok(v: Any) -> bool:
        return _is_number(v) and float(v).is_integer() and lo <= v <= hi

    return Domain(f"a whole number from {_show(lo)} to {_show(hi)}" + (f" ({why})" if why else ""), ok, (lo, hi),
                  outside=(lo - 1, hi + 1, lo + 0.5))


def number(lo: float, hi: float, why: str = "", above: bool = False, least: float | None = None) -> Domain:
    """A finite number in [lo, hi], or (lo, hi] with ``above`` (``least``:
    the smallest value the tests try then, default the next float above lo)."""
    def ok(v: Any) -> bool:
        return _is_number(v) and (v > lo if above else v >= lo) and v <= hi

    low = (math.nextafter(lo, math.inf) if least is None else least) if above else lo
    text = f"a number above {_show(lo)}, at most {_show(hi)}" if above else f"a number from {_show(lo)} to {_show(hi)}"
    below = lo if above else math.nextafter(lo, -math.inf)
    return Domain(text + (f" ({why})" if why else ""), ok, (low, hi), outside=(below, math.nextafter(hi, math.inf)))


def zero_or(least: float, hi: float, why: str = "") -> Domain:
    """0, or a number from ``least`` to ``hi``: a quantity whose smallest
    positive value is the resolution it is written in (a duration in whole
    microseconds: below half of one it would be written as 0)."""
    def ok(v: Any) -> bool:
        return _is_number(v) and (v == 0 or least <= v <= hi)

    return Domain(f"0, or a number from {_show(least)} to {_show(hi)}" + (f" ({why})" if why else ""), ok,
                  (0, least, hi), outside=(-least, least / 2, math.nextafter(hi, math.inf)))


def probability(why: str = "") -> Domain:
    d = number(0, 1)
    return dataclasses.replace(d, text="a probability from 0 to 1" + (f" ({why})" if why else ""))


def flag() -> Domain:
    return Domain("true or false", lambda v: isinstance(v, bool), (False, True), outside=(0, 1, "true"))


def one_of(*words: str) -> Domain:
    return Domain("one of " + ", ".join(map(repr, words)), lambda v: isinstance(v, str) and v in words, tuple(words),
                  outside=("", words[0].upper(), f" {words[0]}"))


def seed() -> Domain:
    """A simulation seed: a whole number in [0, 2**64)."""
    d = whole_number(0, 2**64 - 1)
    return dataclasses.replace(d, text="a whole number from 0 to 2**64 - 1 (a simulation seed)")


#: The scenario loader's limits (crates/airtcp-core/src/scenario: units.rs,
#: build.rs, budget.rs), which the domains below follow.
MAX_DURATION_S = 10_000_000  # the longest duration any field takes (about 116 days)
#: A link's one-way delay: a tenth of the longest run, so that a path of a
#: few such links still delivers a packet within a run (the loader refuses
#: a flow whose first packet cannot arrive before the run ends).
MAX_DELAY_S = MAX_DURATION_S // 10
MAX_RATE_BPS = 10**13  # 10 Tb/s
MAX_SIZE_BYTES = 10**15  # 1 PB
MAX_WINDOW_BYTES = 2**30  # the largest window TCP can advertise (RFC 7323)
MAX_MSS_BYTES = 65_495
MIN_TIMER_S = 0.001  # an RTO or kick timer: at least 1 ms
MIN_PERIOD_S = 1e-6  # a random process's mean period, a time-series interval: at least 1 us
AIRTCP_MAX_RTO_S = 60  # airtcp's max_rto where a scenario sets none (RtoConfig::default)
#: A queue limit in packets: the memory budget (4 GB by default) counts the
#: largest queue full at about 450 B a packet, so a million packets fit
#: beside everything else a reproduction's run holds.
MAX_QUEUE_PKTS = 1_000_000
#: A first flight (initial window) in segments, each about 160 B when sent
#: at once: a million fit the memory budget.
MAX_INITIAL_WINDOW = 1_000_000
#: The header bytes airtcp puts on a data segment without options (IPv4 + TCP).
HEADER_BYTES = 40

_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_SIZE_UNITS = {
    f"{prefix}B": scale
    for prefix, scale in (
        ("", 1), ("k", 1e3), ("K", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12),
        ("Ki", 1024), ("Mi", 1024**2), ("Gi", 1024**3), ("Ti", 1024**4),
    )
}
_QUANTITY = re.compile(r"([0-9.+-][0-9.eE+-]*) ?([A-Za-z]+)")


def _quantity(text: Any, units: Mapping[str, float]) -> float | None:
    """A quantity as the scenario loader spells it ("150ms", "74 KB":
    a decimal number, at most one space, a case-sensitive unit), in base
    units; None if ``text`` is not one."""
    if not isinstance(text, str):
        return None
    m = _QUANTITY.fullmatch(text)
    if m is None or m.group(2) not in units:
        return None
    try:
        v = float(m.group(1))
    except ValueError:
        return None
    return v * units[m.group(2)] if math.isfinite(v) and v >= 0 else None


def duration_s(text: Any) -> float | None:
    """Seconds of a duration string ("150ms"), or None if it is not one."""
    return _quantity(text, _DURATION_UNITS)


def queue_limit(text: Any) -> tuple[str, float] | None:
    """("pkt", n) or ("B", bytes) of a queue limit string ("50pkt", "74KB"),
    or None if it is not one."""
    n = _quantity(text, {"pkt": 1, "pkts": 1})
    if n is not None:
        return ("pkt", n)
    b = _quantity(text, _SIZE_UNITS)
    return None if b is None else ("B", b)


def earliest_arrival_s(there: Sequence[tuple[float, float]], data_bytes: int,
                       back: Sequence[tuple[float, float]] | None = None, syn_bytes: int = 0) -> float:
    """When a first packet of ``data_bytes`` sent at 0 on idle links arrives
    at the earliest, as the scenario loader reckons it (build.rs,
    check_first_packet_arrives, in whole nanoseconds): each link of the way
    ``there`` ((one-way delay s, rate b/s) pairs, in order) adds its delay
    and the packet's transmission, rounded up to a nanosecond; with a
    handshake (``back`` given) a SYN of ``syn_bytes`` crosses there and its
    SYN-ACK back first."""
    def way(links, nbytes):
        return sum(round(d * 1e9) + -(-nbytes * 8 * 10**9 // round(r)) for d, r in links)

    setup = way(there, syn_bytes) + way(back, syn_bytes) if back is not None else 0
    return (setup + way(there, int(data_bytes))) / 1e9


def arrives_in(arrival_s: float, duration_s: float) -> bool:
    """Does a packet arriving at ``arrival_s`` arrive within a run of
    ``duration_s`` (both in whole nanoseconds, as the loader counts)?"""
    return round(arrival_s * 1e9) <= round(duration_s * 1e9)


@dataclass(frozen=True)
class Relation:
    """A rule that ties parameters together (``min_rto_s`` at most
    ``max_rto_s``): ``holds(params)`` decides, ``text`` says the rule
    (in errors, reports and ``airtcp reproduce NAME --params``)."""

    names: tuple[str, ...]
    holds: Callable[[Mapping[str, Any]], bool]
    text: str
    #: What the rule comes to for some parameters ("at most 2,003,249
    #: here"), added to the text in an error.
    detail: Callable[[Mapping[str, Any]], str] | None = None

    def explain(self, params: Mapping[str, Any]) -> str:
        return self.text + (f" ({self.detail(params)})" if self.detail is not None else "")


def _named(names: Sequence[str], params: Mapping[str, Any], first: Sequence[str] = ()) -> str:
    """``a=1, b=2 and c=3``, the names in ``first`` (those just changed) first."""
    names = sorted(names, key=lambda n: n not in first)
    shown = [f"{n}={params[n]!r}" for n in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


@dataclass(frozen=True)
class Scheme:
    """A protocol compared in the experiment. ``label`` appears in tables."""

    name: str
    label: str
    description: str = ""


@dataclass(frozen=True)
class Choice:
    """A parameter the source document left open."""

    name: str
    value: str
    why: str


@dataclass(frozen=True)
class ClaimResult:
    """``agree`` is True, False, or None when it cannot be decided."""

    agree: bool | None
    detail: str


def verdict_word(agree: bool | None) -> str:
    """A claim's verdict as the reports write it."""
    return {True: "agrees", False: "disagrees", None: "undecided"}[agree]


class Numbers:
    """Aggregated numbers, looked up by cell, scheme, metric and statistic,
    and (for our own numbers) the per-run values behind them.

    Claims are written against this view so that the same check runs on our
    numbers and on the document's. A missing number is NaN. The document's
    numbers have no runs: :meth:`diff`, :meth:`ratio` and :meth:`interval`
    then return point estimates without a confidence interval (see
    :mod:`airtcp.experiments.stats`).
    """

    def __init__(
        self,
        values: Mapping[tuple[str, str, str, str], float],
        runs: Mapping[tuple[str, str, str], np.ndarray] | None = None,
        statistics: Mapping[str, Callable[[np.ndarray], float]] | None = None,
    ):
        self._v = dict(values)
        self._runs = dict(runs or {})
        self._stats = dict(statistics or {})
        # Intervals already computed (a report checks each claim more than
        # once; a bootstrap is not free).
        self._memo: dict[tuple, Any] = {}

    def _memoized(self, key: tuple, compute: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def get(self, cell: Cell, scheme: str, metric: str, stat: str) -> float:
        return self._v.get((cell_key(cell), scheme, metric, stat), math.nan)

    def has(self, cell: Cell, scheme: str, metric: str, stat: str) -> bool:
        return not math.isnan(self.get(cell, scheme, metric, stat))

    @property
    def has_runs(self) -> bool:
        """True for our numbers (per-run values known), False for a document's."""
        return bool(self._runs)

    def runs(self, cell: Cell, scheme: str, metric: str) -> np.ndarray | None:
        """The metric's value in runs 1..N of (cell, scheme), indexed by run
        (NaN where a run is missing), or None without per-run values."""
        return self._runs.get((cell_key(cell), scheme, metric))

    def _stat(self, stat: str) -> Callable[[np.ndarray], float]:
        try:
            return self._stats[stat]
        except KeyError:
            raise KeyError(f"unknown statistic {stat!r}; known: {sorted(self._stats)}") from None

    # Each interval is made for the lines its verdicts use (``lines``, as
    # :mod:`stats` takes them: an end near one is made again from more
    # resamples) and judged against those only, on our numbers and on a
    # document's (its points carry the lines too), so a claim that judges
    # against a line it did not pass fails on either.

    def interval(self, cell: Cell, scheme: str, metric: str, stat: str, lines: Sequence[float] = ()):
        """The statistic with its 95% CI (:func:`stats.interval`), made for
        the verdicts against ``lines`` (none by default: error bars)."""
        from . import stats

        lines = tuple(float(x) for x in lines)
        x = self.runs(cell, scheme, metric)
        if x is None:
            return stats.point(self.get(cell, scheme, metric, stat), lines)
        key = ("interval", cell_key(cell), scheme, metric, stat, lines)
        return self._memoized(key, lambda: stats.interval(x, self._stat(stat), lines))

    def diff(
        self, cell: Cell, a: str, b: str, metric: str, stat: str, cell_b: Cell | None = None,
        lines: Sequence[float] = (0.0,),
    ):
        """stat(a) - stat(b) (scheme ``a`` in ``cell`` against scheme ``b``
        in ``cell_b``, default the same cell), paired by run, with its 95% CI,
        made for the verdicts against ``lines`` (:func:`stats.difference`)."""
        from . import stats

        lines = tuple(float(x) for x in lines)
        cb = cell if cell_b is None else cell_b
        xa, xb = self.runs(cell, a, metric), self.runs(cb, b, metric)
        if xa is None or xb is None:
            return stats.point(self.get(cell, a, metric, stat) - self.get(cb, b, metric, stat), lines)
        key = ("diff", cell_key(cell), a, cell_key(cb), b, metric, stat, lines)
        return self._memoized(key, lambda: stats.difference(xa, xb, self._stat(stat), lines))

    def ratio(
        self, cell: Cell, a: str, b: str, metric: str, stat: str, cell_b: Cell | None = None,
        lines: Sequence[float] = (1.0,),
    ):
        """stat(a) / stat(b), paired by run, with its 95% CI (see :meth:`diff`;
        ``lines`` on the ratio's scale)."""
        from . import stats

        lines = tuple(float(x) for x in lines)
        cb = cell if cell_b is None else cell_b
        xa, xb = self.runs(cell, a, metric), self.runs(cb, b, metric)
        if xa is None or xb is None:
            den = self.get(cb, b, metric, stat)
            return stats.point(self.get(cell, a, metric, stat) / den if den else math.nan, lines)
        key = ("ratio", cell_key(cell), a, cell_key(cb), b, metric, stat, lines)
        return self._memoized(key, lambda: stats.ratio(xa, xb, self._stat(stat), lines))

    def contrast(
        self, terms: Sequence[tuple[Cell, str, float]], metric: str, stat: str, lines: Sequence[float] = (0.0,)
    ):
        """sum of weight x stat(scheme in cell) over ``terms`` (cell, scheme,
        weight), paired by run across all of them, with its 95% CI
        (:func:`stats.contrast`, made for the verdicts against ``lines``); a
        point without per-run values. E.g. the
        gain of A over B at cell 2 minus that at cell 1:
        ``[(c2, "b", 1), (c2, "a", -1), (c1, "b", -1), (c1, "a", 1)]``."""
        from . import stats

        lines = tuple(float(x) for x in lines)
        xs = [self.runs(c, sch, metric) for c, sch, _ in terms]
        if any(x is None for x in xs):
            return stats.point(sum(w * self.get(c, sch, metric, stat) for c, sch, w in terms), lines)
        key = ("contrast", tuple((cell_key(c), sch, w) for c, sch, w in terms), metric, stat, lines)
        return self._memoized(key, lambda: stats.contrast(xs, [w for *_, w in terms], self._stat(stat), lines))

    def ratio_contrast(
        self, terms: Sequence[tuple[Cell, str, float]], metric: str, stat: str, lines: Sequence[float] = (1.0,)
    ):
        """prod stat(scheme in cell) ** weight over ``terms`` (cell, scheme,
        weight), paired by run across all of them, with its 95% CI
        (:func:`stats.ratio_contrast`, made for the verdicts against
        ``lines``, on the ratio's scale); a point without per-run values. E.g.
        the ratio B / A at cell 2 over that at cell 1: ``[(c2, "b", 1), (c2,
        "a", -1), (c1, "b", -1), (c1, "a", 1)]``."""
        from . import stats

        lines = tuple(float(x) for x in lines)
        xs = [self.runs(c, sch, metric) for c, sch, _ in terms]
        if any(x is None for x in xs):
            with np.errstate(all="ignore"):
                logs = sum(w * np.log(np.float64(self.get(c, sch, metric, stat))) for c, sch, w in terms)
            return dataclasses.replace(stats.exp_of(stats.point(float(logs))), lines=lines)
        key = ("ratio contrast", tuple((cell_key(c), sch, w) for c, sch, w in terms), metric, stat, lines)
        return self._memoized(
            key, lambda: stats.ratio_contrast(xs, [w for *_, w in terms], self._stat(stat), lines)
        )

    def __len__(self) -> int:
        return len(self._v)


@dataclass(frozen=True)
class Claim:
    """A claim of the document and how we test it.

    ``definition`` makes the claim's words concrete (a tolerance, a test);
    it is written down before looking at results (or says, in ``revised``,
    when and why it was written after) and printed in the report
    (a function of the parameters, like ``Experiment.setup``, where it names
    a number the run decides, such as the runs per cell).
    ``check(numbers, params)`` returns a :class:`ClaimResult`.
    """

    id: str
    text: str
    definition: str | Callable[..., str]
    check: Callable[[Numbers, Mapping[str, Any]], ClaimResult]
    #: When the definition was written or changed with results already
    #: known, when and why; the report then says so instead of "fixed
    #: before looking at results".
    revised: str = ""


@dataclass(frozen=True)
class Table:
    """How the document laid out one of its tables.

    Rows are (scheme, metric, statistic, label); columns are the cells that
    match ``where`` ordered by ``column`` (a cell parameter), labelled by
    ``column_label(value)``.
    """

    title: str
    where: Mapping[str, Any]
    column: str
    rows: Sequence[tuple[str, str, str, str]]
    column_label: Callable[[Any], str] = str
    unit: str = ""
    in_terminal: bool = True  # False: only in report.md
    digits: int | None = None  # decimals of the numbers (default 3)


@dataclass(frozen=True)
class Experiment:
    """A reproduction of one source document. See the module docstring.

    ``scenario(cell, scheme, params)`` returns a scenario dict (or TOML
    text). ``metrics(result, cell, scheme, params)`` returns a dict of
    floats for one run. ``seeds(cell, n, params)`` returns the simulation
    seeds of runs 1..n (default ``[1..n]``); it must not depend on the
    scheme. ``plots(summary, runs, published, out_dir, experiment, params)``
    may write PNG files and return their names. ``setup``, ``choices``,
    each caveat, ``tables`` and a claim's ``definition`` may be functions of
    the parameters, so that the report describes the values actually used;
    one that also takes a ``runs`` keyword is told the runs per (cell,
    scheme) of the report (``--runs``; ``runs`` here is the default, and
    the report's copy of the experiment carries the runs it has).
    ``unused(params)`` returns {name: why} for the parameters that have no
    effect with the others' values (``delack_timeout_ms`` without delayed
    ACKs): :meth:`with_params` refuses to change one, as it refuses a name
    the experiment does not have. ``version`` is part of every
    cache key: bump it when ``metrics`` changes meaning. ``nullable`` names
    the parameters whose None is a setting (e.g. ``rtt_tick_s``: exact
    RTTs), so that ``--set NAME=null`` is accepted for them and no other.
    ``domains`` gives every parameter its :class:`Domain` (a whole number
    from 1 to 65,495, a probability, one of some words, ...) and
    ``relations`` the rules that tie several together (``min_rto_s`` at
    most ``max_rto_s``): :meth:`with_params` and :meth:`check_params`
    refuse a value or a combination outside them, in one line, before
    anything is planned (a registered experiment declares a domain for
    every parameter: tests/python/test_reproduce_params.py).
    ``extra_scenarios(params)`` returns (name, scenario) for the scenarios
    the outputs build after the runs (the threshold reproduction's cwnd
    traces): :func:`runner.plan` loads each before any run, so that a
    mistake in one is not found only once every run has finished.

    Two hooks serve an experiment that is not one document's evaluation
    (the cross-scheme matrix, :mod:`airtcp.experiments.matrix`):
    ``not_applicable(cell, scheme, params)`` returns why a scheme cannot
    run in a cell (None where it can); such pairs are not run. ``write(exp,
    outcome, runs, summary, numbers, meta)`` writes the outputs in place of
    the document-comparison report and returns {what: file name}, with the
    text shown in the terminal under "text" and the plots under "plots".
    """

    name: str
    title: str
    source: str
    cells: Sequence[Cell]
    schemes: Sequence[Scheme]
    scenario: Callable[[Cell, str, Mapping[str, Any]], Mapping[str, Any] | str]
    metrics: Callable[..., Mapping[str, float]]
    statistics: Mapping[str, Callable[[np.ndarray], float]]
    params: Mapping[str, Any] = field(default_factory=dict)
    runs: int = 100
    version: int | str = 1
    setup: str | Callable[[Mapping[str, Any]], str] = ""
    published: Mapping[tuple[str, str, str, str], float] = field(default_factory=dict)
    published_note: str = ""
    tables: Sequence[Table] | Callable[..., Sequence[Table]] = ()
    claims: Sequence[Claim] = ()
    choices: Sequence[Choice] | Callable[..., Sequence[Choice]] = ()
    caveats: Sequence[str | Callable[..., str]] = ()
    seeds: Callable[[Cell, int, Mapping[str, Any]], list[int]] | None = None
    plots: Callable[..., list[str]] | None = None
    not_applicable: Callable[[Cell, str, Mapping[str, Any]], str | None] | None = None
    write: Callable[..., dict] | None = None
    nullable: frozenset[str] = frozenset()
    unused: Callable[[Mapping[str, Any]], Mapping[str, str]] | None = None
    domains: Mapping[str, Domain] = field(default_factory=dict)
    relations: Sequence[Relation] = ()
    extra_scenarios: Callable[[Mapping[str, Any]], Sequence[tuple[str, Mapping[str, Any]]]] | None = None

    def applicable(self, cell: Cell, scheme: str, params: Mapping[str, Any] | None = None) -> bool:
        """Does ``scheme`` run in ``cell``? (See ``not_applicable``.)"""
        if self.not_applicable is None:
            return True
        return self.not_applicable(cell, scheme, self.params if params is None else params) is None

    def cell_seeds(self, cell: Cell, n: int, params: Mapping[str, Any] | None = None) -> list[int]:
        p = self.params if params is None else params
        if self.seeds is None:
            return list(range(1, n + 1))
        seeds = list(self.seeds(cell, n, p))
        if len(seeds) != n:
            raise ValueError(f"{self.name}: seeds() returned {len(seeds)} seeds for {n} runs")
        return seeds

    def _described(self, text: Any) -> Any:
        """``text`` itself, or, if it is a function, what it says for the
        current parameters (and runs, if it takes them)."""
        if not callable(text):
            return text
        if "runs" in inspect.signature(text).parameters:
            return text(self.params, runs=self.runs)
        return text(self.params)

    def setup_text(self) -> str:
        """The setup description for the current parameters."""
        return self._described(self.setup)

    def choice_list(self) -> list[Choice]:
        """The open choices, described for the current parameters."""
        return list(self._described(self.choices))

    def caveat_list(self) -> list[str]:
        """The differences from the document's simulator (each a text or a
        function of the parameters), described for the current parameters."""
        return [self._described(c) for c in self.caveats]

    def table_list(self) -> list[Table]:
        """The document's tables, labelled for the current parameters."""
        return list(self._described(self.tables))

    def claim_definition(self, claim: Claim) -> str:
        """A claim's definition as the report prints it for the current parameters."""
        return self._described(claim.definition)

    def param_problem(self, name: str, value: Any) -> str | None:
        """Why ``value`` cannot be parameter ``name`` (one line naming the
        experiment, the parameter, the value and what it may be), or None."""
        try:
            _check_param_type(self.name, name, self.params[name], value, name in self.nullable)
        except ValueError as e:
            return str(e)
        domain = self.domains.get(name)
        if domain is not None and not domain.admits(value):
            return f"{self.name}: parameter {name} must be {domain.describe()}, got {value!r}"
        return None

    def relation_problem(self, params: Mapping[str, Any], changed: Sequence[str] = ()) -> str | None:
        """The first rule of ``relations`` that ``params`` break, as one
        line naming every parameter it ties (those ``changed`` first), or None."""
        for r in self.relations:
            if not r.holds(params):
                return (
                    f"{self.name}: parameters {_named(r.names, params, changed)} do not go together: "
                    f"{r.explain(params)}"
                )
        return None

    def check_params(self) -> None:
        """Raise ValueError (one line) if a parameter is outside its domain
        or the parameters break a relation: :func:`runner.plan` calls it, so
        that an experiment whose parameters were set without
        :meth:`with_params` (``dataclasses.replace``) is checked as well
        before anything is planned."""
        for name, value in self.params.items():
            problem = self.param_problem(name, value)
            if problem:
                raise ValueError(problem)
        problem = self.relation_problem(self.params)
        if problem:
            raise ValueError(problem)

    def with_params(self, **changes: Any) -> Experiment:
        """A copy with some parameters changed. Unknown names are an error
        (KeyError); so is (ValueError, one line) a value outside the
        parameter's domain, parameters that break one of the experiment's
        relations, and a change to a parameter that would have no effect."""
        unknown = set(changes) - set(self.params)
        if unknown:
            raise KeyError(f"{self.name}: unknown parameter(s) {sorted(unknown)}; known: {sorted(self.params)}")
        for name, value in changes.items():
            problem = self.param_problem(name, value)
            if problem:
                raise ValueError(problem)
        params = {**self.params, **changes}
        problem = self.relation_problem(params, list(changes))
        if problem:
            raise ValueError(problem)
        if self.unused is not None:
            idle = self.unused(params)
            for name in changes:
                if name in idle:
                    raise ValueError(f"{self.name}: parameter {name} has no effect here: {idle[name]}")
        return dataclasses.replace(self, params=params)

    def with_cells(self, cells: Sequence[Cell]) -> Experiment:
        """A copy restricted to some cells (e.g. for quick looks and tests)."""
        return dataclasses.replace(self, cells=list(cells))

    def published_numbers(self) -> Numbers:
        return Numbers(self.published)
