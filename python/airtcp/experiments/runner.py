"""Run an :class:`~airtcp.experiments.base.Experiment`: every (cell, scheme,
run) on native threads (the simulator releases the GIL), each finished run
cached on disk so that an interrupted reproduction resumes where it stopped.

The cache is an append-only JSON-lines file, ``OUT/cache.jsonl``, one
record per finished run::

    {"key": "...", "cell": {...}, "scheme": "kick", "run": 3, "seed": 3,
     "metrics": {"response_s": 1.23, ...}, "wall_s": 0.0004}

A record's key is a SHA-256 of (experiment name and version, cell, scheme,
run, seed, the SHA-256 of the scenario's TOML text, airtcp's version), so a
changed parameter, scenario or metric definition never reuses a stale
record. Each record is written with one ``write()`` on a file opened with
O_APPEND; on loading, records are de-duplicated by key (first wins) and a
truncated last line (a kill in the middle of a write) is cut off.
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

from .. import __version__, _core
from ..api import Result, Scenario, load
from . import stats
from .base import Experiment, Numbers, cell_key

CACHE_FILE = "cache.jsonl"


# --------------------------------------------------------------------------
# The cache


class RunCache:
    """Append-only JSON-lines store of finished runs, keyed by ``key``."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.records: dict[str, dict] = {}
        self.duplicates = 0
        self.corrupt = 0
        self._fd: int | None = None
        self._last_sync = 0.0

    def load(self) -> dict[str, dict]:
        """Read every complete record; cut off a truncated last line."""
        self.records = {}
        if not os.path.exists(self.path):
            return self.records
        with open(self.path, "rb") as f:
            data = f.read()
        end = data.rfind(b"\n") + 1  # 0 if there is no complete line
        if end < len(data):
            # A write was cut short: drop the partial line so that the
            # next record starts on a line of its own.
            with open(self.path, "r+b") as f:
                f.truncate(end)
            self.corrupt += 1
        for line in data[:end].split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                key = rec["key"]
            except (ValueError, KeyError, TypeError):
                self.corrupt += 1
                continue
            if key in self.records:
                self.duplicates += 1
                continue
            self.records[key] = rec
        return self.records

    def append(self, record: Mapping[str, Any]) -> None:
        if record["key"] in self.records:
            self.duplicates += 1
            return
        if self._fd is None:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        os.write(self._fd, line)  # one write: a record is on disk whole or cut at the end
        self.records[record["key"]] = dict(record)
        now = time.monotonic()
        if now - self._last_sync > 1.0:
            os.fsync(self._fd)
            self._last_sync = now

    def close(self) -> None:
        if self._fd is not None:
            try:
                os.fsync(self._fd)
            finally:
                os.close(self._fd)
                self._fd = None


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
    texts: list[str]  # one per (cell, scheme)
    text_names: list[str]
    scenarios: list[Scenario]  # loaded texts, one per (cell, scheme)
    jobs: list[Job]


def scenario_text(exp: Experiment, cell, scheme: str, params=None) -> str:
    """The validated TOML text of a (cell, scheme)."""
    return load_scenario(exp, cell, scheme, params).text


def load_scenario(exp: Experiment, cell, scheme: str, params=None) -> Scenario:
    """The loaded (validated) scenario of a (cell, scheme)."""
    p = exp.params if params is None else params
    sc = exp.scenario(cell, scheme, p)
    if isinstance(sc, str):
        return Scenario(sc, f"{exp.name}:{scheme}")
    return load(sc)


def run_key(exp: Experiment, cell, scheme: str, run: int, seed: int, text: str) -> str:
    text_hash = hashlib.sha256(text.encode()).hexdigest()
    ident = [exp.name, exp.version, cell_key(cell), scheme, run, seed, text_hash, __version__]
    return hashlib.sha256(json.dumps(ident, separators=(",", ":")).encode()).hexdigest()[:32]


def plan(exp: Experiment, runs: int | None = None) -> Plan:
    """Every (cell, scheme, run) of ``exp`` with its scenario and cache key.

    Scenario texts are built and validated once per (cell, scheme); run *i*
    of every scheme in a cell uses the same seed.
    """
    n = exp.runs if runs is None else runs
    if n < 1:
        raise ValueError(f"runs must be at least 1, got {n}")
    texts: list[str] = []
    names: list[str] = []
    scenarios: list[Scenario] = []
    jobs: list[Job] = []
    for ci, cell in enumerate(exp.cells):
        seeds = exp.cell_seeds(cell, n)
        for sch in exp.schemes:
            sc = load_scenario(exp, cell, sch.name)
            text = sc.text
            scenarios.append(sc)
            texts.append(text)
            names.append(f"{exp.name}[{cell_key(cell)}]:{sch.name}")
            ti = len(texts) - 1
            for r, seed in enumerate(seeds, start=1):
                jobs.append(Job(run_key(exp, cell, sch.name, r, seed, text), ci, sch.name, r, seed, ti))
    return Plan(exp, n, texts, names, scenarios, jobs)


# --------------------------------------------------------------------------
# Running


def _run_batch(task, check=None) -> list[tuple[str, dict, float]]:
    """Run a batch of seeds of one (cell, scheme); return (key, metrics, wall_s).
    ``check`` is the simulations' progress callback (cancellation)."""
    metrics_fn, params, cell, scheme, sc, items = task
    out = []
    for key, seed in items:
        t0 = time.perf_counter()
        res = Result._from_core(_core.run(sc._core, seed, check))
        m = metrics_fn(res, cell, scheme, params)
        metrics = {k: (float(v) if v is not None else math.nan) for k, v in m.items()}
        out.append((key, metrics, time.perf_counter() - t0))
    return out


@dataclasses.dataclass
class Outcome:
    """What :func:`execute` did."""

    plan: Plan
    cache: RunCache
    executed: int
    reused: int
    interrupted: bool
    wall_s: float

    @property
    def complete(self) -> bool:
        return all(j.key in self.cache.records for j in self.plan.jobs)


def _batches(p: Plan, todo: list[Job], workers: int) -> list[tuple]:
    exp = p.experiment
    size = max(1, min(25, len(todo) // (workers * 8) or 1))
    groups: dict[int, list[Job]] = {}
    for j in todo:
        groups.setdefault(j.text_index, []).append(j)
    tasks = []
    for ti, js in groups.items():
        cell = exp.cells[js[0].cell_index]
        for i in range(0, len(js), size):
            chunk = js[i : i + size]
            items = [(j.key, j.seed) for j in chunk]
            tasks.append((exp.metrics, dict(exp.params), dict(cell), js[0].scheme, p.scenarios[ti], items))
    return tasks


def execute(
    exp: Experiment,
    out: str | os.PathLike,
    runs: int | None = None,
    workers: int | None = None,
    progress: bool = True,
    interrupt_after: int | None = None,
) -> Outcome:
    """Run whatever of ``exp`` is not yet in ``OUT/cache.jsonl``.

    Returns an :class:`Outcome`; on Ctrl-C (KeyboardInterrupt) the threads
    are stopped, finished runs stay cached and ``interrupted`` is True.
    ``interrupt_after`` (tests) acts as a Ctrl-C after that many new runs.
    """
    t0 = time.perf_counter()
    p = plan(exp, runs)
    cache = RunCache(os.path.join(os.fspath(out), CACHE_FILE))
    cache.load()
    jobs_by_key = {j.key: j for j in p.jobs}
    todo = [j for j in p.jobs if j.key not in cache.records]
    reused = len(p.jobs) - len(todo)
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, min(workers, len(todo) or 1))
    executed = 0
    interrupted = False

    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(p.jobs),
        initial=reused,
        unit="run",
        desc=f"reproduce {exp.name}",
        disable=not progress,
        smoothing=0.05,
    )

    def record(key: str, metrics: dict, wall: float) -> None:
        nonlocal executed
        j = jobs_by_key[key]
        cache.append(
            {
                "key": key,
                "cell": dict(exp.cells[j.cell_index]),
                "scheme": j.scheme,
                "run": j.run,
                "seed": j.seed,
                "metrics": metrics,
                "wall_s": round(wall, 6),
            }
        )
        executed += 1
        bar.update()
        if interrupt_after is not None and executed >= interrupt_after:
            raise KeyboardInterrupt

    try:
        tasks = _batches(p, todo, workers)
        if not tasks:
            pass
        elif workers == 1:
            try:
                for task in tasks:
                    for key, metrics, wall in _run_batch(task):
                        record(key, metrics, wall)
            except KeyboardInterrupt:
                interrupted = True
        else:
            from .._threads import run_in_threads

            def finished(_: int, results) -> None:
                for key, metrics, wall in results:
                    record(key, metrics, wall)

            interrupted = run_in_threads(tasks, _run_batch, workers, finished)
    finally:
        bar.close()
        cache.close()
    return Outcome(p, cache, executed, reused, interrupted, time.perf_counter() - t0)


# --------------------------------------------------------------------------
# Tables of results


def runs_frame(outcome: Outcome):
    """One row per (cell, scheme, run) of the plan: cell parameters, scheme,
    run, seed, key and every metric."""
    import pandas as pd

    exp = outcome.plan.experiment
    rows = []
    for j in outcome.plan.jobs:
        rec = outcome.cache.records.get(j.key)
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
