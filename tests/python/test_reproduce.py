"""The reproduction harness (airtcp.experiments) and `airtcp reproduce`."""

import json
import os
import signal
import subprocess
import sys
import time
import warnings

import pytest

import airtcp
from airtcp import experiments
from airtcp.experiments import gsnoop, kick
from airtcp.experiments.report import all_text_tables
from airtcp.experiments.run import reproduce
from airtcp.campaign.store import JOURNAL, StoreBusy, StoreWarning, open_store
from airtcp.experiments.runner import STORE_DIR, plan, run_key, runs_frame, scenario_text, stored_records

from conftest import run_cli


def tiny(cells=({"fading": "fast", "size_kb": 10}, {"fading": "moderate", "size_kb": 10})):
    return kick.EXPERIMENT.with_cells(list(cells))


def one_row_per_run(rep, runs):
    df = rep.runs
    exp = rep.experiment
    assert len(df) == len(exp.cells) * len(exp.schemes) * runs
    assert not df.duplicated(["fading", "size_kb", "scheme", "run"]).any()
    return df


def test_interrupted_reproduction_resumes_with_every_run_once(tmp_path):
    exp = tiny()
    total = len(exp.cells) * len(exp.schemes) * 3
    # A Ctrl-C after 5 runs: those stay stored.
    first = reproduce(exp, runs=3, out=tmp_path, workers=1, progress=False, interrupt_after=5)
    assert first.interrupted and first.outcome.executed == 5
    # And a kill in the middle of committing the next part: a journal line
    # cut short, a hidden part file never committed.
    journal = tmp_path / STORE_DIR / JOURNAL
    with open(journal, "ab") as f:
        f.write(b'{"part": 1, "tasks": ["abc"')
    (tmp_path / STORE_DIR / "runs" / ".part-000001.parquet").write_bytes(b"PAR1 half a file")
    with pytest.warns(StoreWarning, match="cut short"):
        second = reproduce(exp, runs=3, out=tmp_path, workers=1, progress=False)
    assert not second.interrupted
    assert (second.outcome.reused, second.outcome.executed) == (5, total - 5)
    one_row_per_run(second, 3)
    assert not (tmp_path / STORE_DIR / "runs" / ".part-000001.parquet").exists()
    # Nothing is simulated a third time, and the store holds each run once.
    third = reproduce(exp, runs=3, out=tmp_path, workers=1, progress=False)
    assert (third.outcome.reused, third.outcome.executed) == (total, 0)
    records = stored_records(tmp_path)
    assert len(records) == total
    # More runs extend the same store; the first 3 runs are reused.
    fourth = reproduce(exp, runs=4, out=tmp_path, workers=1, progress=False, write=False)
    assert (fourth.outcome.reused, fourth.outcome.executed) == (total, len(exp.cells) * len(exp.schemes))
    one_row_per_run(fourth, 4)


def test_a_second_reproduction_into_the_same_directory_is_refused(tmp_path):
    exp = tiny()
    with open_store(tmp_path / STORE_DIR, ("runs", "metrics")):
        with pytest.raises(StoreBusy, match="being written by another process .*pid"):
            reproduce(exp, runs=1, out=tmp_path, workers=1, progress=False)
        r = run_cli("reproduce", "kick", "--runs", "1", "--out", tmp_path, "-q")
        assert r.returncode == 1 and r.stderr.count("\n") == 1 and "being written by another process" in r.stderr
    # The lock went with the first writer.
    assert reproduce(exp, runs=1, out=tmp_path, workers=1, progress=False, write=False).outcome.complete


def test_resumed_results_equal_uninterrupted_ones(tmp_path):
    exp = tiny()
    whole = reproduce(exp, runs=2, out=tmp_path / "a", workers=1, progress=False, write=False)
    reproduce(exp, runs=2, out=tmp_path / "b", workers=1, progress=False, interrupt_after=3)
    resumed = reproduce(exp, runs=2, out=tmp_path / "b", workers=2, progress=False, write=False)
    cols = ["fading", "size_kb", "scheme", "run", "seed", "response_s", "kicks_sent"]
    a = whole.runs[cols].sort_values(cols[:4]).reset_index(drop=True)
    b = resumed.runs[cols].sort_values(cols[:4]).reset_index(drop=True)
    assert a.equals(b)


def test_runs_of_other_simulator_code_are_not_reused(tmp_path, monkeypatch):
    """A cached run is reused only by the simulator build that made it: a
    change to the Rust core without a version bump must not serve stale
    results (the key holds airtcp.__build__, a digest of the sources)."""
    from airtcp.experiments import runner

    exp = tiny(cells=[{"fading": "fast", "size_kb": 10}])
    total = len(exp.schemes) * 2
    first = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    assert (first.outcome.reused, first.outcome.executed) == (0, total)
    monkeypatch.setattr(runner, "__build__", airtcp.__version__ + "+src.0000000000000000")
    again = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    assert (again.outcome.reused, again.outcome.executed) == (0, total)


def test_cache_keys_change_with_the_scenario():
    exp = tiny(cells=[{"fading": "fast", "size_kb": 10}])
    cell = exp.cells[0]
    text = scenario_text(exp, cell, "tcp")
    k = run_key(exp, cell, "tcp", 1, 1, text)
    assert k == run_key(exp, cell, "tcp", 1, 1, scenario_text(exp, cell, "tcp"))  # stable
    assert k != run_key(exp, cell, "tcp", 2, 2, text)
    assert k != run_key(exp, cell, "kick", 1, 1, text)
    changed = exp.with_params(queue_pkts=16)
    text2 = scenario_text(changed, cell, "tcp")
    assert text2 != text
    assert run_key(changed, cell, "tcp", 1, 1, text2) != k
    # Every key of a changed parameter is new; a kick-only parameter leaves TCP's runs alone.
    keys = {j.key for j in plan(exp, 2).jobs}
    assert not keys & {j.key for j in plan(changed, 2).jobs}
    ttl = plan(exp.with_params(kick_ttl=2), 2).jobs
    assert {j.key for j in ttl if j.scheme == "tcp"} <= keys
    assert not {j.key for j in ttl if j.scheme == "kick"} & keys


def test_same_seeds_across_schemes_and_the_ns2_channel():
    exp = kick.EXPERIMENT
    p = plan(exp.with_cells([{"fading": "slow", "size_kb": 10}]), 6)
    by_scheme = {}
    for j in p.jobs:
        by_scheme.setdefault(j.scheme, []).append((j.run, j.seed))
    # Common random numbers: run i uses seed i for every scheme.
    assert by_scheme["tcp"] == by_scheme["kick"] == [(i, i) for i in range(1, 7)]
    # The chain starts error-free (ns-2's TwoStateErrorModel); a packet's fate
    # is the state at its start (the draft's numbers exclude ns-2's "during"
    # rule in wall-clock time: test_reproduce_kick.py).
    for scheme in ("tcp", "kick"):
        text = scenario_text(exp, {"fading": "fast", "size_kb": 10}, scheme)
        assert 'loss_rule = "start"' in text and 'initial_state = "good"' in text
    # A good start: the first packet of the slow-fading upload (mean good
    # sojourn 8 s, 67 ms packets) is never lost at t = 0 with any seed.
    sc = kick.scenario({"fading": "slow", "size_kb": 10}, "tcp", exp.params)
    # Past the first packet's arrival (67 ms of transmission and the link's
    # 10 ms delay: a run must be, or no packet could arrive), before an ACK
    # returns (about 92 ms); the first flight's channel fates are all drawn
    # when it is offered at t = 0, so this run sees the packets a 20 ms run did.
    sc["simulation"]["duration"] = "80ms"
    assert all(airtcp.run(sc, seed=s).flows.drops_channel[0] == 0 for s in range(1, 41))
    during = exp.with_params(loss_rule="during", initial_state="stationary")
    text = scenario_text(during, {"fading": "fast", "size_kb": 10}, "tcp")
    assert 'loss_rule = "during"' in text and 'initial_state = "stationary"' in text


def test_kick_scenario_validates_and_the_tables_show_the_drafts_numbers():
    exp = kick.EXPERIMENT
    assert len(exp.cells) == 15 and exp.runs == 200  # the draft ran 100: see kick.RUNS
    for scheme in ("tcp", "kick"):
        sc = airtcp.load(kick.scenario({"fading": "moderate", "size_kb": 30}, scheme, exp.params))
        assert (sc.nodes, sc.links, sc.flows) == (2, 1, 1)
    assert "kick" in sc.text and 'kind = "gilbert_elliott"' in sc.text
    text = all_text_tables(exp, exp.published_numbers())
    for number in ("1.524", "168.706", "129.551", "19.410", "21.545", "8.911", "10.688"):
        assert number in text
    for t in ("Table 1.", "Table 2.", "Table 3.", "moderate", "fast", "slow", "TCP, 95%", "Kick, avg"):
        assert t in text


def test_kick_uses_ns2s_2001_timer_rules_explicitly():
    exp = kick.EXPERIMENT
    cell = {"fading": "moderate", "size_kb": 10}
    for scheme in ("tcp", "kick"):
        text = airtcp.load(kick.scenario(cell, scheme, exp.params)).text
        assert 'rtt_tick = "100000us"' in text  # tcpTick_ 0.1 until 2002/03/07
        assert "max_backoff = 64" in text  # TcpAgent::rtt_backoff
        assert "restart_rto_on_fast_retransmit = true" in text  # RenoTcpAgent::dupack_action
    # null (--set NAME=null) removes the first two; the third is always explicit.
    off = {**exp.params, "rtt_tick_s": None, "max_backoff": None, "restart_rto_on_fast_retransmit": False}
    text = airtcp.load(kick.scenario(cell, "tcp", off)).text
    assert "rtt_tick" not in text and "max_backoff" not in text
    assert "restart_rto_on_fast_retransmit = false" in text


def test_the_max_rto_is_written_as_set():
    """`--set max_rto_s=123456.7` was written `max_rto = "123457s"` (six
    significant digits): a silent change of the value. The defaults keep
    their text (and so their cached runs)."""
    from airtcp.experiments import threshold

    for mod, cell in ((kick, {"fading": "fast", "size_kb": 10}), (threshold, threshold.EXPERIMENT.cells[0])):
        exp = mod.EXPERIMENT
        scheme = exp.schemes[0].name
        assert 'max_rto = "100000s"' in scenario_text(exp, cell, scheme)
        assert 'max_rto = "123456700000us"' in scenario_text(exp.with_params(max_rto_s=123456.7), cell, scheme)


def test_gsnoop_pins_ns2s_timer_rules_explicitly():
    exp = gsnoop.EXPERIMENT
    for cell in (gsnoop.CELLS[0], gsnoop.CELLS[-1]):
        for scheme in ("reno", "snoop", "gsnoop25"):
            text = airtcp.load(gsnoop.scenario(cell, scheme, exp.params)).text
            assert 'rtt_tick = "100000us"' in text  # tcpTick_ 0.1, the era of the RTO clock
            assert "max_backoff = 64" in text  # TcpAgent::rtt_backoff
            assert "restart_rto_on_fast_retransmit = true" in text  # RenoTcpAgent::dupack_action
    # The first published run's model: exact RTTs, no cap, timer left running.
    off = {**exp.params, "rtt_tick_s": None, "max_backoff": None, "restart_rto_on_fast_retransmit": False}
    text = airtcp.load(gsnoop.scenario(gsnoop.CELLS[0], "reno", off)).text
    assert "rtt_tick" not in text and "max_backoff" not in text
    assert "restart_rto_on_fast_retransmit = false" in text
    assert exp.version >= 2


def test_claims_hold_on_the_drafts_own_numbers():
    exp = kick.EXPERIMENT
    for claim in exp.claims:
        # Claim 5 (the abstract's "more pronounced under worse channel quality") is the exception: the draft's own
        # p95s improve more under slow fading (Table 3) than under moderate (Table 1); test_reproduce_kick.py.
        expected = claim.id != "5"
        assert claim.check(exp.published_numbers(), exp.params).agree is expected, claim.id


def test_outputs(tmp_path):
    exp = tiny()
    rep = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False)
    for f in ("runs.csv", "runs.parquet", "summary.csv", "report.md", "tables.txt", f"{STORE_DIR}/{JOURNAL}"):
        assert (tmp_path / f).stat().st_size > 0, f
    assert all((tmp_path / p).stat().st_size > 1000 for p in rep.files["plots"])
    report = (tmp_path / "report.md").read_text()
    for s in ("Parameter choices the document left open", "Kick interval", "Claims", "1.524", ".png"):
        assert s in report
    assert set(runs_frame(rep.outcome).scheme) == {"tcp", "kick"}


def test_cli_lists_reproductions():
    r = run_cli("reproduce")
    assert r.returncode == 0, r.stderr
    assert "kick" in r.stdout
    r = run_cli("reproduce", "nosuch")
    assert r.returncode == 2
    assert "unknown reproduction 'nosuch'" in r.stderr and "kick" in r.stderr
    r = run_cli("reproduce", "kick", "--set", "nosuch=1")
    assert r.returncode == 2 and "unknown parameter" in r.stderr
    assert set(experiments.available()) >= {"kick"}


def test_cli_reproduce_kick_quick(tmp_path):
    r = run_cli("reproduce", "kick", "--runs", "2", "--out", tmp_path, "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert "Table 2. Average and 95 percentile response times, fast fading" in r.stdout
    assert "168.706" in r.stdout and "ratio" in r.stdout and "Claims" in r.stdout
    assert (tmp_path / "report.md").exists()
    again = run_cli("reproduce", "kick", "--runs", "2", "--out", tmp_path, "--quiet")
    assert again.returncode == 0 and again.stdout == ""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_cli_ctrl_c_keeps_the_cache(tmp_path):
    env = dict(os.environ)
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "reproduce", "kick", "--runs", "400", "--out", str(tmp_path), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    journal = tmp_path / STORE_DIR / JOURNAL
    deadline = time.time() + 60
    while time.time() < deadline and (not journal.exists() or journal.stat().st_size < 200):
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err and "again to resume" in err
    assert "runs are stored in" in err
    with warnings.catch_warnings():
        warnings.simplefilter("error", StoreWarning)  # nothing half-written
        assert len(stored_records(tmp_path)) > 0


def test_an_edited_stored_value_is_not_trusted(tmp_path):
    """A metric edited in place (a valid Parquet file, the same rows) fails
    its part's SHA-256: the part's runs are run again, with a warning, and
    the true values come back. (The CLI prints such warnings on one line:
    test_sweep.py, the same code.)"""
    import pyarrow.parquet as pq

    exp = tiny(cells=[{"fading": "fast", "size_kb": 10}])
    first = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)

    line = json.loads((tmp_path / STORE_DIR / JOURNAL).read_text().splitlines()[0])
    part = tmp_path / STORE_DIR / "metrics" / f"part-{line['part']:06d}.parquet"
    table = pq.read_table(part)
    pq.write_table(table.set_column(2, "value", [[12345.0] * table.num_rows]), part)
    in_part = len(line["tasks"])
    with pytest.warns(StoreWarning, match="metrics file does not match its SHA-256"):
        again = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    assert again.outcome.executed == in_part and again.runs.equals(first.runs.assign(wall_s=again.runs.wall_s))


def test_a_record_missing_a_field_is_run_again(tmp_path):
    """Issue 13 case 11: a stored record missing a field (a journal line
    that is valid JSON but lacks its checksums: another tool, an older
    format) is no KeyError: it is dropped with a warning and its runs are
    run again. (The CLI prints such a warning on one line: test_sweep.py,
    the same store.)"""
    exp = tiny(cells=[{"fading": "fast", "size_kb": 10}])
    first = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    journal = tmp_path / STORE_DIR / JOURNAL

    def drop_from_first_record(key):
        """Remove `key` from the journal's first line; return its run count."""
        lines = journal.read_text().splitlines()
        record = json.loads(lines[0])
        del record[key]
        journal.write_text("\n".join([json.dumps(record)] + lines[1:]) + "\n")
        return len(json.loads(lines[0])["tasks"])

    in_part = drop_from_first_record("sha256")
    with pytest.warns(StoreWarning, match="dropped a malformed journal line; its runs will run again"):
        again = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    assert again.outcome.executed == in_part and again.runs.equals(first.runs.assign(wall_s=again.runs.wall_s))
    # Nor a line missing its task list.
    in_part = drop_from_first_record("tasks")
    with pytest.warns(StoreWarning, match="malformed journal line"):
        third = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, write=False)
    assert third.outcome.executed == in_part


def test_every_interruption_prints_the_resume_hint(tmp_path, monkeypatch, capsys):
    """A Ctrl-C outside the runs (planning, writing the report) still says
    how to resume."""
    import airtcp.experiments.run as run_module
    from airtcp import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_module, "reproduce", interrupted)
    assert cli.main(["reproduce", "kick", "--runs", "2", "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert err == (
        f"airtcp: interrupted; finished runs are stored in {tmp_path / STORE_DIR}.\n"
        f"Run the same command again to resume: airtcp reproduce kick --runs 2 --out {tmp_path}\n"
    )



def test_ctrl_c_once_every_run_is_stored_stops_nothing(tmp_path):
    """A Ctrl-C as the last run is handed over (interrupt_after = every
    run): nothing was stopped, so the reproduction is whole, its report
    written (README, "Exit status": what is interrupted is what did not
    finish)."""
    exp = tiny()
    total = len(exp.cells) * len(exp.schemes)
    rep = reproduce(exp, runs=1, out=tmp_path, workers=1, progress=False, interrupt_after=total)
    assert not rep.interrupted and rep.outcome.executed == total
    one_row_per_run(rep, 1)
    assert (tmp_path / "report.md").exists()
