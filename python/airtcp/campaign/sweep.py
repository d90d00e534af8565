"""Parameter sweeps: a grid of scenario parameters times seeds, run once,
stored as Parquet, resumed after any interruption, summarised per point.

A sweep is defined in the scenario file's ``[sweep]`` table (or given to
:func:`sweep` in Python)::

    [sweep]
    runs = 10                # seeds s, s+1, ... (s: the file's seed); or seeds = [...]
    combine = "product"      # every combination (default), or "zip"

    [sweep.parameters]
    per     = { path = 'link["BS->M"].a_to_b.error.per', values = [0.001, 0.01] }
    tcp     = { path = "flow[*].tcp.variant", values = ["reno", "sack"] }
    delay   = { path = 'link["S->BS"].delay', values = [10, 50], unit = "ms" }

Each parameter's name is its column in the results; ``unit`` is appended
to numeric values (the column keeps the numbers); ``labels`` name table
values (a whole ``queue`` table, say) in the column. Every point is the
scenario with its values substituted (:mod:`airtcp.campaign.paths`), and
every point is loaded (validated) before the first run: a mistake is one
``ScenarioError`` line naming the file, the parameter's line and the point.

Common random numbers by construction: seed s of every point is run with
seed s, and each random component draws from its own stream, so two
points that differ in one parameter see the same channel losses, fades
and arrivals in run s. Compare points with paired differences
(:func:`airtcp.experiments.stats.difference`).

Results live in the output directory (a :mod:`~airtcp.campaign.store`):
one Parquet dataset per table (``flows``, ``links``, ``transfers``,
``agents``, ``series``, and ``runs``: one row per point and seed), each row
carrying ``point``, the point's parameters as typed columns, and ``seed``;
``sweep.json`` (the definition, and every point the directory holds) and
``summary.csv`` (mean and 95% CI per point, flow or link, and metric).

A directory keeps every run it ever stored; a sweep's results and summary
(and :func:`load_results` by default) cover the last definition's points x
seeds only, as a fresh directory would: runs of seeds or points a later
definition dropped stay stored (extending to them again runs nothing) and
are loaded with ``load_results(out, runs="all")``.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import __build__, __version__, _core
from ..api import MAX_RUNS, MAX_RUNS_WHY, TABLES, Scenario, _arrow_table, _bar, _check_seed, _scenario_error, _seed_list, _table, load
from . import paths
from .._threads import default_workers
from .execute import Batch, batches_of, check_workers, parallelism, require_dask, run_batches
from .store import Committer, StoreError, open_store, read_store

DEFINITION = "sweep.json"
SUMMARY = "summary.csv"
FORMAT = 1
RUNS_TABLE = "runs"
STORE_TABLES = (*TABLES, RUNS_TABLE)
# Per-run scalars, one row per point and seed in the runs table.
RUN_COLUMNS = {
    "duration_s": "double",
    "events": "uint64",
    "packet_hops": "uint64",
    "setup_wall_s": "double",
    "run_wall_s": "double",
    "collect_wall_s": "double",
}
# Keys of the table a sweep is defined in.
SWEEP_KEYS = ("parameters", "runs", "seeds", "combine")
COMBINE = ("product", "zip")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A commit every second or so: at most that much work is lost to a kill -9.
COMMIT_EVERY_S = 1.0


# --------------------------------------------------------------------------
# The definition


@dataclass(frozen=True)
class Parameter:
    """One swept parameter: its column ``name``, its ``path`` into the
    scenario, the values substituted and the values of its column."""

    name: str
    path: str
    locations: tuple  # concrete locations (paths.Step tuples) it sets
    values: tuple  # substituted into the scenario
    column: tuple  # the column's values (numbers without the unit, labels)
    arrow_type: str
    unit: str | None = None


@dataclass(frozen=True)
class Point:
    """One combination of values: ``values`` by parameter name (column
    values), and the point's scenario text and its SHA-256."""

    values: dict
    text: str
    sha256: str


@dataclass
class Definition:
    """A checked sweep: its scenario, parameters, seeds and points."""

    scenario: Scenario
    base: dict  # the scenario file without its [sweep] table
    base_sha256: str
    parameters: list[Parameter]
    combine: str
    seeds: list[int]
    points: list[Point]

    @property
    def runs(self) -> int:
        return len(self.points) * len(self.seeds)

    def describe(self) -> str:
        """``9 points (per: 3 values x tcp: 3) x 10 seeds = 90 runs``"""
        sep = " x " if self.combine == "product" else ", zipped with "
        what = sep.join(f"{p.name}: {len(p.values)}" for p in self.parameters)
        n = len(self.points)
        return (
            f"{n} point{'s' if n != 1 else ''} ({what}) x {len(self.seeds)} seed"
            f"{'s' if len(self.seeds) != 1 else ''} = {self.runs} runs"
        )


class _Where:
    """Where the parts of a [sweep] table are in the file, for error lines
    (best effort: a line search; the table's own line otherwise)."""

    _HEADER = re.compile(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"""\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
    _PART = re.compile(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""")

    def __init__(self, text: str | None):
        self.lines: dict[str, int] = {}
        section = ""
        for no, line in enumerate((text or "").splitlines(), 1):
            m = self._HEADER.match(line)
            if m:
                section = self._norm(m.group(1))
                self._note(section, no)
                continue
            m = self._KEY.match(line)
            if m:
                key = self._norm(m.group(1))
                self._note(f"{section}.{key}" if section else key, no)

    def _norm(self, key: str) -> str:
        return ".".join(p.strip("\"'") for p in self._PART.findall(key))

    def _note(self, full: str, no: int) -> None:
        parts = full.split(".")
        if parts[0] != "sweep":
            return
        for k in range(1, len(parts) + 1):
            self.lines.setdefault(".".join(parts[:k]), no)

    def line(self, field: str) -> int | None:
        parts = field.replace("[", ".[").split(".")
        for k in range(len(parts), 0, -1):
            key = ".".join(p for p in parts[:k] if not p.startswith("["))
            if key in self.lines:
                return self.lines[key]
        return None


class _Errors:
    """Makes the one-line ScenarioErrors of a sweep definition."""

    def __init__(self, sc: Scenario, where: _Where):
        self.file = sc.source_name
        self.where = where

    def __call__(self, field: str, message: str) -> Exception:
        return _scenario_error(self.file, message, line=self.where.line(field), field=field)


def _column_type(values: Sequence[Any]) -> str | None:
    """The arrow type of a column of scalar values, None if mixed."""
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if any(isinstance(v, bool) for v in values):
        return None
    if all(isinstance(v, int) for v in values):
        return "int64"
    if all(isinstance(v, (int, float)) for v in values):
        return "double"
    if all(isinstance(v, str) for v in values):
        return "string"
    return None


def _type_name(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", dict: "table", list: "array"}.get(
        type(v), type(v).__name__
    )


def _reserved_names() -> dict[str, str]:
    """Column names a parameter may not take: {name: the table it is in}."""
    out = {"point": "every", "seed": "every", **{c: RUNS_TABLE for c in RUN_COLUMNS}}
    for table, cols in _core.schema().items():
        for c in cols:
            out.setdefault(c, table)
    return out


def _parameter(name: str, spec: Any, base: dict, err: _Errors) -> Parameter:
    field = f"sweep.parameters.{name}"
    if not isinstance(name, str) or not _NAME.match(name):
        raise err(field, f"parameter name {name!r} must be an identifier (letters, digits, _): it names a column")
    taken = _reserved_names().get(name)
    if taken is not None:
        raise err(
            field,
            f"{name!r} is already a column of the {taken} table{'s' if taken == 'every' else ''}: choose another name",
        )
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str):
        spec = {"path": spec[0], "values": spec[1]}
    if not isinstance(spec, Mapping):
        raise err(field, 'expected a table { path = "...", values = [...] } (or in Python a (path, values) pair)')
    unknown = sorted(set(spec) - {"path", "values", "unit", "labels"})
    if unknown:
        raise err(f"{field}.{unknown[0]}", "unknown key (expected path, values, unit, labels)")
    if "path" not in spec:
        raise err(field, 'missing path (e.g. path = "flow[*].tcp.variant")')
    if "values" not in spec:
        raise err(field, "missing values (a non-empty list)")
    path = spec["path"]
    try:
        steps = paths.parse(path)
        locations = paths.locations(base, steps)
    except paths.PathError as e:
        raise err(f"{field}.path", str(e)) from None
    values = spec["values"]
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise err(f"{field}.values", f"expected a list of values, got {_type_name(values)}")
    values = list(itertools.islice(values, MAX_RUNS + 1))
    if not values:
        raise err(f"{field}.values", "empty: a parameter needs at least one value")
    if len(values) > MAX_RUNS:
        raise err(f"{field}.values", f"more than {MAX_RUNS:,} values, each a point: {MAX_RUNS_WHY}")
    if any(loc[0].key == "flow" for loc in locations):
        for k, v in enumerate(values):
            if _traced_flow(_substituted(base, [(locations, v)])) is not None:
                # The path names the flag itself, or a value holds it.
                at = "path" if steps[-1].key == "trace" else f"values[{k}]"
                raise err(f"{field}.{at}", f"tcp.trace {TRACE_REASON}")
    first: dict[str, int] = {}  # not canon.index(): quadratic, minutes at 10^5 values
    for k, v in enumerate(values):
        if first.setdefault(json.dumps(v, sort_keys=True), k) != k:
            raise err(f"{field}.values[{k}]", f"{values[k]!r} is listed twice")
    unit = spec.get("unit")
    labels = spec.get("labels")
    if unit is not None:
        if not isinstance(unit, str) or not unit.strip():
            raise err(f"{field}.unit", 'expected a unit such as "ms" or "Mbps"')
        for k, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise err(
                    f"{field}.values[{k}]", f"with unit = {unit!r}, values must be numbers, got {_type_name(v)} {v!r}"
                )
        substituted = tuple(f"{v}{unit}" for v in values)
    else:
        substituted = tuple(values)
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise err(f"{field}.labels", "expected a list, one label per value")
        labels = list(labels)
        if len(labels) != len(values):
            raise err(f"{field}.labels", f"{len(labels)} labels for {len(values)} values")
        column = labels
    elif all(not isinstance(v, (dict, list)) for v in values):
        column = values
    else:
        # Tables or arrays as values: the column holds their JSON text.
        column = [v if isinstance(v, str) else json.dumps(v, sort_keys=True, separators=(",", ":")) for v in values]
    arrow = _column_type(column)
    if arrow is None:
        kinds = sorted({_type_name(v) for v in column})
        raise err(
            f"{field}.{'labels' if labels is not None else 'values'}",
            f"values of one parameter must have one type (a typed column), got {', '.join(kinds)}",
        )
    if arrow == "int64":
        for k, v in enumerate(column):
            if not -(2**63) <= v < 2**63:
                raise err(f"{field}.values[{k}]", f"{v} does not fit a 64-bit integer")
    if labels is not None and len(set(map(repr, column))) != len(column):
        raise err(f"{field}.labels", "labels must differ from each other")
    if arrow == "double":
        column = [float(v) for v in column]
    return Parameter(name, path, tuple(locations), substituted, tuple(column), arrow, unit)


def _seeds(table: Mapping[str, Any], default_seed: int, err: _Errors) -> list[int]:
    runs, seeds = table.get("runs"), table.get("seeds")
    if runs is not None and seeds is not None:
        raise err("sweep.seeds", "give runs or seeds, not both")
    if seeds is not None:
        if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
            raise err("sweep.seeds", "expected a list of seeds")
        out = []
        for k, s in enumerate(itertools.islice(seeds, MAX_RUNS + 1)):
            if k == MAX_RUNS:
                raise err("sweep.seeds", f"more than {MAX_RUNS:,} seeds: {MAX_RUNS_WHY}")
            try:
                out.append(_check_seed(s))
            except (TypeError, ValueError) as e:
                raise err(f"sweep.seeds[{k}]", str(e)) from None
        if not out:
            raise err("sweep.seeds", "empty: a sweep needs at least one seed")
        if len(set(out)) != len(out):
            raise err("sweep.seeds", "a seed is listed twice")
        return out
    if runs is None:
        runs = 1
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise err("sweep.runs", f"expected a positive number of runs, got {runs!r}")
    if runs > MAX_RUNS:
        raise err("sweep.runs", f"{runs} runs: {MAX_RUNS_WHY}")
    if default_seed + runs - 1 >= 2**64:
        raise err("sweep.runs", f"seeds {default_seed}..{default_seed + runs - 1} exceed 2**64 - 1")
    return [default_seed + i for i in range(runs)]


TRACE_REASON = (
    "writes a per-packet trace file for one run: a sweep does not take it "
    "(every run would write the same file; observe one point with airtcp run)"
)


def _traced_flow(doc: Mapping[str, Any]) -> int | None:
    """The first flow of ``doc`` whose ``tcp.trace`` is true, if any."""
    for i, fl in enumerate(doc.get("flow") or []):
        tcp = fl.get("tcp") if isinstance(fl, Mapping) else None
        if isinstance(tcp, Mapping) and tcp.get("trace") is True:
            return i
    return None


def _substituted(base: dict, settings: Iterable[tuple[Sequence, Any]]) -> dict:
    """A copy of ``base`` with each value set at each of its locations."""
    doc = copy.deepcopy(base)
    for locations, value in settings:
        for loc in locations:
            paths.assign(doc, loc, copy.deepcopy(value))
    return doc


def _point_text(base: dict, params: Sequence[Parameter], choice: Sequence[int]) -> str:
    import tomli_w

    return tomli_w.dumps(_substituted(base, ((p.locations, p.values[k]) for p, k in zip(params, choice))))


def define(
    scenario: Scenario | str | os.PathLike | Mapping[str, Any],
    parameters: Mapping[str, Any] | None = None,
    runs: int | None = None,
    seeds: Iterable[int] | None = None,
    combine: str | None = None,
    workers: int | None = None,
) -> Definition:
    """Check a sweep and every one of its points; return the
    :class:`Definition`. The scenario's ``[sweep]`` table gives the
    defaults; ``parameters``, ``runs``/``seeds`` and ``combine`` replace
    its entries. Any mistake raises :class:`airtcp.ScenarioError` (one
    line) before anything runs."""
    import tomllib

    sc = load(scenario)
    err = _Errors(sc, _Where(sc.text if sc.source_name != "<dict>" else None))
    doc = tomllib.loads(sc.text)
    table = doc.pop("sweep", None)
    if table is None:
        table = {}
    unknown = sorted(set(table) - set(SWEEP_KEYS))
    if unknown:
        raise err(f"sweep.{unknown[0]}", f"unknown key (expected {', '.join(SWEEP_KEYS)})")
    table = dict(table)
    if parameters is not None:
        table["parameters"] = parameters
    if runs is not None or seeds is not None:
        table.pop("runs", None)
        table.pop("seeds", None)
        if runs is not None:
            table["runs"] = runs
        if seeds is not None:
            if isinstance(seeds, Iterable) and not isinstance(seeds, (str, bytes, Mapping)):
                # Never all of an endless iterable: _seeds refuses past MAX_RUNS.
                seeds = list(itertools.islice(seeds, MAX_RUNS + 1))
            table["seeds"] = seeds
    if combine is not None:
        table["combine"] = combine
    for key, what in (("capture", "[[capture]] tables"), ("trace", "a [trace] table")):
        if key in doc:
            raise err(
                "sweep",
                f"the scenario has {what}, which write files for one run: a sweep does not take them "
                "(observe one point with airtcp run)",
            )
    traced = _traced_flow(doc)
    if traced is not None:
        raise err(f"flow[{traced}].tcp.trace", f"true {TRACE_REASON}")
    specs = table.get("parameters")
    if not specs:
        if "parameters" not in table and sc.source_name != "<dict>" and not sc.has_sweep:
            raise err("sweep", "the scenario has no [sweep] table (see docs/sweeps.md)")
        raise err("sweep.parameters", "no parameters: a sweep needs at least one")
    if not isinstance(specs, Mapping):
        raise err("sweep.parameters", "expected a table of parameters: name = { path = ..., values = [...] }")
    params = [_parameter(name, spec, doc, err) for name, spec in specs.items()]
    for i, a in enumerate(params):
        for b in params[:i]:
            if any(paths.overlaps(la, lb) for la in a.locations for lb in b.locations):
                raise err(
                    f"sweep.parameters.{a.name}.path",
                    f"{a.path} sets what parameter {b.name} ({b.path}) sets: one of them would have no effect",
                )
    mode = table.get("combine", "product")
    if mode not in COMBINE:
        raise err("sweep.combine", f'expected "product" or "zip", got {mode!r}')
    if mode == "zip":
        lengths = {p.name: len(p.values) for p in params}
        if len(set(lengths.values())) > 1:
            raise err("sweep.combine", f"zip needs parameters with as many values each, got {lengths}")
        n_points = len(params[0].values)
    else:
        n_points = math.prod(len(p.values) for p in params)
    run_seeds = _seeds(table, sc.seed, err)
    # Counted before any point is made: ten parameters of ten values are
    # 10^10 points from a few lines.
    if n_points * len(run_seeds) > MAX_RUNS:
        raise err(
            "sweep",
            f"{n_points:,} points x {len(run_seeds):,} seeds = {n_points * len(run_seeds):,} runs: {MAX_RUNS_WHY}",
        )
    if mode == "zip":
        choices = [tuple([k] * len(params)) for k in range(n_points)]
    else:
        choices = list(itertools.product(*(range(len(p.values)) for p in params)))
    texts = [_point_text(doc, params, c) for c in choices]
    points = [
        Point({p.name: p.column[k] for p, k in zip(params, c)}, t, hashlib.sha256(t.encode()).hexdigest())
        for c, t in zip(choices, texts)
    ]
    seen: dict[str, int] = {}
    for i, pt in enumerate(points):
        if pt.sha256 in seen:
            raise err("sweep", f"points {seen[pt.sha256]} and {i} give the same scenario ({_point_label(pt)})")
        seen[pt.sha256] = i
    _validate_points(sc, params, points, choices, err, workers)
    base_sha = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()
    return Definition(sc, doc, base_sha, params, mode, run_seeds, points)


def _point_label(pt: Point) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in pt.values.items())


def _validate_points(sc, params, points, choices, err, workers) -> None:
    """Load every point (threads: loading releases the GIL); raise the
    first point's error, attributed to the parameter whose field the
    loader names when there is one."""
    failures: dict[int, Exception] = {}

    def check(i: int, _check=None):
        try:
            _core.load(points[i].text, f"{sc.source_name} (sweep point {i})")
        except _core.ScenarioError as e:
            return e
        return None

    def note(i: int, e) -> None:
        if e is not None:
            failures[i] = e

    n = max(1, min(workers or default_workers(), len(points)))
    if n == 1:
        for i in range(len(points)):
            note(i, check(i))
            if failures:
                break
    else:
        from .._threads import run_in_threads

        if run_in_threads(list(range(len(points))), check, n, note):
            raise KeyboardInterrupt
    if not failures:
        return
    i = min(failures)
    e = failures[i]
    core_field = getattr(e, "field", "") or ""
    message = getattr(e, "message", str(e))
    culprits = [
        (p, k) for p, k in zip(params, choices[i]) if any(_related(paths.text(loc), core_field) for loc in p.locations)
    ]
    what = f"{core_field}: {message}" if core_field else message
    if len(culprits) == 1:
        p, k = culprits[0]
        raise err(
            f"sweep.parameters.{p.name}.values[{k}]",
            f"{p.name} = {json.dumps(p.column[k])} (sweep point {i}: {_point_label(points[i])}) is rejected: {what}",
        )
    raise err("sweep", f"point {i} ({_point_label(points[i])}) is rejected: {what}")


def _related(location: str, field: str) -> bool:
    """Does the loader's field name the location, inside or around it?
    (Counted members are named ``flow[1][i=17].to``: the member part is
    dropped.)"""
    field = re.sub(r"\[i=\d+\]", "", field)
    if not field:
        return False
    return field == location or any(
        a.startswith(b) and a[len(b)] in ".[" for a, b in ((field, location), (location, field)) if len(a) > len(b)
    )


# --------------------------------------------------------------------------
# The output directory: its definition file


def _schemas(params: Sequence[Parameter]) -> dict[str, dict[str, str]]:
    """Arrow types of every stored table's columns."""
    core = _core.schema()
    prefix = {"point": "int64", **{p.name: p.arrow_type for p in params}, "seed": "uint64"}
    out = {t: {**prefix, **core[t]} for t in TABLES}
    out[RUNS_TABLE] = {**prefix, **RUN_COLUMNS}
    return out


def _read_json(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def _write_json(path: str, data: Mapping[str, Any]) -> None:
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _register(out: str, d: Definition) -> tuple[dict, list[int]]:
    """Check that ``out`` holds this sweep (or nothing), add the new points
    to ``sweep.json``; return it and the directory's index of each point
    of the definition. Points keep their index for good: a point is
    identified by its scenario text."""
    params = [{"name": p.name, "path": p.path, "unit": p.unit, "type": p.arrow_type} for p in d.parameters]
    schemas = _schemas(d.parameters)
    path = os.path.join(out, DEFINITION)
    old = _read_json(path)
    if old is None:
        if any(not n.startswith(".") for n in os.listdir(out)):
            raise StoreError(f"{out} is not empty and holds no sweep: choose another output directory")
        old = {"points": []}
    else:
        why = None
        if old.get("format") != FORMAT:
            why = f"it was written in format {old.get('format')!r}, this airtcp writes {FORMAT}"
        elif old.get("airtcp_build") != __build__:
            why = f"it was written by airtcp {old.get('airtcp_build', old.get('airtcp_version'))}, this is {__build__}"
        elif old.get("base_sha256") != d.base_sha256:
            why = "its base scenario differs (anything outside [sweep] changed)"
        elif old.get("parameters") != params:
            why = "its parameters (names, paths, units or types) differ"
        elif old.get("columns") != schemas:
            why = "its result columns differ (another airtcp build)"
        if why:
            raise StoreError(
                f"{out} holds another sweep: {why}; choose another output directory (or delete {out} to start afresh)"
            )
    known = {p["sha256"]: i for i, p in enumerate(old["points"])}
    all_points = list(old["points"])
    index = []
    for pt in d.points:
        if pt.sha256 not in known:
            known[pt.sha256] = len(all_points)
            all_points.append({"values": pt.values, "sha256": pt.sha256})
        index.append(known[pt.sha256])
    data = {
        "format": FORMAT,
        "airtcp_version": __version__,
        "airtcp_build": __build__,
        "scenario": d.scenario.source_name,
        "base_sha256": d.base_sha256,
        "parameters": params,
        "columns": schemas,
        "combine": d.combine,
        "seeds": d.seeds,
        "current_points": index,
        "points": all_points,
    }
    _write_json(path, data)
    return data, index


def point_key(point_sha256: str) -> str:
    """A point's part of its runs' task keys."""
    return point_sha256[:24]


def task_key(point_sha256: str, seed: int) -> str:
    return f"{point_key(point_sha256)}/{seed}"


def task_point(key: str) -> str:
    """The point part (:func:`point_key`) of a task key."""
    return key.partition("/")[0]


# --------------------------------------------------------------------------
# Running


def _run_tables(d: Mapping[str, Any]) -> dict[str, Any]:
    """What a run stores (computed where it ran; module-level so that Dask
    workers find it by name): its tables and its scalars."""
    out = _core.columns([d["tables"]], False)
    out[RUNS_TABLE] = {k: [d[k]] for k in RUN_COLUMNS}
    return out


def _make_tables(schemas, definition: Mapping[str, Any], tasks: Mapping[str, tuple[int, int]]):
    """The function that turns finished runs [(key, tables)] into a part:
    each table's rows with the run's point, parameters and seed."""
    points = definition["points"]
    params = [p["name"] for p in definition["parameters"]]

    def make(pending: Sequence[tuple[str, dict]]) -> dict[str, Any]:
        columns = {t: {c: [] for c in schemas[t]} for t in STORE_TABLES}
        for key, tables in pending:
            point, seed = tasks[key]
            values = points[point]["values"]
            for t in STORE_TABLES:
                cols = columns[t]
                table = tables[t]
                n = len(next(iter(table.values()), ()))
                cols["point"].extend([point] * n)
                for name in params:
                    cols[name].extend([values[name]] * n)
                cols["seed"].extend([seed] * n)
                for name, vals in table.items():
                    cols[name].extend(vals)
        return {t: _arrow_table(columns[t], schemas[t]) for t in STORE_TABLES}

    return make


def sweep(
    scenario: Scenario | str | os.PathLike | Mapping[str, Any],
    parameters: Mapping[str, Any] | None = None,
    *,
    runs: int | None = None,
    seeds: Iterable[int] | None = None,
    combine: str | None = None,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    dask: Any = None,
    progress: bool = True,
) -> SweepResult:
    """Run a parameter sweep; return its :class:`SweepResult`.

    ``scenario`` is a path, a dict or a Scenario; its ``[sweep]`` table (a
    ``"sweep"`` key of a dict) defines the sweep, and ``parameters``
    (``{name: {"path": ..., "values": [...], "unit": ..., "labels": ...}}``
    or ``{name: (path, values)}``), ``runs`` or ``seeds`` and ``combine``
    replace its entries. Every point is validated first (ScenarioError).

    Results go to ``out`` (default ``airtcp-out/<file name>``); runs
    already there are not run again, so calling it again after an
    interruption resumes (each point and seed is stored once). Runs go on
    ``workers`` threads (default: all cores), or on Dask with
    ``dask="local"`` (a LocalCluster of ``workers`` processes; scripts then
    need the ``if __name__ == "__main__":`` guard), a scheduler address
    (``"tcp://host:8786"``) or a ``distributed.Client``. Results are the
    same bit for bit whatever runs them. On Ctrl-C the finished runs are
    kept and the partial result is returned with a RuntimeWarning.

    >>> import airtcp
    >>> r = airtcp.sweep("examples/sweep.toml", out="airtcp-out/sweep")   # doctest: +SKIP
    >>> r.summary.query("metric == 'goodput_bps'")                        # doctest: +SKIP
    """
    t0 = time.perf_counter()
    require_dask(dask)
    check_workers(workers, dask)
    d = define(scenario, parameters, runs=runs, seeds=seeds, combine=combine, workers=workers)
    out = os.fspath(out) if out is not None else default_out(d.scenario.source_name)
    os.makedirs(out, exist_ok=True)
    store = open_store(out, STORE_TABLES)
    try:
        definition, index = _register(out, d)
        tasks = {task_key(pt.sha256, s): (index[i], s) for i, pt in enumerate(d.points) for s in d.seeds}
        reused = len(store.done.intersection(tasks))
        par = parallelism(workers, dask)
        batches = []
        for i, pt in enumerate(d.points):
            todo = [(key, s) for s in d.seeds if (key := task_key(pt.sha256, s)) not in store.done]
            name = f"{d.scenario.source_name} (sweep point {i})"
            batches.extend(Batch(pt.text, name, tuple(chunk), _run_tables) for chunk in batches_of(todo, par))
        writer = Committer(store, _make_tables(_schemas(d.parameters), definition, tasks), COMMIT_EVERY_S)
        bar = _bar(
            disable=not progress,
            total=len(tasks),
            initial=reused,
            unit="run",
            desc=f"sweep {os.path.basename(out.rstrip(os.sep)) or out}",
            smoothing=0.05,
        )
        executed = 0

        def finished(_: int, results: list) -> None:
            nonlocal executed
            for key, value in results:
                writer.add(key, value)
            executed += len(results)
            bar.update(len(results))

        try:
            interrupted = run_batches(batches, finished, workers=workers, dask=dask)
        finally:
            bar.close()
            writer.flush()
        result = SweepResult(out, definition, store, executed=executed, reused=reused, interrupted=interrupted)
        result.wall_s = time.perf_counter() - t0
        if not interrupted:
            result.summary.to_csv(os.path.join(out, SUMMARY), index=False)
    finally:
        store.close()
    if interrupted:
        warnings.warn(
            f"interrupted: {result.finished} of {result.planned} runs are stored in {out}; "
            f"run the same sweep with out={out!r} to resume",
            RuntimeWarning,
            stacklevel=2,
        )
    return result


def default_out(source_name: str) -> str:
    """``airtcp-out/<file name without .toml>`` (``airtcp-out/sweep`` for a dict)."""
    stem = os.path.splitext(os.path.basename(source_name))[0]
    return os.path.join("airtcp-out", stem if source_name != "<dict>" and stem else "sweep")


# --------------------------------------------------------------------------
# Results


LOADS = ("current", "all")


def _check_load(runs: Any) -> str:
    if not isinstance(runs, str) or runs not in LOADS:
        raise ValueError(
            f"runs: expected 'current' (the last definition's points x seeds) or 'all' (every stored run), got {runs!r}"
        )
    return runs


class SweepResult:
    """The results of a sweep (:func:`sweep`) or of an output directory
    (:func:`load_results`).

    DataFrames (read on first access, rows ordered by point, seed and then
    as in a run's result): ``flows``, ``links``, ``transfers``, ``agents``,
    ``series`` (each row with ``point``, the parameters and ``seed``),
    ``runs`` (one row per point and seed: events, wall times), ``points``
    (one row per point: its parameters, runs stored) and ``summary`` (mean
    and 95% t interval over seeds per point, flow or link, and metric).
    ``tables`` holds the result tables as pyarrow Tables. ``parameters``
    lists the parameter names; ``seeds`` the seeds of the last definition;
    ``complete`` says whether every point of that definition has every
    seed; after :func:`sweep`, ``executed``, ``reused`` and
    ``interrupted`` say what it did.

    All of them cover the last definition's points x seeds
    (``loaded_runs == "current"``, what ``repr`` describes), as in a fresh
    directory; the directory's other runs (seeds or points a later
    definition dropped) are left out and counted by ``outside``.
    ``load_results(out, runs="all")`` (``loaded_runs == "all"``) loads
    every stored run instead: each point with every seed stored, also the
    points outside the last definition (``points.current`` is False for
    them).
    """

    def __init__(
        self,
        out: str,
        definition: Mapping[str, Any],
        store,
        executed=0,
        reused=0,
        interrupted=False,
        runs: str = "current",
    ):
        self.loaded_runs = _check_load(runs)
        self.out = out
        self.definition = dict(definition)
        self.parameters = [p["name"] for p in definition["parameters"]]
        self.seeds = list(definition["seeds"])
        self.executed = executed
        self.reused = reused
        self.interrupted = interrupted
        self._store = store
        self._tables: dict[str, Any] = {}
        self._frames: dict[str, Any] = {}
        self._summary = None
        points = definition["points"]
        current = definition["current_points"]
        self.planned = len(current) * len(self.seeds)
        # The definition's runs (each point once, each seed once); of the
        # other stored runs, those of points the definition file knows (a
        # reader may see runs a newer definition committed after it read
        # sweep.json: they are no point of this one).
        self._tasks = {task_key(points[i]["sha256"], s) for i in current for s in self.seeds}
        known = {point_key(p["sha256"]) for p in points}
        self.finished = len(self._tasks & store.done)
        self.outside = sum(task_point(t) in known for t in store.done - self._tasks)
        self.wall_s = math.nan

    @property
    def complete(self) -> bool:
        return self.finished == self.planned

    def table(self, name: str):
        """One stored table as a pyarrow Table, ordered by point and seed."""
        if name not in self._tables:
            import pyarrow as pa
            import pyarrow.compute as pc

            schema = pa.schema([pa.field(c, pa.type_for_alias(t)) for c, t in self.definition["columns"][name].items()])
            current = self.loaded_runs == "current"
            t = self._store.read(name, schema, tasks=self._tasks if current else None)
            if t.num_rows:
                if current:
                    # The definition is a grid: its runs are the rows of
                    # its points with its seeds.
                    keep = pc.and_(
                        pc.is_in(t["point"], value_set=pa.array(self.definition["current_points"], pa.int64())),
                        pc.is_in(t["seed"], value_set=pa.array(self.seeds, pa.uint64())),
                    )
                else:
                    keep = pc.less(t["point"], len(self.definition["points"]))
                t = t.filter(keep)
                # Parts are in commit order; a stable sort by (point, seed)
                # keeps each run's rows in their order.
                t = t.take(pc.sort_indices(t, sort_keys=[("point", "ascending"), ("seed", "ascending")]))
            self._tables[name] = t
        return self._tables[name]

    @property
    def tables(self) -> dict[str, Any]:
        return {t: self.table(t) for t in STORE_TABLES}

    def _frame(self, name: str):
        if name not in self._frames:
            self._frames[name] = self.table(name).to_pandas()
        return self._frames[name]

    flows = property(lambda self: self._frame("flows"), doc="Per-flow results of every run loaded (DataFrame).")
    links = property(lambda self: self._frame("links"), doc="Per link-direction results of every run loaded.")
    transfers = property(lambda self: self._frame("transfers"), doc="Completed transfers of every run loaded.")
    agents = property(lambda self: self._frame("agents"), doc="Agent counters of every run loaded (long format).")
    series = property(lambda self: self._frame("series"), doc="Sampled time series of every run loaded (long format).")
    runs = property(lambda self: self._frame(RUNS_TABLE), doc="One row per point and seed: events, wall times.")

    @property
    def points(self):
        """One row per point of the last definition (with ``runs="all"``,
        per point the directory holds): ``point``, its parameters, ``runs``
        loaded, and ``current`` (in the last definition)."""
        import pandas as pd

        stored = self.runs.groupby("point").size() if len(self.runs) else {}
        current = set(self.definition["current_points"])
        points = self.definition["points"]
        shown = sorted(current) if self.loaded_runs == "current" else range(len(points))
        rows = [
            {"point": i, **points[i]["values"], "runs": int(stored.get(i, 0)), "current": i in current}
            for i in shown
        ]
        return pd.DataFrame(rows, columns=["point", *self.parameters, "runs", "current"])

    @property
    def summary(self):
        """Mean and 95% CI over seeds, per point, flow or link, and metric
        (long format): point, parameters, table, name, metric, runs, mean,
        ci_low, ci_high."""
        if self._summary is None:
            self._summary = summarize(self)
        return self._summary

    def summary_text(self, max_rows: int | None = 40) -> str:
        """Per point and flow: goodput, retransmissions, timeouts and RTT,
        means over seeds with the goodput's 95% CI."""
        s = self.summary
        if not len(s):
            return "no results"
        f = s[s["table"] == "flows"]
        keys = ["point", *self.parameters, "name"]
        wide = {
            m: f[f["metric"] == m].set_index(keys)
            for m in ("goodput_bps", "retransmitted_segments", "timeouts", "mean_rtt_s")
        }
        g = wide["goodput_bps"]
        rows = []
        for idx, r in g.iterrows():

            def mean(m):
                return wide[m]["mean"].get(idx, math.nan)

            ci = "" if math.isnan(r["ci_low"]) else f" [{r['ci_low'] / 1e6:.3f}, {r['ci_high'] / 1e6:.3f}]"
            rtt = mean("mean_rtt_s")
            rows.append(
                [
                    str(idx[0]),
                    *(_cell(v) for v in idx[1:-1]),
                    str(idx[-1]),
                    str(int(r["runs"])),
                    f"{r['mean'] / 1e6:.3f}{ci}",
                    f"{mean('retransmitted_segments'):.1f}",
                    f"{mean('timeouts'):.2f}",
                    "-" if math.isnan(rtt) else f"{rtt * 1e3:.1f}",
                ]
            )
        note = ""
        if max_rows is not None and len(rows) > max_rows:
            note = f"... {len(rows) - max_rows} more rows in {os.path.join(self.out, SUMMARY)}"
            rows = rows[:max_rows]
        header = [
            "point",
            *self.parameters,
            "flow",
            "runs",
            "goodput Mb/s [95% CI]",
            "retransmits",
            "timeouts",
            "rtt ms",
        ]
        text = _table(header, rows, left=len(self.parameters) + 2)
        return "means over seeds\n" + text + ("\n" + note if note else "")

    def __repr__(self) -> str:
        if self.loaded_runs == "all":
            rest = f"; all {self.finished + self.outside} stored runs loaded (runs='all')"
        elif self.outside:
            rest = f"; {self.outside} stored runs outside them left out (runs='all' loads them)"
        else:
            rest = ""
        return (
            f"<airtcp.SweepResult {self.out!r}: {len(self.definition['current_points'])} points x "
            f"{len(self.seeds)} seeds, {self.finished} of {self.planned} runs stored{rest}>"
        )


def _cell(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def summarize(res: SweepResult):
    """The long summary table of :attr:`SweepResult.summary`: for flows
    (by name), links (by name) and transfers (each run's mean response
    time, by flow name), the mean over seeds of every numeric column and
    its 95% t interval (:func:`airtcp.experiments.stats.t_half_width`)."""
    import numpy as np
    import pandas as pd

    from ..experiments import stats

    params = res.parameters
    ident = {"point", "seed", *params}
    frames = []
    sources = [("flows", res.flows, {"flow"}), ("links", res.links, {"link"})]
    tr = res.transfers
    if len(tr):
        names = res.flows[["point", "seed", "flow", "name"]]
        per_run = (
            tr.merge(names, on=["point", "seed", "flow"])
            .groupby(["point", "seed", "name"], sort=False)["response_s"]
            .mean()
            .reset_index()
        )
        sources.append(("transfers", per_run, set()))
    for table, df, skip in sources:
        if not len(df):
            continue
        metrics = [
            c
            for c in df.columns
            if c not in ident | skip
            and c != "name"
            and pd.api.types.is_numeric_dtype(df[c])
            and not pd.api.types.is_bool_dtype(df[c])
        ]
        g = df.groupby(["point", "name"], sort=True)[metrics]

        def long(frame, value: str):
            # metric-major rows (all groups of the first metric, then ...)
            return frame.reset_index().melt(id_vars=["point", "name"], var_name="metric", value_name=value)

        part = long(g.mean(), "mean")
        n = long(g.count(), "runs")["runs"].to_numpy(dtype=np.int64)
        half = stats.t_half_width(long(g.std(ddof=1), "std")["std"].to_numpy(), n)
        part["mean"] = part["mean"].astype(float)
        part.insert(0, "table", table)
        part["runs"] = n
        part["ci_low"] = part["mean"].to_numpy() - half
        part["ci_high"] = part["mean"].to_numpy() + half
        order = {m: k for k, m in enumerate(metrics)}
        part = part.sort_values(
            ["point", "name", "metric"], key=lambda c: c.map(order) if c.name == "metric" else c, kind="stable"
        )
        frames.append(part)
    cols = ["point", *params, "table", "name", "metric", "runs", "mean", "ci_low", "ci_high"]
    if not frames:
        return pd.DataFrame(columns=cols)
    out = pd.concat(frames, ignore_index=True)
    pts = res.points[["point", *params]]
    return out.merge(pts, on="point", how="left")[cols]


def load_results(out: str | os.PathLike, runs: str = "current") -> SweepResult:
    """The results of the sweep in directory ``out`` (what has been stored:
    a sweep still running, or interrupted, gives the runs finished so far).

    ``runs="current"`` (the default): the runs of the last definition's
    points x seeds, the sweep the directory was last run (or is being run)
    with; ``runs="all"``: every run the directory holds, also of seeds and
    points a later definition dropped.

    >>> import airtcp
    >>> r = airtcp.load_results("airtcp-out/sweep")   # doctest: +SKIP
    >>> r.flows.groupby(["per", "tcp"]).goodput_bps.mean()   # doctest: +SKIP
    """
    _check_load(runs)
    out = os.fspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise NotADirectoryError(f"{out}: not a directory: give the sweep's output directory (its --out)")
    definition = _read_json(os.path.join(out, DEFINITION))
    if definition is None:
        raise FileNotFoundError(f"{out}: no sweep here (no {DEFINITION})")
    return SweepResult(out, definition, read_store(out, STORE_TABLES), runs=runs)


def status(out: str | os.PathLike, max_rows: int = 40) -> str:
    """What ``out`` holds: the last definition, runs done, points left, and
    whether a sweep is writing it now (``airtcp sweep --status DIR``)."""
    res = load_results(out)
    dfn = res.definition
    holder = res._store.holder()
    params = dfn["parameters"]
    lines = [
        f"{res.out}: sweep of {dfn['scenario']} (airtcp {dfn['airtcp_version']})",
        "parameters: "
        + "; ".join(f"{p['name']} = {p['path']}" + (f" ({p['unit']})" if p["unit"] else "") for p in params),
        f"seeds: {_seed_list(res.seeds)}",
    ]
    current = dfn["current_points"]
    done_by_point = [
        sum(task_key(dfn["points"][i]["sha256"], s) in res._store.done for s in res.seeds) for i in current
    ]
    full = sum(d == len(res.seeds) for d in done_by_point)
    started = sum(0 < d < len(res.seeds) for d in done_by_point)
    lines.append(
        f"done: {res.finished} of {res.planned} runs; {full} of {len(current)} points complete, "
        f"{started} partly done, {len(current) - full - started} not started"
    )
    if res.outside:
        lines.append(
            f"also stored: {res.outside} runs of points or seeds outside the last definition, "
            "left out of its summary and of load_results (runs='all' loads them)"
        )
    lines.append(f"writing now: {holder}" if holder else "not being written now")
    if res._store.dropped:
        lines.append(f"{res._store.dropped} bad journal line(s) will be dropped and re-run at the next sweep")
    rows = [
        [str(i), *(_cell(dfn["points"][i]["values"][p["name"]]) for p in params), f"{d}/{len(res.seeds)}"]
        for i, d in zip(current, done_by_point)
    ]
    if len(rows) > max_rows:
        rows = [r for r in rows if not r[-1].startswith(f"{len(res.seeds)}/")][:max_rows] + [
            ["(complete points not shown)"]
        ]
    lines.append("")
    lines.append(_table(["point", *(p["name"] for p in params), "runs"], rows, left=1))
    return "\n".join(lines)
