"""``reproduce``: run an experiment (cached, resumable), then compare with
the document and write every output."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from .base import Experiment, Numbers
from .report import all_text_tables, check_claims, claims_text, write_outputs
from ..campaign.execute import check_workers, describe, require_dask
from ..campaign.store import open_store
from .runner import STORE_TABLES, Outcome, execute, plan, runs_frame, store_path, summarize


@dataclasses.dataclass
class Reproduction:
    """The outcome of :func:`reproduce`.

    ``runs`` (one row per run) and ``summary`` (long: statistic per cell,
    scheme and metric, with the document's number and the ratio) are
    DataFrames; ``numbers`` is the :class:`Numbers` view of ours. On
    interruption only ``outcome`` is set and ``interrupted`` is True.
    """

    experiment: Experiment
    outcome: Outcome
    out: str
    runs: Any = None
    summary: Any = None
    numbers: Numbers | None = None
    files: dict | None = None

    @property
    def interrupted(self) -> bool:
        return self.outcome.interrupted

    def tables_text(self) -> str:
        if self.files and "text" in self.files:
            return self.files["text"]
        return all_text_tables(self.experiment, self.numbers)

    def claims_text(self) -> str:
        if not self.experiment.claims:
            return ""
        return claims_text(check_claims(self.experiment, self.numbers))


def default_out(name: str) -> str:
    return os.path.join("airtcp-out", name)


def reproduce(
    experiment: Experiment | str,
    runs: int | None = None,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    progress: bool = True,
    write: bool = True,
    interrupt_after: int | None = None,
    command: str | None = None,
    dask: Any = None,
) -> Reproduction:
    """Run ``experiment`` (an Experiment or a name) with ``runs`` runs per
    (cell, scheme) (default: the document's), reusing and extending the run
    cache in ``out`` (default ``airtcp-out/NAME``), then aggregate and, with
    ``write``, write runs.csv, runs.parquet, summary.csv, tables.txt, plots and
    report.md into ``out``. Runs go on ``workers`` threads or on Dask
    (``dask``: "local", a scheduler address or a Client). ``out`` is locked
    while this runs: a second reproduction into it waits a few seconds and
    then raises :class:`airtcp.campaign.store.StoreBusy`.

    >>> from airtcp.experiments import reproduce
    >>> r = reproduce("kick", runs=5)          # doctest: +SKIP
    >>> print(r.tables_text())                 # doctest: +SKIP
    """
    if isinstance(experiment, str):
        from . import get

        experiment = get(experiment)
    exp = experiment
    out = os.fspath(out) if out is not None else default_out(exp.name)
    require_dask(dask)
    check_workers(workers, dask)
    # Every scenario is built (and so checked) before the store's directory
    # is made: a --set that makes a wrong scenario leaves nothing behind.
    planned = plan(exp, runs)
    with open_store(store_path(out), STORE_TABLES) as store:
        outcome = execute(
            exp, out, runs=runs, workers=workers, progress=progress, interrupt_after=interrupt_after,
            dask=dask, store=store, planned=planned,
        )
        # The report describes the runs it has (``--runs``), not the default.
        exp = dataclasses.replace(exp, runs=outcome.plan.runs)
        rep = Reproduction(exp, outcome, out)
        if outcome.interrupted:
            return rep
        rep.runs = runs_frame(outcome)
        rep.summary, rep.numbers = summarize(exp, rep.runs)
        if write:
            meta = {
                "command": command or f"airtcp reproduce {exp.name} --runs {outcome.plan.runs}",
                "runs": outcome.plan.runs,
                "total_runs": len(outcome.plan.jobs),
                "executed": outcome.executed,
                "reused": outcome.reused,
                "wall_s": outcome.wall_s,
                "workers": describe(dask, workers),
            }
            write = exp.write if exp.write is not None else write_outputs
            rep.files = write(exp, outcome, rep.runs, rep.summary, rep.numbers, meta)
    return rep
