import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
import tomli_w

import airtcp
from airtcp.bench import dumbbell
from conftest import REPO, run_cli

TABLES = ["flows", "links", "transfers", "series", "agents"]


def test_version():
    p = run_cli("--version")
    assert p.returncode == 0
    assert p.stdout.strip() == f"airtcp {airtcp.__version__}"


def test_usage_errors_exit_2(wireless):
    for args in ([], ["frobnicate"], ["run"], ["run", wireless, "--runs", "0"], ["run", wireless, "--format", "xls"]):
        p = run_cli(*args)
        assert p.returncode == 2, args
        assert "usage:" in p.stderr


@pytest.mark.parametrize("cmd", ["run", "sweep", "reproduce"])
@pytest.mark.parametrize("out", ["", " "])
def test_an_empty_out_directory_is_refused(cmd, out, wireless, tmp_path):
    """An empty --out (an unset $OUT in a script) is an error, not "no
    tables" (run) or the default directory (sweep, reproduce): the results
    would not be where the command line says."""
    target = {"run": [wireless], "sweep": [str(REPO / "examples" / "sweep.toml")], "reproduce": ["kick"]}[cmd]
    p = run_cli(cmd, *target, "--out", out, cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert "argument --out: must not be empty" in p.stderr.splitlines()[-1]
    assert list(tmp_path.iterdir()) == []


def test_validate_ok(wireless, dumbbell):
    p = run_cli("validate", wireless)
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{wireless}: ok (3 nodes, 2 links, 1 flow)\n"
    p = run_cli("validate", "examples/dumbbell.toml", cwd=REPO)
    assert p.stdout == "examples/dumbbell.toml: ok (6 nodes, 5 links, 2 flows)\n"


def test_run_summary(wireless):
    p = run_cli("run", wireless)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "seed 1" in out
    assert "goodput Mb/s" in out and "retransmits" in out and "timeouts" in out and "drops" in out
    assert "util %" in out and "base_station->mobile" in out
    r = airtcp.run(wireless)
    assert f"{r.flows.goodput_bps[0] / 1e6:.3f}" in out
    assert p.stderr == ""  # no progress bar when not a TTY


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_run_out(wireless, tmp_path, fmt):
    out = tmp_path / "out"
    p = run_cli("run", wireless, "--out", out, "--format", fmt, "--seed", "5")
    assert p.returncode == 0, p.stderr
    ref = airtcp.run(wireless, seed=5)
    read = {"parquet": pd.read_parquet, "csv": pd.read_csv, "json": pd.read_json}[fmt]
    for t in TABLES:
        path = out / f"{t}.{fmt}"
        assert path.exists(), path
        if fmt == "json" and getattr(ref, t).empty:
            assert json.loads(path.read_text()) == []
            continue
        df = read(path)
        expected = getattr(ref, t)
        if fmt == "parquet":
            pd.testing.assert_frame_equal(df, expected)
        else:
            assert list(df.columns) == list(expected.columns)
            assert len(df) == len(expected)
    if fmt != "parquet":
        flows = read(out / f"flows.{fmt}")
        assert flows.goodput_bps[0] == pytest.approx(ref.flows.goodput_bps[0])
    meta = json.loads((out / "run.json").read_text())
    assert meta["seeds"] == [5] and meta["runs_finished"] == 1 and not meta["interrupted"]
    assert meta["airtcp_version"] == airtcp.__version__
    assert meta["events"] == ref.events and meta["duration_s"] == 60.0
    assert meta["tables"]["flows"] == f"flows.{fmt}"


@pytest.mark.parametrize("runs", [1, 3])
def test_run_out_csv_is_what_pandas_writes(tmp_path, awkward, runs):
    """--out's CSV (the default format) is byte for byte
    ``DataFrame.to_csv(index=False)`` of the run's tables: names that need
    quoting (a comma, a double quote), a missing count (None) and a NaN
    (no RTT sample: the late flow) as empty fields, floats as pandas
    writes them, the series table, and with --runs the seed column."""
    out = tmp_path / "out"
    p = run_cli("run", awkward, "--runs", runs, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    ref = airtcp.run(awkward) if runs == 1 else airtcp.run_many(awkward, [3, 4, 5], workers=1, progress=False)
    assert ref.flows.mean_rtt_s.isna().any() and ref.flows.final_ssthresh_bytes.isna().any()
    assert ref.flows.variant.isna().any()
    assert len(ref.series) > 0 and len(ref.transfers) > 0
    for t in TABLES:
        assert (out / f"{t}.csv").read_bytes() == getattr(ref, t).to_csv(index=False).encode(), t


@pytest.mark.parametrize("runs", [1, 3])
def test_run_out_json_is_the_tables_in_full_precision(tmp_path, awkward, runs):
    r"""--format json: per table a list of records, one per line, each
    value exactly the DataFrame's (full precision: the shortest text that
    reads back as the same double), a missing value (NaN, None) null; the
    text byte for byte ``"[\n" + ",\n".join(json.dumps(record,
    ensure_ascii=False)) + "\n]\n"``, as docs/results.md describes it."""
    out = tmp_path / "out"
    p = run_cli("run", awkward, "--runs", runs, "--out", out, "--format", "json", "--quiet")
    assert p.returncode == 0, p.stderr
    ref = airtcp.run(awkward) if runs == 1 else airtcp.run_many(awkward, [3, 4, 5], workers=1, progress=False)
    for t in TABLES:
        text = (out / f"{t}.json").read_text()
        frame = getattr(ref, t)
        expected = [
            {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
            for row in frame.astype(object).to_dict("records")
        ]
        assert json.loads(text) == expected, t
        records = ",\n".join(json.dumps(r, ensure_ascii=False, allow_nan=False) for r in expected)
        assert text == "[\n" + records + ("\n" if records else "") + "]\n", t
    digits = max(len(repr(x)) for x in ref.links.utilization)
    assert digits > 12  # values that 10 decimals would have cut
    for t in TABLES:
        text = (out / f"{t}.json").read_text()
        assert text.count("\n") == len(getattr(ref, t)) + 2, t  # "[", a line per record, "]"


def test_run_many_cli(wireless, tmp_path):
    out = tmp_path / "many"
    p = run_cli("run", wireless, "--runs", "3", "--seed", "2", "--workers", "2", "--out", out, "--format", "parquet", "--quiet")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    flows = pd.read_parquet(out / "flows.parquet")
    assert list(flows.seed) == [2, 3, 4]
    ref = airtcp.run_many(wireless, [2, 3, 4], workers=1, progress=False)
    pd.testing.assert_frame_equal(flows, ref.flows)
    meta = json.loads((out / "run.json").read_text())
    assert meta["seeds"] == [2, 3, 4] and meta["runs_requested"] == 3


def test_run_json_names_every_file_relative_to_the_output_directory_with_its_seed(wireless, tmp_path):
    """run.json lists the tables, captures and traces it wrote so that a
    script can find them: every file named relative to the output
    directory (where run.json is), whatever the working directory was, and
    each capture and trace with the seed of its run (the audit of
    2026-11-29 found captures without a seed and both named relative to
    the working directory, unlike the tables)."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    out = tmp_path / "deep" / "many"
    given = os.path.join("..", "deep", "many")  # relative to the working directory
    args = ("run", wireless, "--runs", "2", "--seed", "7", "--out", given, "--pcap", "base_station<->mobile", "--trace")
    p = run_cli(*args, "--quiet", cwd=cwd)
    assert p.returncode == 0, p.stderr
    meta = json.loads((out / "run.json").read_text())
    named = [t for t in meta["tables"].values()] + [c["file"] for c in meta["captures"]] + [t["file"] for t in meta["traces"]]
    assert all((out / f).is_file() for f in named), named
    assert [c["seed"] for c in meta["captures"]] == [t["seed"] for t in meta["traces"]] == [7, 8]
    assert [c["file"] for c in meta["captures"]] == [f"capture-base_station--mobile-seed{s}.pcapng" for s in (7, 8)]
    assert all(c["packets"] > 0 for c in meta["captures"])


def test_console_script_installed(wireless):
    exe = os.path.join(os.path.dirname(sys.executable), "airtcp")
    if not os.path.exists(exe):
        pytest.skip("console script not installed next to this interpreter")
    p = subprocess.run([exe, "validate", str(wireless)], capture_output=True, text=True)
    assert p.returncode == 0 and "ok" in p.stdout


def test_bench_quick():
    p = run_cli("bench", "--quick", cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stderr
    tables = [t.splitlines() for t in p.stdout.strip().split("\n\n")]
    assert len(tables) == 3, p.stdout
    header, _, *rows = tables[0]
    cols = header.split("  ")
    cols = [c.strip() for c in cols if c.strip()]
    for col in ["scenario", "simulated s", "wall s", "events/s", "ns/event", "packet-hops/s", "peak MiB", "setup s", "total s"]:
        assert col in cols
    assert [r.split()[0] for r in rows] == [
        "dumbbell-10flows-100Mbps",
        "dumbbell-1000flows-1Gbps",
        "dumbbell-10000flows-100Mbps",
        "dumbbell-10000flows-1Mbps-each",
        "snoop-10000hosts",
    ]
    sim = [float(r.split()[1]) for r in rows]
    assert sim == [10.0, 1.0, 1.0, 0.4, 0.1]
    peak = [float(r.split()[cols.index("peak MiB")]) for r in rows]
    assert all(0 < m < 4096 for m in peak)
    # The whole `airtcp run` (printing its summary, and writing its tables
    # with --out) and `airtcp validate` processes.
    procs = tables[1]
    assert procs[0].startswith("whole process")
    assert procs[2].split()[:3] == ["airtcp", "run", "examples/dumbbell.toml"]
    assert procs[3].startswith("airtcp run examples/dumbbell.toml --out DIR")
    assert procs[4].startswith("airtcp validate examples/dumbbell.toml")
    for row in procs[2:]:
        wall, mib = map(float, row.split()[-2:])
        assert 0 < wall < 60 and 0 < mib < 4096
    # run_many on threads (speed is measured, not asserted: the machine is shared).
    threads = tables[2]
    assert threads[0].startswith("run_many") and threads[2].split()[-1].endswith("x")


def test_bench_scenarios_are_valid():
    from airtcp import bench

    (n10, s10), (n1000, s1000), (n10k, s10k), (nshare, sshare), (nsnoop, ssnoop) = bench.scenarios()
    c = airtcp.Scenario(s10k, "<bench>")
    assert (c.nodes, c.links, c.flows, c.duration_s) == (20002, 20001, 10000, 10.0)
    assert len(s10k.splitlines()) < 40
    # The same dumbbell, its bottleneck 1 Mb/s per flow over 60 ms.
    sh = airtcp.Scenario(sshare, "<bench>")
    assert (sh.nodes, sh.links, sh.flows, sh.duration_s) == (20002, 20001, 10000, 4.0)
    assert 'rate = "10000Mbps"\ndelay = "60ms"' in sshare
    assert len(bench.scenarios(large=True)) == 6
    # One Snoop base station holding all 10,000 flows.
    sn = airtcp.Scenario(ssnoop, "<bench>")
    assert (sn.nodes, sn.links, sn.flows, sn.duration_s) == (20001, 20000, 10000, 1.0)
    assert len(ssnoop.splitlines()) < 40
    a = airtcp.load(s10)
    assert (a.nodes, a.links, a.flows, a.duration_s) == (22, 21, 10, 100.0)
    b = airtcp.load(s1000)
    assert (b.nodes, b.links, b.flows, b.duration_s) == (2002, 2001, 1000, 10.0)
    q = airtcp.load(bench.scenarios(quick=True)[1][1])
    assert q.duration_s == 1.0
    link = s10["link"][10]
    assert link["rate"] == "100Mbps" and link["delay"] == "10ms"
    assert link["queue"]["kind"] == "red" and link["queue"]["gentle"] and not link["queue"]["ecn"]
    assert s1000["link"][1000]["rate"] == "1Gbps"
    assert all(f["tcp"]["variant"] == "newreno" and f["app"]["kind"] == "bulk" for f in s1000["flow"])


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_out_of_no_finished_run_is_empty_tables(tmp_path, fmt):
    """Ctrl-C before any of --runs N finished: the result has no run, and
    --out still writes every table, empty (CSV: the header pandas writes
    for the empty table, seed column first; JSON: an empty list), rather
    than failing (it raised a RuntimeError once)."""
    from airtcp.api import Result
    from airtcp.cli import write_result

    res = Result._from_many([], [], 400.0)
    files = write_result(res, str(tmp_path), fmt)
    assert sorted(files) == sorted(TABLES)
    for t in TABLES:
        text = (tmp_path / files[t]).read_text()
        if fmt == "csv":
            assert text == getattr(res, t).to_csv(index=False), t
            assert text.startswith("seed,"), t
        else:
            assert text == "[\n]\n", t


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_keeps_finished_runs(tmp_path):
    # Runs long enough that Ctrl-C lands while they are going.
    sc = tmp_path / "long.toml"
    sc.write_text(tomli_w.dumps(dumbbell(10, "100Mbps", 400)))
    out = tmp_path / "out"
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "run", str(sc), "--runs", "20", "--workers", "2", "--out", str(out), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(3)
    t0 = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)  # like Ctrl-C: the whole process group
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 10
    assert p.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    meta = json.loads((out / "run.json").read_text())
    assert meta["interrupted"] and meta["runs_requested"] == 20
    assert meta["runs_finished"] == len(meta["seeds"]) < 20
    flows = pd.read_csv(out / "flows.csv")
    assert sorted(set(flows.seed)) == meta["seeds"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_single_run(tmp_path):
    sc = tmp_path / "long.toml"
    sc.write_text(tomli_w.dumps(dumbbell(10, "100Mbps", 3000)))
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "run", str(sc)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(2)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130
    assert err.strip() == "airtcp: interrupted; no run finished"


def test_bench_agent_scenarios_put_the_agents_where_they_say():
    # snoop_base_station: one agent on bs seeing every flow; gsnoop_pairs:
    # a gateway pair per flow, A before the wireless hop, B after it.
    from airtcp import bench

    r = airtcp.run(airtcp.Scenario(bench.snoop_base_station(3, 2), "<snoop>"))
    assert sorted(set(zip(r.agents.node, r.agents.agent))) == [("bs", "snoop")]
    assert list(r.flows.name) == ["f0", "f1", "f2"]
    assert (r.flows.delivered_bytes > 0).all()
    g = airtcp.Scenario(bench.gsnoop_pairs(3, 2), "<gsnoop>")
    assert (g.nodes, g.links, g.flows) == (12, 9, 3)
    r = airtcp.run(g)
    pairs = sorted(set(zip(r.agents.node, r.agents.agent)))
    assert pairs == [(f"g{s}{i}", f"gsnoop_{s.lower()}") for s in "AB" for i in range(3)]
    assert (r.flows.delivered_bytes > 0).all()


def test_compact_bench_dumbbell_is_the_dict_dumbbell():
    # The bench writes large dumbbells with `count`: the same scenario.
    from airtcp import bench

    for n in (3, 7):
        compact = airtcp.run(airtcp.Scenario(bench.compact_dumbbell(n, "10Mbps", 2), "<compact>"))
        written = airtcp.run(dumbbell(n, "10Mbps", 2))
        assert bench.same_columns(compact.columns, written.columns)
        assert not bench.same_columns(compact.columns, airtcp.run(dumbbell(n, "10Mbps", 2), seed=9).columns)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_keeps_a_run_finished_but_not_yet_handed_over(wireless, tmp_path):
    """`airtcp run FILE --runs 20 --workers 2`, Ctrl-C while a run has
    finished on its thread but the main thread has not yet taken it (it
    is busy with the first): that run is in the tables and run.json, the
    status is 130 and stderr counts it (README, "Exit status")."""
    out, noted = tmp_path / "out", tmp_path / "finished"
    p = subprocess.run(
        [sys.executable, REPO / "tests" / "python" / "ctrl_c_after_two_runs.py", noted, "run", wireless]
        + ["--seed", "1", "--runs", "20", "--workers", "2", "--out", out, "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    at_sigint = [int(s) for s in noted.read_text().split()]
    every = [int(s) for s in (tmp_path / "finished.all").read_text().split()]
    meta = json.loads((out / "run.json").read_text())
    assert p.returncode == 130, p.stderr
    assert len(at_sigint) >= 2 and set(at_sigint) <= set(meta["seeds"])
    assert meta["seeds"] == sorted(every) and meta["interrupted"] and meta["runs_finished"] == len(every) < 20
    assert p.stderr == f"airtcp: interrupted; {len(every)} of 20 runs finished\n"
    assert sorted(set(pd.read_csv(out / "flows.csv").seed)) == meta["seeds"]
