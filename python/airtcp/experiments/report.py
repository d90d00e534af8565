"""Print and write a reproduction: the document's tables with its numbers
beside ours, runs.csv / runs.parquet / summary.csv, plots and report.md."""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Mapping
from typing import Any

from .. import __version__
from .base import Experiment, Numbers, Table, cell_key, verdict_word


def _fmt(x: float, digits: int | None = None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if digits is None:
        digits = 3  # the precision the documents print
    return f"{x:.{digits}f}"


def _table_cells(exp: Experiment, t: Table) -> list[Mapping[str, Any]]:
    cells = [c for c in exp.cells if all(c.get(k) == v for k, v in t.where.items())]
    return sorted(cells, key=lambda c: c[t.column])


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]


def text_table(exp: Experiment, t: Table, ours: Numbers, published: Numbers) -> str:
    """One document table: for each row, our number, the document's and
    the ratio ours/theirs, one line each."""
    cells = _table_cells(exp, t)
    header = ["", ""] + [t.column_label(c[t.column]) for c in cells]
    rows: list[list[str]] = []
    for scheme, metric, stat, label in t.rows:
        o = [ours.get(c, scheme, metric, stat) for c in cells]
        p = [published.get(c, scheme, metric, stat) for c in cells]
        rows.append([label, "ours"] + [_fmt(v, t.digits) for v in o])
        if any(not math.isnan(v) for v in p):
            rows.append(["", "draft"] + [_fmt(v, t.digits) for v in p])
            rows.append(
                ["", "ratio"] + [_fmt(a / b, 2) if b and not math.isnan(b) and not math.isnan(a) else "-" for a, b in zip(o, p)]
            )
    title = t.title + (f" ({t.unit})" if t.unit else "")
    return "\n".join([title, *_grid(header, rows)])


def markdown_table(exp: Experiment, t: Table, ours: Numbers, published: Numbers) -> str:
    cells = _table_cells(exp, t)
    head = ["", ""] + [t.column_label(c[t.column]) for c in cells]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * len(cells)) + "|"]
    for scheme, metric, stat, label in t.rows:
        o = [ours.get(c, scheme, metric, stat) for c in cells]
        p = [published.get(c, scheme, metric, stat) for c in cells]
        lines.append("| " + " | ".join([f"**{label}**", "ours"] + [_fmt(v, t.digits) for v in o]) + " |")
        if any(not math.isnan(v) for v in p):
            lines.append("| " + " | ".join(["", "draft"] + [_fmt(v, t.digits) for v in p]) + " |")
            lines.append(
                "| "
                + " | ".join(
                    ["", "ratio"]
                    + [_fmt(a / b, 2) if b and not math.isnan(b) and not math.isnan(a) else "-" for a, b in zip(o, p)]
                )
                + " |"
            )
    return "\n".join([f"**{t.title}**" + (f" ({t.unit})" if t.unit else ""), "", *lines])


def all_text_tables(exp: Experiment, ours: Numbers) -> str:
    pub = exp.published_numbers()
    return "\n\n".join(text_table(exp, t, ours, pub) for t in exp.table_list() if t.in_terminal)


# What a verdict over many comparisons is worth (docs/sweeps.md, "Many
# comparisons at once"): the report says it, not only stats.py's docstring.
MULTIPLE_COMPARISONS = (
    "No correction for multiple comparisons is made: each comparison is judged at the 95% level on its own, "
    "and a claim that combines several says in its definition how many must hold. A claim judged on k "
    "comparisons has k chances of a wrong *holds* or *fails*: if every true difference sat exactly on its "
    "line and the comparisons were independent, at least one of them would come out decided with "
    "probability 1 - 0.95^k (23% for k = 5, 37% for k = 9). So read a verdict that rests on many "
    "comparisons, or on intervals that end close to their line, as weaker than a single comparison at 95%; "
    "`--runs` more runs is the remedy (the intervals narrow as 1/sqrt(runs))."
)


def check_claims(exp: Experiment, ours: Numbers) -> list[dict]:
    """Each claim checked against our numbers and against the document's."""
    pub = exp.published_numbers()
    out = []
    for c in exp.claims:
        r_ours = c.check(ours, exp.params)
        r_doc = c.check(pub, exp.params) if len(pub) else None
        out.append({"claim": c, "ours": r_ours, "document": r_doc})
    return out


def claims_text(checked: list[dict]) -> str:
    lines = ["Claims of the document, checked against our numbers:"]
    for c in checked:
        cl = c["claim"]
        lines.append(f"  ({cl.id}) {cl.text}")
        lines.append(f"      ours: {verdict_word(c['ours'].agree).upper()} - {c['ours'].detail}")
        if c["document"] is not None:
            lines.append(f"      the document's own numbers: {verdict_word(c['document'].agree)}")
    return "\n".join(lines)


def markdown_report(
    exp: Experiment,
    ours: Numbers,
    checked: list[dict],
    plots: list[str],
    meta: Mapping[str, Any],
) -> str:
    pub = exp.published_numbers()
    L: list[str] = [f"# Reproduction: {exp.title}", ""]
    L += [f"Source document: {exp.source}", ""]
    L += [
        f"Command: `{meta.get('command', 'airtcp reproduce ' + exp.name)}`; "
        f"{meta['runs']} runs per (cell, scheme), {meta['total_runs']} runs in all "
        f"({meta['executed']} simulated now, {meta['reused']} from the cache); "
        f"wall time {meta['wall_s']:.1f} s on {meta['workers']}; airtcp {__version__}; "
        f"{meta['created']}.",
        "",
    ]
    if exp.setup_text():
        L += ["## Setup", "", exp.setup_text().strip(), ""]
    L += ["## Results", ""]
    if exp.published_note:
        L += [exp.published_note.strip(), ""]
    for t in exp.table_list():
        L += [markdown_table(exp, t, ours, pub), ""]
    if plots:
        L += ["## Plots", ""]
        for p in plots:
            L += [f"![{p}]({p})", ""]
    L += ["## Claims", ""]
    L += [
        "Every scheme runs the same seeds (common random numbers: the same fades, stalls and arrivals in time, "
        "the same per-packet loss coins, which fall on different packets once the schemes send differently), "
        "so a comparison is judged on the paired "
        "per-run values: a difference of means by the paired t interval, any other statistic by the paired "
        "bootstrap; intervals are 95% two-sided, shown as `estimate [low, high]`. A comparison holds when its "
        "whole interval is on the claimed side (a one-sided test at 97.5%), fails when the whole interval is on "
        "the other side, and is *undecided* when the interval straddles the line or there is none (too few "
        "runs, a mean over an unfinished run). The document's own numbers have no runs, so "
        "they are checked by their point values.",
        "",
        MULTIPLE_COMPARISONS,
        "",
    ]
    for c in checked:
        cl = c["claim"]
        L += [f"**({cl.id}) {cl.text}**", ""]
        when = f"revised with results known: {cl.revised}" if cl.revised else "fixed before looking at results"
        L += [f"*Definition ({when}):* {exp.claim_definition(cl)}", ""]
        L += [f"*Our model {verdict_word(c['ours'].agree)}.* {c['ours'].detail}", ""]
        if c["document"] is not None:
            L += [f"*The document's own numbers {verdict_word(c['document'].agree)} with this definition.* {c['document'].detail}", ""]
    L += ["## Parameter choices the document left open", ""]
    L += ["| parameter | our value | why |", "|---|---|---|"]
    for ch in exp.choice_list():
        L.append(f"| {ch.name} | {ch.value} | {ch.why} |")
    L += [""]
    L += parameters_markdown(exp)
    caveats = exp.caveat_list()
    if caveats:
        L += ["## Where the model differs from the document's simulator", ""]
        for c in caveats:
            L += [f"* {c.strip()}"]
        L += [""]
    L += [
        "## Files",
        "",
        "* `runs.csv`, `runs.parquet`: every run (cell parameters, scheme, run, seed, metrics).",
        "* `summary.csv`: every statistic of every metric per (cell, scheme), its 95% CI (means and percentiles), "
        "the document's number and the ratio.",
        "* `cache/`: every finished run, stored once (Parquet parts and a journal; delete it to start afresh).",
        "",
    ]
    return "\n".join(L)


def parameters_markdown(exp: Experiment, heading: str = "Experiment parameters") -> list[str]:
    """The parameters' table of a report: each parameter's value and what
    it may be (its domain), then the rules that tie some together."""
    L = [f"{heading} (change with `--set NAME=VALUE`):", ""]
    L += ["| name | value | allowed |", "|---|---|---|"]
    for k, v in exp.params.items():
        d = exp.domains.get(k)
        L.append(f"| `{k}` | `{v!r}` | {d.describe() if d is not None else ''} |")
    L += [""]
    if exp.relations:
        L += ["Together:", ""]
        L += [f"* {r.text}" for r in exp.relations]
        L += [""]
    return L


def write_run_tables(out: str, runs_df, summary_df) -> dict:
    """Write runs.csv, runs.parquet and summary.csv into ``out``; return {what: file name}."""
    os.makedirs(out, exist_ok=True)
    runs_df.to_csv(os.path.join(out, "runs.csv"), index=False)
    runs_df.to_parquet(os.path.join(out, "runs.parquet"), index=False)
    summary_df.to_csv(os.path.join(out, "summary.csv"), index=False)
    return {"runs": "runs.csv", "runs_parquet": "runs.parquet", "summary": "summary.csv"}


def write_outputs(exp: Experiment, outcome, runs_df, summary_df, ours: Numbers, meta: Mapping[str, Any]) -> dict:
    """Write runs.csv/.parquet, summary.csv, tables.txt, plots and report.md
    into the outcome's directory; return {what: file name}."""
    out = outcome.out
    files = write_run_tables(out, runs_df, summary_df)
    checked = check_claims(exp, ours)
    text = all_text_tables(exp, ours) + "\n\n" + claims_text(checked) + "\n"
    with open(os.path.join(out, "tables.txt"), "w") as f:
        f.write(text)
    files["tables"] = "tables.txt"
    plots: list[str] = []
    if exp.plots is not None:
        import matplotlib

        matplotlib.use("Agg")
        plots = list(exp.plots(summary_df, runs_df, exp.published_numbers(), out, exp, exp.params))
    files["plots"] = plots
    meta = {**meta, "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(markdown_report(exp, ours, checked, plots, meta))
    files["report"] = "report.md"
    return files


__all__ = [
    "text_table",
    "markdown_table",
    "all_text_tables",
    "check_claims",
    "claims_text",
    "markdown_report",
    "parameters_markdown",
    "write_outputs",
    "write_run_tables",
    "cell_key",
]
