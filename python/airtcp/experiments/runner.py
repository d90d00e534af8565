"""Run an :class:`~airtcp.experiments.base.Experiment`: every (cell, scheme,
run) on native threads (the simulator releases the GIL) or a Dask cluster,
each finished run stored once in ``OUT/cache/`` so that an interrupted
reproduction resumes where it stopped.

The runs go through the same machinery as a parameter sweep
(:mod:`airtcp.campaign`): :func:`airtcp.campaign.execute.run_batches` runs
them, a :mod:`campaign store <airtcp.campaign.store>` keeps them (Parquet
parts committed through a journal, a lock against a second writer, bad
records dropped with a warning and re-run). The store has two tables:
``runs`` (key, cell as JSON, scheme, run, seed, wall_s) and ``metrics``
(key, metric, value), one row per run and per run and metric.

A run's key is a SHA-256 of (experiment name and version, cell, scheme,
run, seed, the SHA-256 of the scenario's TOML text, airtcp's version), so a
changed parameter, scenario or metric definition never reuses a stale
record.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import time
from collections.abc import Mapping
from typing import Any

from .. import __build__
from ..api import MAX_RUNS, MAX_RUNS_WHY, Result, Scenario, ScenarioError, _arrow_table, _load_mapping, _scenario_error
from ..campaign.execute import Batch, batches_of, check_workers, parallelism, require_dask, run_batches
from ..campaign.store import Committer, Store, open_store, read_store
from . import stats
from .base import Experiment, Numbers, cell_key

STORE_DIR = "cache"
STORE_TABLES = ("runs", "metrics")
SCHEMAS = {
    "runs": {
        "key": "string",
        "cell": "string",
        "scheme": "string",
        "run": "int64",
        "seed": "uint64",
        "wall_s": "double",
    },
    "metrics": {"key": "string", "metric": "string", "value": "double"},
}


def store_path(out: str | os.PathLike) -> str:
    return os.path.join(os.fspath(out), STORE_DIR)


def load_records(store: Store) -> dict[str, dict]:
    """The stored runs: key -> {cell, scheme, run, seed, metrics, wall_s}."""
    records = {
        r["key"]: {**r, "cell": json.loads(r["cell"]), "metrics": {}} for r in store.read("runs").to_pylist()
    }
    for r in store.read("metrics").to_pylist():
        records[r["key"]]["metrics"][r["metric"]] = math.nan if r["value"] is None else r["value"]
    return records


# --------------------------------------------------------------------------
# Planning: scenario texts and run keys


@dataclasses.dataclass(frozen=True)
class Job:
    key: str
    cell_index: int
    scheme: str
    run: int
    seed: int
    text_index: int


@dataclasses.dataclass
class Plan:
    experiment: Experiment
    runs: int
    texts: list[str]  # one per (cell, scheme), validated
    text_names: list[str]
    jobs: list[Job]


def scenario_text(exp: Experiment, cell, scheme: str, params=None) -> str:
    """The validated TOML text of a (cell, scheme)."""
    return load_scenario(exp, cell, scheme, params).text


def load_scenario(exp: Experiment, cell, scheme: str, params=None) -> Scenario:
    """The loaded (validated) scenario of a (cell, scheme).

    A mistake in it is a ScenarioError naming the cell and scheme
    (``kick[{"fading":"moderate","size_kb":10}]:tcp:21: field: ...``) and
    the parameters changed from the experiment's defaults (``--set``),
    which are what made it: the user wrote no scenario file to look in.
    """
    p = exp.params if params is None else params
    sc = exp.scenario(cell, scheme, p)
    name = f"{exp.name}[{cell_key(cell)}]:{scheme}"
    try:
        if isinstance(sc, str):
            return Scenario(sc, name)
        return _load_mapping(sc, name)
    except ScenarioError as e:
        changed = _changed_params(exp.name, p)
        if not changed:
            raise
        raise _scenario_error(
            e.file, f"{e.message} (a scenario made from the parameters; set: {changed})", e.line, e.field
        ) from None


def load_extra_scenarios(exp: Experiment, params=None) -> list[Scenario]:
    """The experiment's ``extra_scenarios`` (built by its outputs after the
    runs), loaded: a mistake in one is a ScenarioError named as in
    :func:`load_scenario`."""
    if exp.extra_scenarios is None:
        return []
    p = exp.params if params is None else params
    out = []
    for what, sc in exp.extra_scenarios(p):
        name = f"{exp.name}[{what}]"
        try:
            out.append(_load_mapping(sc, name))
        except ScenarioError as e:
            changed = _changed_params(exp.name, p)
            if not changed:
                raise
            raise _scenario_error(
                e.file, f"{e.message} (a scenario made from the parameters; set: {changed})", e.line, e.field
            ) from None
    return out


def _changed_params(name: str, params: Mapping[str, Any]) -> str:
    """``a=1, b='x'``: the parameters that differ from the registered
    experiment ``name``'s defaults ("" if it is not registered)."""
    from . import get

    try:
        defaults = get(name).params
    except KeyError:
        return ""
    return ", ".join(f"{k}={v!r}" for k, v in params.items() if k not in defaults or defaults[k] != v)


def run_key(exp: Experiment, cell, scheme: str, run: int, seed: int, text: str) -> str:
    text_hash = hashlib.sha256(text.encode()).hexdigest()
    ident = [exp.name, exp.version, cell_key(cell), scheme, run, seed, text_hash, __build__]
    return hashlib.sha256(json.dumps(ident, separators=(",", ":")).encode()).hexdigest()[:32]


def check_runs(exp: Experiment, runs: int | None) -> int:
    """The runs per (cell, scheme), ``runs`` or the experiment's default,
    checked: an int, at least 1, and at most :data:`MAX_RUNS` runs in all
    (counted before anything is planned: --runs 10^9 built its plan whole)."""
    n = exp.runs if runs is None else runs
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"runs must be an int, not {type(n).__name__}")
    if n < 1:
        raise ValueError(f"runs must be at least 1, got {n}")
    combos = sum(exp.applicable(cell, sch.name) for cell in exp.cells for sch in exp.schemes)
    if n * combos > MAX_RUNS:
        raise ValueError(
            f"{exp.name}: {n:,} runs per cell and scheme x {combos} cells and schemes = {n * combos:,} runs: "
            f"{MAX_RUNS_WHY}; here at most {MAX_RUNS // combos:,} runs per cell and scheme"
        )
    return n


def plan(exp: Experiment, runs: int | None = None) -> Plan:
    """Every (cell, scheme, run) of ``exp`` with its scenario and cache key.

    Scenario texts are built and validated once per (cell, scheme); run *i*
    of every scheme in a cell uses the same seed. A (cell, scheme) the
    experiment declares not applicable is not run. The parameters are
    checked against their domains and relations first
    (:meth:`Experiment.check_params`).
    """
    exp.check_params()
    n = check_runs(exp, runs)
    load_extra_scenarios(exp)
    texts: list[str] = []
    names: list[str] = []
    jobs: list[Job] = []
    for ci, cell in enumerate(exp.cells):
        seeds = exp.cell_seeds(cell, n)
        for sch in exp.schemes:
            if not exp.applicable(cell, sch.name):
                continue
            text = scenario_text(exp, cell, sch.name)
            texts.append(text)
            names.append(f"{exp.name}[{cell_key(cell)}]:{sch.name}")
            ti = len(texts) - 1
            for r, seed in enumerate(seeds, start=1):
                jobs.append(Job(run_key(exp, cell, sch.name, r, seed, text), ci, sch.name, r, seed, ti))
    return Plan(exp, n, texts, names, jobs)


# --------------------------------------------------------------------------
# Running


def _run_metrics(d: Mapping[str, Any], metrics_fn, params, cell, scheme) -> tuple[dict, float]:
    """A run's metrics (computed where it ran: a thread or a Dask worker)
    and its wall time (building, simulating and collecting the results)."""
    m = metrics_fn(Result._from_core(d), cell, scheme, params)
    metrics = {k: (float(v) if v is not None else math.nan) for k, v in m.items()}
    return metrics, d["setup_wall_s"] + d["run_wall_s"] + d["collect_wall_s"]


@dataclasses.dataclass
class Outcome:
    """What :func:`execute` did; ``records`` holds every stored run
    (key -> {cell, scheme, run, seed, metrics, wall_s})."""

    plan: Plan
    out: str
    records: dict[str, dict]
    executed: int
    reused: int
    interrupted: bool
    wall_s: float

    @property
    def complete(self) -> bool:
        return all(j.key in self.records for j in self.plan.jobs)

    @property
    def stored(self) -> int:
        """Runs of the plan that are stored."""
        return sum(j.key in self.records for j in self.plan.jobs)


def _batches(p: Plan, todo: list[Job], parallel: int) -> list[Batch]:
    exp = p.experiment
    groups: dict[int, list[Job]] = {}
    for j in todo:
        groups.setdefault(j.text_index, []).append(j)
    out = []
    for ti, js in groups.items():
        cell = dict(exp.cells[js[0].cell_index])
        args = (exp.metrics, dict(exp.params), cell, js[0].scheme)
        for chunk in batches_of(js, parallel):
            items = tuple((j.key, j.seed) for j in chunk)
            out.append(Batch(p.texts[ti], p.text_names[ti], items, _run_metrics, args))
    return out


def _make_tables(p: Plan):
    jobs = {j.key: j for j in p.jobs}
    cells = [cell_key(c) for c in p.experiment.cells]

    def make(pending) -> dict[str, Any]:
        runs = {c: [] for c in SCHEMAS["runs"]}
        metrics = {c: [] for c in SCHEMAS["metrics"]}
        for key, (values, wall) in pending:
            j = jobs[key]
            for c, v in zip(SCHEMAS["runs"], (key, cells[j.cell_index], j.scheme, j.run, j.seed, wall)):
                runs[c].append(v)
            for name, v in values.items():
                metrics["key"].append(key)
                metrics["metric"].append(name)
                metrics["value"].append(v)
        return {"runs": _arrow_table(runs, SCHEMAS["runs"]), "metrics": _arrow_table(metrics, SCHEMAS["metrics"])}

    return make


def execute(
    exp: Experiment,
    out: str | os.PathLike,
    runs: int | None = None,
    workers: int | None = None,
    progress: bool = True,
    interrupt_after: int | None = None,
    dask: Any = None,
    store: Store | None = None,
    planned: Plan | None = None,
) -> Outcome:
    """Run whatever of ``exp`` is not yet stored in ``OUT/cache``.

    Runs go on ``workers`` threads, or on Dask (``dask``: "local", a
    scheduler address or a Client; see :func:`airtcp.sweep`). Returns an
    :class:`Outcome`; on Ctrl-C (KeyboardInterrupt) the runs are stopped,
    finished ones stay stored and ``interrupted`` is True.
    ``interrupt_after`` (tests) acts as a Ctrl-C after that many new runs.
    ``store``: the store, already open for writing (else it is opened and
    closed here); StoreBusy if another process writes it. ``planned``:
    :func:`plan` of ``exp`` and ``runs``, if the caller made it already.
    """
    t0 = time.perf_counter()
    require_dask(dask)
    check_workers(workers, dask)
    p = planned if planned is not None else plan(exp, runs)
    own = store is None
    if own:
        store = open_store(store_path(out), STORE_TABLES)
    try:
        todo = [j for j in p.jobs if j.key not in store.done]
        reused = len(p.jobs) - len(todo)
        executed = 0

        from tqdm.auto import tqdm

        bar = tqdm(
            total=len(p.jobs),
            initial=reused,
            unit="run",
            desc=f"reproduce {exp.name}",
            disable=not progress,
            smoothing=0.05,
        )
        commits = Committer(store, _make_tables(p))

        def finished(_: int, results) -> None:
            nonlocal executed
            for key, value in results:
                commits.add(key, value)
                executed += 1
                bar.update()
                if interrupt_after is not None and executed >= interrupt_after:
                    raise KeyboardInterrupt

        try:
            batches = _batches(p, todo, parallelism(workers, dask))
            interrupted = run_batches(batches, finished, workers=workers, dask=dask)
        finally:
            bar.close()
            commits.flush()
        records = load_records(store)
    finally:
        if own:
            store.close()
    return Outcome(p, os.fspath(out), records, executed, reused, interrupted, time.perf_counter() - t0)


def stored_records(out: str | os.PathLike) -> dict[str, dict]:
    """The runs stored in ``OUT/cache`` (read only, no lock)."""
    return load_records(read_store(store_path(out), STORE_TABLES))


# --------------------------------------------------------------------------
# Tables of results


def runs_frame(outcome: Outcome):
    """One row per (cell, scheme, run) of the plan: cell parameters, scheme,
    run, seed, key and every metric."""
    import pandas as pd

    exp = outcome.plan.experiment
    rows = []
    for j in outcome.plan.jobs:
        rec = outcome.records.get(j.key)
        if rec is None:
            continue
        row = {**exp.cells[j.cell_index], "scheme": j.scheme, "run": j.run, "seed": j.seed}
        row.update(rec["metrics"])
        row["wall_s"] = rec.get("wall_s", math.nan)
        row["key"] = j.key
        rows.append(row)
    return pd.DataFrame(rows)


def summarize(exp: Experiment, runs_df) -> tuple[Any, Numbers]:
    """Aggregate every metric with every statistic per (cell, scheme).

    Returns a long DataFrame (cell parameters, scheme, metric, statistic,
    ours, ci_low, ci_high (95% CI of a mean or a percentile, else NaN),
    published, ratio, runs, valid) and the :class:`Numbers` view of
    our values, which keeps every run's value (indexed by run number) for
    paired confidence intervals (:mod:`airtcp.experiments.stats`).
    """
    import numpy as np
    import pandas as pd

    param_names = list(dict.fromkeys(k for c in exp.cells for k in c))
    metric_names = [
        c for c in runs_df.columns if c not in {*param_names, "scheme", "run", "seed", "key", "wall_s"}
    ]
    rows = []
    values: dict[tuple[str, str, str, str], float] = {}
    per_run: dict[tuple[str, str, str], np.ndarray] = {}
    n_runs = int(runs_df["run"].max()) if len(runs_df) else 0
    for cell in exp.cells:
        mask = np.ones(len(runs_df), dtype=bool)
        for k, v in cell.items():
            mask &= (runs_df[k] == v).to_numpy()
        for sch in exp.schemes:
            sub = runs_df[mask & (runs_df["scheme"] == sch.name).to_numpy()]
            run_index = sub["run"].to_numpy(dtype=int) - 1
            for m in metric_names:
                x = sub[m].to_numpy(dtype=float)
                by_run = np.full(n_runs, math.nan)
                by_run[run_index] = x
                per_run[(cell_key(cell), sch.name, m)] = by_run
                for sname, fn in exp.statistics.items():
                    ours = fn(x) if len(x) else math.nan
                    # Error bars: cheap closed-form intervals only (t for a
                    # mean, order statistics for a percentile); other
                    # statistics get theirs on demand (Numbers.interval).
                    ci = stats.interval(x, fn) if stats.is_mean(fn) or stats.quantile_of(fn) is not None else None
                    k = (cell_key(cell), sch.name, m, sname)
                    values[k] = ours
                    pub = exp.published.get(k, math.nan)
                    rows.append(
                        {
                            **cell,
                            "scheme": sch.name,
                            "metric": m,
                            "statistic": sname,
                            "ours": ours,
                            "ci_low": ci.low if ci is not None else math.nan,
                            "ci_high": ci.high if ci is not None else math.nan,
                            "published": pub,
                            "ratio": ours / pub if pub and not math.isnan(pub) else math.nan,
                            "runs": len(x),
                            "valid": int(np.count_nonzero(~np.isnan(x))),
                        }
                    )
    return pd.DataFrame(rows), Numbers(values, per_run, exp.statistics)
