"""Issue 15: parameter sweeps (airtcp sweep, airtcp.sweep, load_results):
validation before any run, typed columns, common random numbers, a store
that keeps every point x seed exactly once through Ctrl-C and kill -9,
summaries with the t interval of experiments/stats.py."""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import airtcp
from airtcp.campaign import paths
from airtcp.campaign.store import JOURNAL, LOCK, StoreBusy, StoreError, StoreWarning, open_store
from airtcp.campaign.sweep import STORE_TABLES, define
from airtcp.experiments import base, stats
from conftest import EXAMPLES, REPO, doc_blocks, run_cli

BASE = """\
[simulation]
duration = "{duration}"
seed = 1

[[link]]
a = "S"
b = "BS"
rate = "10Mbps"
delay = "20ms"

[[link]]
a = "BS"
b = "M"
rate = "2Mbps"
delay = "5ms"
a_to_b = {{ error = {{ kind = "bernoulli", per = 0.01, applies_to = "data" }} }}

[[flow]]
from = "S"
to = "M"
tcp = {{ variant = "newreno" }}
app = {{ kind = "bulk" }}
"""

SWEEP = """
[sweep]
runs = {runs}

[sweep.parameters]
per = {{ path = 'link["BS->M"].a_to_b.error.per', values = [0.01, 0.05] }}
tcp = {{ path = "flow[*].tcp.variant", values = ["reno", "sack"] }}
"""


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def sweep_file(tmp_path, runs=3, duration="5s"):
    return write(tmp_path, BASE.format(duration=duration) + SWEEP.format(runs=runs))


def counts(res):
    """How many times each (point, seed) is stored, from the runs table."""
    return res.runs.groupby(["point", "seed"]).size()


def same_results(a, b):
    """Every stored table of two sweeps holds the same rows, value for value
    (floats exactly, NaN equal to NaN), in the same order, with the same
    types; only the wall-clock columns may differ."""
    for t in STORE_TABLES:
        x, y = (r.tables[t].to_pandas() for r in (a, b))
        wall = [c for c in x.columns if c.endswith("wall_s")]
        assert len(x) == len(y) and x.drop(columns=wall).equals(y.drop(columns=wall)), t


def test_every_point_and_seed_once_with_typed_columns_and_common_seeds(tmp_path):
    path = sweep_file(tmp_path)
    res = airtcp.sweep(path, out=tmp_path / "out", workers=2, progress=False)
    assert res.complete and (res.planned, res.executed, res.reused) == (12, 12, 0)
    flows = res.flows
    assert len(flows) == 12 and len(res.runs) == 12 and len(res.links) == 12 * 4
    assert (counts(res) == 1).all() and len(counts(res)) == 12
    # The point's parameters as typed columns, before the results.
    assert list(flows.columns[:4]) == ["point", "per", "tcp", "seed"]
    assert str(flows.per.dtype) == "float64" and flows.seed.dtype == np.uint64
    assert {(r.per, r.tcp) for r in flows.itertuples()} == {
        (0.01, "reno"),
        (0.01, "sack"),
        (0.05, "reno"),
        (0.05, "sack"),
    }
    assert set(flows.variant[flows.tcp == "sack"]) == {"sack"}  # the value reached the scenario
    # Ordered by point then seed; the first parameter varies slowest.
    assert list(flows.point) == sorted(flows.point) and list(flows.seed[:3]) == [1, 2, 3]
    # Common random numbers by construction: point p, seed s is exactly the
    # point's scenario run with seed s.
    doc = airtcp.load(path)
    for point, per, tcp in [(1, 0.01, "sack"), (2, 0.05, "reno")]:
        scenario = BASE.format(duration="5s").replace("per = 0.01", f"per = {per}").replace('"newreno"', f'"{tcp}"')
        alone = airtcp.run_many(airtcp.load({**_toml(scenario)}), [1, 2, 3], workers=1, progress=False)
        got = res.flows[res.flows.point == point].drop(columns=["point", "per", "tcp"]).reset_index(drop=True)
        assert got.equals(alone.flows), (point, got, alone.flows)
    assert doc.has_sweep and "per" in (tmp_path / "out" / "summary.csv").read_text()
    # docs/sweeps.md: a table no run has a row in (no [series] here) has
    # no directory, and load_results gives it empty with its columns.
    assert not (tmp_path / "out" / "series").exists() and (tmp_path / "out" / "flows").is_dir()
    series = airtcp.load_results(tmp_path / "out").series
    assert len(series) == 0 and list(series.columns[:5]) == ["point", "per", "tcp", "seed", "time_s"]


def _toml(text):
    import tomllib

    return tomllib.loads(text)


def test_summary_is_the_t_interval_of_experiments_stats(tmp_path):
    res = airtcp.sweep(sweep_file(tmp_path, runs=4), out=tmp_path / "o", workers=2, progress=False)
    s = res.summary
    row = s[(s.point == 3) & (s.metric == "goodput_bps") & (s.table == "flows")].iloc[0]
    x = res.flows[res.flows.point == 3].goodput_bps.to_numpy()
    iv = stats.interval(x, base.mean)
    assert (row.per, row.tcp, row["name"], row.runs) == (0.05, "sack", "flow0", 4)
    assert row["mean"] == pytest.approx(iv.estimate, rel=1e-12)
    assert (row.ci_low, row.ci_high) == (pytest.approx(iv.low, rel=1e-12), pytest.approx(iv.high, rel=1e-12))
    assert row.ci_low < row["mean"] < row.ci_high
    # Every link direction, and the text table a terminal shows.
    assert set(s[s.table == "links"]["name"]) == {"S->BS", "BS->S", "BS->M", "M->BS"}
    text = res.summary_text()
    assert "goodput Mb/s [95% CI]" in text and f"[{row.ci_low / 1e6:.3f}, {row.ci_high / 1e6:.3f}]" in text


def test_extending_a_sweep_runs_only_what_is_new(tmp_path):
    path = sweep_file(tmp_path, runs=2)
    out = tmp_path / "out"
    first = airtcp.sweep(path, out=out, workers=1, progress=False)
    assert (first.executed, first.reused) == (8, 0)
    # Two more seeds: only those run.
    more = airtcp.sweep(path, runs=4, out=out, workers=1, progress=False)
    assert (more.executed, more.reused) == (8, 8)
    # A new value: only its points run; old points keep their index.
    params = {
        "per": {"path": 'link["BS->M"].a_to_b.error.per', "values": [0.01, 0.05, 0.1]},
        "tcp": ("flow[*].tcp.variant", ["reno", "sack"]),
    }
    grown = airtcp.sweep(path, params, runs=4, out=out, workers=2, progress=False)
    assert (grown.executed, grown.reused) == (8, 16)
    pts = grown.points
    assert list(pts.point) == [0, 1, 2, 3, 4, 5] and list(pts.runs) == [4] * 6
    assert (pts.per[pts.point == 4].item(), pts.tcp[pts.point == 4].item()) == (0.1, "reno")
    assert (counts(airtcp.load_results(out)) == 1).all()
    # A different base scenario is another sweep: refused, nothing run.
    other = write(tmp_path, BASE.format(duration="6s") + SWEEP.format(runs=2), "other.toml")
    with pytest.raises(StoreError, match="holds another sweep: its base scenario differs"):
        airtcp.sweep(other, out=out, progress=False)
    r = run_cli("sweep", other, "--out", out, "-q")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "choose another output directory" in r.stderr


def table_runs(stdout):
    """The runs column of the summary table a sweep prints."""
    lines = stdout.splitlines()
    header = lines[lines.index("means over seeds") + 1].split()
    rows = lines[lines.index("means over seeds") + 3 :]
    return [r.split()[header.index("runs")] for r in rows[: rows.index("")]]


def goodput_runs(res):
    """The runs counted in the summary's goodput rows (other metrics count
    the runs with a value: an RTT may have none)."""
    return set(res.summary.query("metric == 'goodput_bps'").runs)


def test_results_and_summary_cover_the_last_definition_only(tmp_path):
    """docs/sweeps.md: runs/seeds (--runs, --seed) replace the file's
    seeds and fewer values drop points. The summary a sweep prints and
    writes, and what load_results returns, cover exactly the points x seeds
    of the last definition, as in a fresh directory; the other stored runs
    stay stored (extending again is free), counted in the footer and
    --status, and load with runs="all". (They were pooled: runs = 5 per
    point after runs = 2, runs = 3, then seeds 100 and 101.)"""
    path = sweep_file(tmp_path, runs=2)
    out = tmp_path / "out"
    airtcp.sweep(path, out=out, workers=2, progress=False)
    airtcp.sweep(path, runs=3, out=out, workers=2, progress=False)
    res = airtcp.sweep(path, seeds=[100, 101], out=out, workers=2, progress=False)
    fresh = airtcp.sweep(path, seeds=[100, 101], out=tmp_path / "fresh", workers=2, progress=False)
    assert (res.executed, res.reused) == (8, 0)
    for r in (res, airtcp.load_results(out)):
        same_results(r, fresh)
        assert r.points.equals(fresh.points) and r.summary.equals(fresh.summary)
        assert goodput_runs(r) == {2}
        assert repr(r) == (
            f"<airtcp.SweepResult {str(out)!r}: 4 points x 2 seeds, 8 of 8 runs stored; "
            "12 stored runs outside them left out (runs='all' loads them)>"
        )
        assert r.outside == 12 and r.seeds == [100, 101] and r.loaded_runs == "current"
    assert (out / "summary.csv").read_text() == (tmp_path / "fresh" / "summary.csv").read_text()
    # Every stored run, explicitly.
    every = airtcp.load_results(out, runs="all")
    assert every.outside == 12 and every.loaded_runs == "all" and "all 20 stored runs loaded" in repr(every)
    for t in ("flows", "links", "runs"):  # (a bulk flow has no transfers, no agents, no series)
        assert set(every.tables[t].column("seed").to_pylist()) == {1, 2, 3, 100, 101}, t
    assert len(every.runs) == 20 and (counts(every) == 1).all()
    assert list(every.points.runs) == [5] * 4 and goodput_runs(every) == {5}
    # Extending to stored seeds again runs nothing.
    again = airtcp.sweep(path, runs=3, out=out, workers=2, progress=False)
    assert (again.executed, again.reused, again.outside) == (0, 12, 8)
    assert set(again.flows.seed) == {1, 2, 3} and goodput_runs(again) == {3}

    # The CLI: the table, summary.csv, the footer and --status.
    r = run_cli("sweep", path, "--out", out, "--runs", "2", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert table_runs(r.stdout) == ["2"] * 4
    assert f"8 runs (0 simulated on 2 threads, 8 already in {out})" in r.stdout
    assert (
        f"{out} also holds 12 runs of other points or seeds, left out of this summary: "
        f"load them with airtcp.load_results({str(out)!r}, runs='all')"
    ) in r.stdout
    import pandas as pd

    assert set(pd.read_csv(out / "summary.csv").query("metric == 'goodput_bps'").runs) == {2}
    st = run_cli("sweep", "--status", out)
    assert (
        "also stored: 12 runs of points or seeds outside the last definition, "
        "left out of its summary and of load_results (runs='all' loads them)"
    ) in st.stdout
    # A value cut: its points are left out; --runs 10 then --runs 2 likewise.
    r = run_cli("sweep", path, "--out", out, "--runs", "10", "--workers", "2", "-q")
    assert r.returncode == 0, r.stderr
    per = {"per": ('link["BS->M"].a_to_b.error.per', [0.01]), "tcp": ("flow[*].tcp.variant", ["reno", "sack"])}
    cut = airtcp.sweep(path, per, runs=2, out=out, workers=2, progress=False)
    assert (cut.executed, cut.outside) == (0, 48 - 4)
    for r in (cut, airtcp.load_results(out)):
        assert list(r.points.point) == [0, 1] and set(r.points.per) == {0.01}
        assert set(r.flows.point) == set(r.summary.point) == {0, 1} and set(r.flows.seed) == {1, 2}
        assert len(r.runs) == 4 and goodput_runs(r) == {2}
    assert set(pd.read_csv(out / "summary.csv").point) == {0, 1}
    with pytest.raises(ValueError, match=r"^runs: expected 'current' \(.*\) or 'all' \(.*\), got 3$"):
        airtcp.load_results(out, runs=3)


def test_load_results_while_a_sweep_runs_sees_its_definition_so_far(tmp_path, monkeypatch):
    """load_results works while a sweep writes the directory (docs: it sees
    the runs committed so far), and then too it covers the running
    sweep's points x seeds only."""
    from airtcp.campaign import sweep as sweep_module

    path = sweep_file(tmp_path, runs=3)
    out = tmp_path / "out"
    airtcp.sweep(path, out=out, workers=1, progress=False)  # seeds 1, 2, 3
    seen = []
    flush = sweep_module.Committer.flush

    def flush_and_look(self):
        flush(self)
        r = airtcp.load_results(out)
        assert r._store.holder() is not None  # the sweep is writing
        seen.append((r.finished, len(r.runs), set(r.flows.seed), goodput_runs(r), getattr(r, "outside", None)))

    monkeypatch.setattr(sweep_module, "COMMIT_EVERY_S", 0.0)  # a commit a run
    monkeypatch.setattr(sweep_module.Committer, "flush", flush_and_look)
    airtcp.sweep(path, seeds=[3, 4], out=out, workers=1, progress=False)
    assert [f for f, *_ in seen][:4] == [5, 6, 7, 8]
    for finished, runs, seeds, summary_runs, _ in seen:
        assert runs == finished and seeds <= {3, 4} and summary_runs <= {1, 2}
    assert {outside for *_, outside in seen} == {8}


def test_a_sweep_written_by_other_simulator_code_is_refused(tmp_path, monkeypatch):
    """Rows of two simulator builds never mix in one store: the build
    identity (version + digest of the Rust sources) is recorded and
    compared, so a resume after a code change without a version bump is
    refused rather than silently combining results of different code."""
    from airtcp.campaign import sweep as sweep_module

    assert re.fullmatch(re.escape(airtcp.__version__) + r"\+src\.[0-9a-f]{16}", airtcp.__build__)
    path = sweep_file(tmp_path, runs=1)
    out = tmp_path / "out"
    airtcp.sweep(path, out=out, progress=False)
    assert json.loads((out / "sweep.json").read_text())["airtcp_build"] == airtcp.__build__
    monkeypatch.setattr(sweep_module, "__build__", airtcp.__version__ + "+src.0000000000000000")
    with pytest.raises(StoreError, match=re.escape(f"it was written by airtcp {airtcp.__build__}, this is")):
        airtcp.sweep(path, runs=2, out=out, progress=False)


def test_two_sweeps_into_one_directory_are_refused(tmp_path):
    path = sweep_file(tmp_path, runs=1)
    out = tmp_path / "out"
    airtcp.sweep(path, out=out, progress=False)
    with open_store(out, STORE_TABLES):  # another process writing it
        with pytest.raises(StoreBusy, match="being written by another process"):
            airtcp.sweep(path, runs=2, out=out, progress=False)
        r = run_cli("sweep", path, "--out", out, "--runs", "2")
        assert r.returncode == 1 and "being written by another process (pid" in r.stderr
        assert r.stderr.count("\n") == 1
        st = run_cli("sweep", "--status", out)
        assert st.returncode == 0 and "writing now: pid" in st.stdout
    assert airtcp.sweep(path, runs=2, out=out, progress=False).complete  # the lock went with the writer


def test_dask_is_not_imported_by_airtcp_run_nor_by_a_sweep_on_threads(tmp_path):
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "airtcp", "run", "examples/dumbbell.toml"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    imported = {m.group(1).strip() for m in re.finditer(r"\|\s*([\w.]+)\s*$", p.stderr, re.M)}
    assert p.returncode == 0 and "airtcp.cli" in imported
    assert not {m for m in imported if m.split(".")[0] in ("dask", "distributed") or m.startswith("airtcp.campaign")}
    code = f"import sys, airtcp; airtcp.sweep({str(sweep_file(tmp_path, 1))!r}, out={str(tmp_path / 'o')!r}, progress=False); "
    code += "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "[]", p.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_then_kill_9_then_resume_stores_each_point_and_seed_once(tmp_path):
    # 4 points x 8 seeds of 8 flows on a 50 Mb/s path, about 0.3 s a run on
    # a quiet machine: about 10 s on one thread, with a commit about every
    # second, so each interruption below lands mid-sweep (with 30 s runs,
    # 0.04 s each, the resumed sweep finished before its kill arrived).
    fast = BASE.format(duration="200s").replace('"2Mbps"', '"50Mbps"').replace('"10Mbps"', '"100Mbps"')
    sweep_table = SWEEP.format(runs=8).replace("[0.01, 0.05]", "[0.0001, 0.001]")
    path = write(tmp_path, fast.replace("[[flow]]\n", "[[flow]]\ncount = 8\n") + sweep_table)
    out = tmp_path / "out"
    journal = out / JOURNAL

    def start():
        return subprocess.Popen(
            [sys.executable, "-m", "airtcp", "sweep", str(path), "--out", str(out), "--workers", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def wait_for_commits(p, lines):
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= lines:
                return
            time.sleep(0.02)
        pytest.fail(f"no commit: {p.poll()} {p.stderr.read() if p.poll() is not None else ''}")

    # Ctrl-C: finished runs are kept, the resume hint is printed.
    p = start()
    wait_for_commits(p, 1)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert f"Run the same command again to resume: airtcp sweep {path} --out {out} --workers 1" in err
    after_ctrl_c = airtcp.load_results(out)
    assert 0 < after_ctrl_c.finished < 32 and (counts(after_ctrl_c) == 1).all()
    assert not (out / LOCK).exists()  # removed by the writer on its way out

    # kill -9 in the middle of the resumed sweep.
    p = start()
    wait_for_commits(p, journal.read_bytes().count(b"\n") + 1)
    os.killpg(p.pid, signal.SIGKILL)
    p.communicate(timeout=60)
    killed = airtcp.load_results(out)
    assert after_ctrl_c.finished < killed.finished < 32 and (counts(killed) == 1).all()
    assert (out / LOCK).exists()  # left by the killed writer, holding nothing:
    st = run_cli("sweep", "--status", out)
    assert f"done: {killed.finished} of 32 runs" in st.stdout and "not being written now" in st.stdout

    # Resume: only the missing runs are simulated, each stored once, and the
    # tables are those of an uninterrupted sweep, bit for bit.
    r = run_cli("sweep", path, "--out", out, "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert f"32 runs ({32 - killed.finished} simulated on 2 threads, {killed.finished} already in" in r.stdout
    done = airtcp.load_results(out)
    assert done.complete and len(counts(done)) == 32 and (counts(done) == 1).all()
    assert not (out / LOCK).exists()
    same_results(done, airtcp.sweep(path, out=tmp_path / "whole", workers=2, progress=False))


def test_bad_records_are_dropped_with_a_warning_and_run_again(tmp_path):
    path = sweep_file(tmp_path, runs=2)
    out = tmp_path / "out"
    res = airtcp.sweep(path, out=out, workers=1, progress=False)
    assert len(res._store.parts) == 1
    true_goodput = res.flows.goodput_bps.copy()
    # A journal line whose flows file lost rows (another tool, a full disk).
    line = json.loads((out / JOURNAL).read_text())
    line["rows"]["flows"] += 1
    (out / JOURNAL).write_text(json.dumps(line) + "\n")
    with pytest.warns(StoreWarning, match="holds 8 rows, the journal says 9"):
        again = airtcp.sweep(path, out=out, workers=1, progress=False)
    assert (again.executed, again.reused) == (8, 0) and (counts(again) == 1).all()
    # A value edited in place (a valid Parquet file, the same rows): not
    # trusted either.
    import pyarrow.parquet as pq

    part = next((out / "flows").glob("part-*.parquet"))
    table = pq.read_table(part)
    pq.write_table(table.set_column(table.column_names.index("goodput_bps"), "goodput_bps", [[1.0] * 8]), part)
    r = run_cli("sweep", path, "--out", out, "--workers", "1", "-q")
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("airtcp: warning: ") and "does not match its SHA-256" in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fixed = airtcp.load_results(out)
    assert fixed.complete and fixed.flows.goodput_bps.equals(true_goodput)


def test_every_interruption_prints_the_resume_hint(tmp_path, monkeypatch, capsys):
    """A Ctrl-C outside the runs (checking the points, writing the
    summary) still says how to resume."""
    import airtcp.campaign.sweep as sweep_module
    from airtcp import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_module, "sweep", interrupted)
    path = sweep_file(tmp_path)
    assert cli.main(["sweep", str(path), "--runs", "2"]) == 130
    err = capsys.readouterr().err
    assert err == (
        f"airtcp: interrupted; finished runs are stored in {os.path.join('airtcp-out', 's')}.\n"
        f"Run the same command again to resume: airtcp sweep {path} --runs 2\n"
    )


# --------------------------------------------------------------------------
# Bad definitions: one line, before any run


def bad(tmp_path, sweep_table):
    path = write(tmp_path, BASE.format(duration="5s") + sweep_table)
    r = run_cli("sweep", path, "--out", tmp_path / "out", "-q")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "out").exists()  # nothing ran, nothing written
    with pytest.raises(airtcp.ScenarioError) as e:
        define(path)
    assert str(e.value) == r.stderr.strip()
    return r.stderr.strip()


# Lines of the tables below are written @k@ (the k-th line of the table).


@pytest.mark.parametrize(
    "table, expected",
    [
        # an unknown path: the loader names the field
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.varient", values = ["reno"] }\n',
            r"s.toml:@3@: sweep.parameters.v.values\[0\]: v = \"reno\" \(sweep point 0: v=\"reno\"\) is rejected: "
            r"flow\[0\].tcp.varient: unknown field `varient`",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = \'link["BS->X"].delay\', values = ["1ms"] }\n',
            r"s.toml:@3@: sweep.parameters.v.path: link: no entry 'BS->X' \(entries: S->BS, BS->M\)",
        ),
        (
            "[sweep]\n[sweep.parameters]\nv = { path = 'link[\"M->BS\"].a_to_b.error.per', values = [0.1] }\n",
            r"s.toml:@3@: sweep.parameters.v.path: .*written a = 'BS', b = 'M': select it as link\[\"BS->M\"\]",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow.tcp.variant", values = ["reno"] }\n',
            r"s.toml:@3@: sweep.parameters.v.path: flow is a list: select with flow\[0\]",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[2].start", values = ["1s"] }\n',
            r"s.toml:@3@: sweep.parameters.v.path: flow: index 2 is out of range \(1 entry, flow\[0\]\)",
        ),
        # a wrong type: for the field, and within one parameter
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.sack", values = ["yes"] }\n',
            r"s.toml:@3@: sweep.parameters.v.values\[0\]: .*flow\[0\].tcp.sack: expected true or false, found \"yes\"",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno", 3] }\n',
            r"s.toml:@3@: sweep.parameters.v.values: values of one parameter must have one type .*integer, string",
        ),
        # a bad value names its point
        (
            "[sweep]\n[sweep.parameters]\nper = { path = 'link[\"BS->M\"].a_to_b.error.per', values = [0.1, 1.5] }\n",
            r"s.toml:@3@: sweep.parameters.per.values\[1\]: per = 1.5 \(sweep point 1: per=1.5\) is rejected: "
            r"link\[1\].a_to_b.error.per: probability 1.5 is outside \[0, 1\]",
        ),
        (
            '[sweep]\n[sweep.parameters]\nd = { path = "simulation.duration", values = [1, -2], unit = "s" }\n',
            r"s.toml:@3@: sweep.parameters.d.values\[1\]: d = -2 \(sweep point 1: d=-2\) is rejected: simulation.duration",
        ),
        # a combination the loader rejects (each value alone is fine): its point
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno", "sack"] }\n'
            'r = { path = "flow[*].tcp.timeout_response", values = ["standard", "dclor"] }\n',
            r"s.toml:@4@: sweep.parameters.r.values\[1\]: r = \"dclor\" \(sweep point 1: v=\"reno\", r=\"dclor\"\) "
            r"is rejected: flow\[0\].tcp.timeout_response: DCLOR needs SACK",
        ),
        # ... also when the field the loader names is set by no parameter
        (
            '[sweep]\n[sweep.parameters]\nn = { path = \'link["BS->M"].b\', values = ["M", "Q"] }\n',
            r"s.toml:@1@: sweep: point 1 \(n=\"Q\"\) is rejected: flow\[0\].to: unknown node",
        ),
        # an empty grid
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = [] }\n',
            r"s.toml:@3@: sweep.parameters.v.values: empty: a parameter needs at least one value",
        ),
        ("[sweep]\nruns = 3\n", r"s.toml:@1@: sweep.parameters: no parameters: a sweep needs at least one"),
        (
            '[sweep]\nseeds = []\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno"] }\n',
            r"s.toml:@2@: sweep.seeds: empty: a sweep needs at least one seed",
        ),
        (
            '[sweep]\nruns = 0\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno"] }\n',
            r"s.toml:@2@: sweep.runs: expected a positive number of runs, got 0",
        ),
        # definitions that cannot mean what they say
        (
            '[sweep]\ncombine = "zip"\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno"] }\n'
            'w = { path = "flow[0].start", values = [1, 2], unit = "s" }\n',
            r"s.toml:@2@: sweep.combine: zip needs parameters with as many values each",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno"] }\n'
            'w = { path = "flow[0].tcp", values = [{ variant = "sack" }] }\n',
            r"s.toml:@4@: sweep.parameters.w.path: flow\[0\].tcp sets what parameter v .* sets",
        ),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "flow[*].tcp.variant", values = ["reno", "reno"] }\n',
            r"s.toml:@3@: sweep.parameters.v.values\[1\]: 'reno' is listed twice",
        ),
        (
            '[sweep]\n[sweep.parameters]\nvariant = { path = "flow[*].tcp.variant", values = ["reno"] }\n',
            r"s.toml:@3@: sweep.parameters.variant: 'variant' is already a column of the flows table",
        ),
        ("[sweep]\nrun = 3\n", r"s.toml:@2@: sweep.run: unknown key \(expected parameters, runs, seeds, combine\)"),
        (
            '[sweep]\n[sweep.parameters]\nv = { path = "link[*", values = [1] }\n',
            r"s.toml:@3@: sweep.parameters.v.path: cannot parse 'link\[\*' at character 6",
        ),
    ],
)
def test_bad_sweeps_get_one_line_before_any_run(tmp_path, table, expected):
    before = BASE.format(duration="5s").count("\n")
    expected = re.sub(r"@(\d)@", lambda m: str(before + int(m.group(1))), expected)
    message = bad(tmp_path, table)
    assert re.fullmatch(re.escape(str(tmp_path)) + "/" + expected + ".*", message), message


def test_no_sweep_table_and_python_definitions(tmp_path):
    path = write(tmp_path, BASE.format(duration="5s"))
    r = run_cli("sweep", path, "-q")
    assert r.returncode == 2 and r.stderr == f"{path}: sweep: the scenario has no [sweep] table (see docs/sweeps.md)\n"
    # In Python: a (path, values) pair; table values get labels; units.
    d = define(
        path,
        {
            "q": {
                "path": 'link["BS->M"].queue',
                "values": [{"kind": "droptail", "limit": "10pkt"}, {"kind": "droptail", "limit": "100pkt"}],
                "labels": ["small", "large"],
            },
            "delay_ms": {"path": 'link["S->BS"].delay', "values": [10, 50], "unit": "ms"},
        },
        seeds=[5, 9],
        combine="zip",
    )
    assert [p.values for p in d.points] == [{"q": "small", "delay_ms": 10}, {"q": "large", "delay_ms": 50}]
    assert 'delay = "50ms"' in d.points[1].text and 'limit = "100pkt"' in d.points[1].text
    assert d.seeds == [5, 9] and d.describe() == "2 points (q: 2, zipped with delay_ms: 2) x 2 seeds = 4 runs"
    # Captures and traces write files per run: not in a sweep.
    with pytest.raises(airtcp.ScenarioError, match=r"sweep: the scenario has \[\[capture\]\] tables, which write"):
        define({**_toml(BASE.format(duration="5s")), "capture": [{"link": "BS->M"}]}, {"x": ("flow[0].start", ["1s"])})
    # Nor a flow's own trace flag, set in the scenario or by a parameter:
    # every run would write the same trace.parquet in the current directory.
    traced = _toml(BASE.format(duration="5s"))
    traced["flow"][0]["tcp"] = {**traced["flow"][0].get("tcp", {}), "trace": True}
    with pytest.raises(airtcp.ScenarioError, match=r"flow\[0\]\.tcp\.trace: true writes a per-packet trace"):
        define(traced, {"x": ("flow[0].start", ["1s"])})
    with pytest.raises(airtcp.ScenarioError, match=r"sweep\.parameters\.t\.path: tcp\.trace writes"):
        define(_toml(BASE.format(duration="5s")), {"t": ("flow[*].tcp.trace", [True, False])})
    # Or inside a table a parameter sets.
    tables = [{"variant": "newreno"}, {"variant": "newreno", "trace": True}]
    with pytest.raises(airtcp.ScenarioError, match=r"sweep\.parameters\.t\.values\[1\]: tcp\.trace writes"):
        define(_toml(BASE.format(duration="5s")), {"t": ("flow[0].tcp", tables)})
    # Defined in Python: the error has no line, the field and file still.
    with pytest.raises(
        airtcp.ScenarioError, match=r"s.toml: sweep.parameters.y.path: nosuch: the scenario has no 'nosuch' list"
    ):
        define(path, {"x": ("simulation.duration", ["1s"]), "y": ("nosuch[0].a", [1])})


def test_paths():
    doc = {
        "link": [{"a": "A", "b": "B"}, {"a": "B", "b": "C", "a_to_b": {"rate": "1Mbps"}}],
        "node": [{"name": "B", "agents": [{"kind": "snoop"}, {"kind": "arq", "peer": "C"}]}],
    }
    locs = paths.locations(doc, paths.parse('link["B->C"].a_to_b.error.per'))
    assert [paths.text(loc) for loc in locs] == ["link[1].a_to_b.error.per"]
    paths.assign(doc, locs[0], 0.1)
    assert doc["link"][1]["a_to_b"] == {"rate": "1Mbps", "error": {"per": 0.1}}
    locs = paths.locations(doc, paths.parse('node["B"].agents["arq"].retries'))
    assert [paths.text(loc) for loc in locs] == ["node[0].agents[1].retries"]
    assert len(paths.locations(doc, paths.parse("link[*].delay"))) == 2
    assert paths.overlaps(paths.parse("link[1].a_to_b"), paths.parse("link[1].a_to_b.rate"))
    assert not paths.overlaps(paths.parse("link[1].a"), paths.parse("link[1].a_to_b"))
    # An index is ASCII digits: never trimmed, never another script's digits.
    for bad_path in ("", "link[", "link[x]", "link.", "a..b", 'link["x', "link[ 1]", "link[+1]", "link[\u0661]"):
        with pytest.raises(paths.PathError):
            paths.parse(bad_path)


def test_the_example_validates_and_its_docs_page_exists():
    r = run_cli("validate", EXAMPLES / "sweep.toml")
    assert r.returncode == 0, r.stderr
    assert "sweep: 12 points (per: 4 x tcp: 3) x 10 seeds = 120 runs, every point valid" in r.stdout
    run = run_cli("run", EXAMPLES / "sweep.toml", "-q")
    assert run.returncode == 0 and "defines a [sweep]; this runs its base scenario" in run.stderr
    assert (REPO / "docs" / "sweeps.md").exists()


def test_the_docs_page_runs(tmp_path):
    """docs/sweeps.md: its commands and Python blocks run as written (a
    shorter sweep; the SLURM block needs a cluster)."""
    (tmp_path / "examples").mkdir()
    for name in ("sweep.toml", "wireless.toml"):
        (tmp_path / "examples" / name).write_text((EXAMPLES / name).read_text())
    # The "Run" block's command, shortened (3 runs a point, no table).
    run, _dask = doc_blocks("docs/sweeps.md", "sh")
    command = shlex.split(run, comments=True)
    assert command == ["airtcp", "sweep", "examples/sweep.toml"], run
    r = run_cli(*command[1:], "--runs", "3", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    blocks = doc_blocks("docs/sweeps.md", "python")
    assert len(blocks) == 5
    # One interpreter for all of them (each block imports what it uses).
    code = "\n".join(b for b in blocks if "dask_jobqueue" not in b)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "SACK - Reno = " in p.stdout and "means over seeds" in p.stdout
    assert (tmp_path / "airtcp-out" / "sweep" / "goodput.png").stat().st_size > 10_000


def test_the_docs_dask_commands_are_accepted_as_written():
    """docs/sweeps.md's Dask block: the extra it installs is the project's,
    and each airtcp command parses as written into the Dask address and
    worker count it says (running them is test_sweep_dask.py's: a
    LocalCluster here would need 4 processes, the tcp:// line a scheduler)."""
    import tomllib

    from airtcp.cli import build_parser

    _run, dask_block = doc_blocks("docs/sweeps.md", "sh")
    commands = [shlex.split(line, comments=True) for line in dask_block.splitlines()]
    assert commands[0] == ["pip", "install", ".[dask]"]
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["dask"] == ["dask[distributed]"]
    parsed = [build_parser().parse_args(c[1:]) for c in commands[1:]]
    assert all(c[0] == "airtcp" for c in commands[1:])
    assert [(a.command, a.dask, a.workers) for a in parsed] == [
        ("sweep", "local", 4),
        ("sweep", "tcp://scheduler.example.org:8786", None),
        ("reproduce", "local", None),
    ]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_once_every_run_is_stored_stops_nothing(tmp_path, monkeypatch, workers):
    """A real SIGINT while the last run is handed over: every run is
    stored, so the sweep is complete, with its summary.csv and no warning
    (README, "Exit status": what is interrupted is what did not finish)."""
    from airtcp.campaign import sweep as sweep_module
    from ctrl_c_at_the_end import SigintAtTheEnd

    path = sweep_file(tmp_path, runs=2)
    monkeypatch.setattr(sweep_module, "_bar", lambda disable=False, **kw: SigintAtTheEnd(**kw))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = airtcp.sweep(path, out=tmp_path / "o", workers=workers, progress=False)
    assert r.complete and not r.interrupted and r.executed == 8
    assert (tmp_path / "o" / "summary.csv").exists() and (counts(r) == 1).all()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_cli_ctrl_c_once_every_run_is_stored_exits_0(tmp_path):
    """`airtcp sweep`, a real SIGINT while the last run is handed over:
    exit 0, the summary printed, nothing said of an interruption."""
    path = sweep_file(tmp_path, runs=2)
    p = subprocess.run(
        [sys.executable, REPO / "tests" / "python" / "ctrl_c_at_the_end.py", "sweep", path]
        + ["--out", tmp_path / "o", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr == "" and "8 runs (8 simulated on 2 threads, 0 already in" in p.stdout
    assert (tmp_path / "o" / "summary.csv").exists()


def test_status_of_what_is_not_a_sweep_directory_says_so(tmp_path):
    """docs/sweeps.md: ``airtcp sweep --status DIR`` reads a sweep's output
    directory. Given the sweep's TOML file instead (a natural slip), it said
    "FILE/sweep.json: Not a directory"; now one line that says what to give,
    exit 2, as for a directory holding no sweep; ``load_results`` raises
    the same words."""
    toml = tmp_path / "s.toml"
    toml.write_text("[simulation]\n")
    r = run_cli("sweep", "--status", toml)
    assert r.returncode == 2
    assert r.stderr == f"airtcp: {toml}: not a directory: give the sweep's output directory (its --out)\n"
    with pytest.raises(NotADirectoryError, match="give the sweep's output directory"):
        airtcp.load_results(toml)
    r = run_cli("sweep", "--status", tmp_path)
    assert (r.returncode, r.stderr) == (2, f"airtcp: {tmp_path}: no sweep here (no sweep.json)\n")
