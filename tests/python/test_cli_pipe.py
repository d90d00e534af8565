"""The CLI when the reader of its output goes away: ``airtcp run FILE --out
DIR | head -1``, ``| less`` quit early, ``| grep -m1``.

What a user is owed (README, "Exit status"):

* every file asked for (``--out`` tables and run.json, captures, traces,
  a sweep's store and summary, a reproduction's report, tables and plots)
  is written in full, the same as with stdout on a terminal: writing
  files never waits on printing;
* a closed stdout is not bad input: no "Broken pipe" or "Exception
  ignored" on stderr, and the exit status is 141 (128 + SIGPIPE, what a
  shell reports for ``seq 1000000 | head -1``), not 2;
* a file that cannot be written is still one line naming it, exit 2;
* a Ctrl-C outranks the reader gone: exit 130, the results are partial.

Each command runs with its stdout a pipe whose read end is closed before
it starts, so its first write to stdout fails (deterministic: no race
with a reader), and is compared with the same command whose stdout goes
to /dev/null. PYTHONUNBUFFERED decides whether that first write fails at
the first print (set) or at the flush on the way out (unset): both are
tested where the run is cheap.
"""

import io
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from conftest import EXAMPLES

READER_GONE = 141
USAGE = 2
EXIT_INTERRUPTED = 130
WIRELESS = EXAMPLES / "wireless.toml"
SWEEP = EXAMPLES / "sweep.toml"
NOISE = ("Traceback", "Broken pipe", "Errno 32", "Exception ignored", "BrokenPipeError")


def _id(args) -> str:
    return " ".join(a.name if isinstance(a, Path) else a for a in args)


def _env(buffered: bool) -> dict:
    env = dict(os.environ, PYTHONWARNINGS="default")
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def airtcp(*args, cwd, stdout="devnull", stderr="pipe", buffered=False):
    """``python -m airtcp ARGS`` in ``cwd``. ``stdout``/``stderr``:
    "devnull", "pipe" (read in full), or "closed" (a pipe whose reader
    has gone). Returns (exit status, stdout text or None, stderr text or
    None)."""
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write
    where = {"devnull": subprocess.DEVNULL, "pipe": subprocess.PIPE, "closed": w}
    try:
        p = subprocess.run(
            [sys.executable, "-m", "airtcp", *map(str, args)],
            stdout=where[stdout],
            stderr=where[stderr],
            cwd=cwd,
            env=_env(buffered),
            text=True,
            timeout=120,
        )
    finally:
        os.close(w)
    return p.returncode, p.stdout, p.stderr


def side_by_side(args, tmp_path) -> tuple[Path, Path]:
    """``airtcp ARGS`` in tmp_path/ref with stdout to /dev/null and in
    tmp_path/closed with stdout closed, at the same time (the two cores
    halve the wait); both must exit as they should, with an empty stderr."""
    ref, closed = tmp_path / "ref", tmp_path / "closed"
    ref.mkdir(), closed.mkdir()
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(airtcp, *args, cwd=ref)
        b = pool.submit(airtcp, *args, cwd=closed, stdout="closed")
        assert a.result() == (0, None, "")
        assert b.result() == (READER_GONE, None, "")
    return closed, ref


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_clean(stderr: str | None) -> None:
    if stderr is not None:
        for word in NOISE:
            assert word not in stderr, stderr


def assert_run_outputs_equal(got: Path, want: Path) -> None:
    """An ``airtcp run --out`` directory: every file byte for byte, but
    run.json's wall time and creation time."""
    a, b = files(got), files(want)
    assert sorted(a) == sorted(b)
    for name in b:
        if name == "run.json":
            ja, jb = json.loads(a[name]), json.loads(b[name])
            for volatile in ("wall_s", "created"):
                ja.pop(volatile), jb.pop(volatile)
            assert ja == jb
        else:
            assert a[name] == b[name], name


def test_run_keeps_every_output(tmp_path):
    """The defect as found: the summary was printed first, and the tables
    and run.json, written after it, were lost. Buffered (the flush at the
    end fails) and unbuffered (the first print fails)."""
    args = ("run", WIRELESS, "--out", "out", "--pcap", "base_station<->mobile", "--trace")
    (tmp_path / "ref").mkdir()
    assert airtcp(*args, cwd=tmp_path / "ref") == (0, None, "")
    for buffered in (False, True):
        cwd = tmp_path / f"closed-{buffered}"
        cwd.mkdir()
        status, _, stderr = airtcp(*args, cwd=cwd, stdout="closed", buffered=buffered)
        assert (status, stderr) == (READER_GONE, ""), (buffered, stderr)
        assert_run_outputs_equal(cwd / "out", tmp_path / "ref" / "out")


def test_run_with_stderr_on_the_same_closed_pipe(tmp_path):
    """``airtcp run FILE --out DIR 2>&1 | head -1``: the note about the
    file's [sweep] goes to stderr before the run, to a pipe already gone;
    the run goes on and writes everything."""
    args = ("run", SWEEP, "--out", "out")
    (tmp_path / "ref").mkdir()
    status, _, note = airtcp(*args, cwd=tmp_path / "ref")
    assert status == 0 and note.startswith("airtcp: note:"), note
    (tmp_path / "closed").mkdir()
    status, _, _ = airtcp(*args, cwd=tmp_path / "closed", stdout="closed", stderr="closed")
    assert status == READER_GONE
    assert_run_outputs_equal(tmp_path / "closed" / "out", tmp_path / "ref" / "out")


def test_run_with_only_stderr_closed(tmp_path):
    """stderr's reader gone, stdout's still there: the summary is printed
    whole and the run succeeds; a diagnostic nobody reads is no failure."""
    args = ("run", SWEEP, "--out", "out")
    (tmp_path / "ref").mkdir()
    status, summary, _ = airtcp(*args, cwd=tmp_path / "ref", stdout="pipe")
    assert status == 0 and "wrote flows.csv" in summary
    (tmp_path / "closed").mkdir()
    assert airtcp(*args, cwd=tmp_path / "closed", stdout="pipe", stderr="closed") == (0, summary, None)
    assert_run_outputs_equal(tmp_path / "closed" / "out", tmp_path / "ref" / "out")


@pytest.mark.parametrize("buffered", [False, True], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize(
    "args",
    [
        ("validate", WIRELESS),
        ("--help",),
        ("--version",),
        ("run", "--help"),
        ("reproduce",),  # the list of reproductions
    ],
    ids=lambda a: _id(a),
)
def test_printing_commands(tmp_path, args, buffered):
    """Commands whose only output is what they print: status 141, and
    nothing on stderr (Python's own "Exception ignored ... BrokenPipeError"
    at exit was the buffered case's symptom, with status 120)."""
    assert airtcp(*args, cwd=tmp_path, stdout="devnull")[0] == 0
    assert airtcp(*args, cwd=tmp_path, stdout="closed", buffered=buffered) == (READER_GONE, None, "")


def test_sweep_keeps_every_output(tmp_path):
    """A sweep's store, sweep.json and summary.csv are the same as with
    stdout elsewhere; ``sweep --status`` then also exits 141 quietly."""
    closed, ref = side_by_side(("sweep", SWEEP, "--runs", "1", "--out", "out"), tmp_path)
    got, want = closed / "out", ref / "out"
    a, b = files(got), files(want)
    assert sorted(a) == sorted(b)
    for name in ("sweep.json", "summary.csv"):
        assert a[name] == b[name], name
    import airtcp as api

    ra, rb = api.load_results(got), api.load_results(want)
    assert ra.complete and rb.complete
    for table in ("runs", "flows", "links"):
        key = ["point", "seed"] + (["flow"] if table == "flows" else ["link"] if table == "links" else [])
        da, db = (
            getattr(r, table).drop(columns=[c for c in getattr(r, table).columns if c.endswith("wall_s")])
            .sort_values(key)
            .reset_index(drop=True)
            for r in (ra, rb)
        )
        pd.testing.assert_frame_equal(da, db)
    assert airtcp("sweep", "--status", "out", cwd=closed, stdout="closed") == (READER_GONE, None, "")


def test_reproduce_keeps_every_output(tmp_path):
    """A reproduction's report, tables, CSV/Parquet and plots are the same
    as with stdout elsewhere (but the wall times and the report's line
    giving the date and wall time)."""
    closed, ref = side_by_side(("reproduce", "kick", "--runs", "1", "--out", "out"), tmp_path)
    got, want = closed / "out", ref / "out"
    a, b = files(got), files(want)
    assert sorted(a) == sorted(b)
    for name in b:
        if name.startswith("cache/"):  # the run store: order and wall times vary; its contents are runs.csv
            continue
        if name == "runs.csv":
            da, db = (pd.read_csv(d / name).drop(columns="wall_s") for d in (got, want))
            pd.testing.assert_frame_equal(da, db)
        elif name == "runs.parquet":
            da, db = (pd.read_parquet(d / name).drop(columns="wall_s") for d in (got, want))
            pd.testing.assert_frame_equal(da, db)
        elif name == "report.md":
            la, lb = (
                [line for line in text.decode().splitlines() if not line.startswith("Command:")]
                for text in (a[name], b[name])
            )
            assert la == lb
            assert len(la) < len(a[name].decode().splitlines())  # the line left out exists
        else:
            assert a[name] == b[name], name
    assert any(name.endswith(".png") for name in a) and "summary.csv" in a


class _GoneStdout(io.StringIO):
    """A stdout whose reader has gone, and without a file descriptor."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def test_bench_stops_once_stdout_is_gone(monkeypatch, capsys):
    """bench writes no file: once its reader has gone it stops at the first
    table, rather than timing the rest for nobody (in-process, with no
    scenarios, as the real bench takes minutes)."""
    from airtcp import bench, cli

    monkeypatch.setattr(bench, "scenarios", lambda quick, large: [])
    monkeypatch.setattr(bench, "threads", lambda **_: pytest.fail("bench went on after stdout's reader left"))
    gone = _GoneStdout()
    monkeypatch.setattr(sys, "stdout", gone)
    assert cli.main(["bench", "--quick", "--run-file", "no-such-file.toml"]) == READER_GONE
    assert sys.stdout is gone  # put back as it was
    assert capsys.readouterr().err == ""


def _one_line(stderr: str) -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert "Errno" not in stderr and "os error" not in stderr, stderr
    return stderr.strip()


@pytest.mark.parametrize(
    "args, problem",
    [
        (("run", WIRELESS, "--out", "afile"), "File exists"),
        (("run", WIRELESS, "--out", "afile", "--pcap", "base_station<->mobile"), "File exists"),
        (("run", WIRELESS, "--out", "afile/sub", "--format", "parquet"), "Not a directory"),
        (("sweep", SWEEP, "--runs", "1", "--out", "afile"), "File exists"),
        (("reproduce", "kick", "--runs", "1", "--out", "afile"), "Not a directory"),
    ],
    ids=lambda v: _id(v) if isinstance(v, tuple) else v,
)
def test_unwritable_output_is_one_line_exit_2(tmp_path, args, problem):
    """--out naming a file: one line naming the path and the problem, exit
    2, with stdout open or closed (the error is the news, not the pipe)."""
    (tmp_path / "afile").write_text("not a directory\n")
    for stdout in ("devnull", "closed"):
        status, _, stderr = airtcp(*args, cwd=tmp_path, stdout=stdout)
        assert status == USAGE, (stdout, stderr)
        line = _one_line(stderr)
        assert line.startswith("airtcp: afile") and line.endswith(problem), line
    assert (tmp_path / "afile").read_text() == "not a directory\n"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("buffered", [False, True], ids=["unbuffered", "buffered"])
def test_ctrl_c_wins_over_a_reader_gone(tmp_path, buffered):
    """Ctrl-C during ``airtcp run FILE --runs N --out DIR | head -1`` whose
    reader has gone: the status is 130, not 141. The interrupt is what the
    user did and what a script must see: the results are partial (run.json
    says so), whatever became of the printout. The tables and run.json are
    written, and stderr says how many runs finished."""
    import signal
    import time

    import tomli_w
    from airtcp.bench import dumbbell

    scenario = dumbbell(10, "100Mbps", 50)
    # A link no flow uses: its capture (empty) is created as each run
    # starts, which tells the test when runs are going.
    scenario["link"].append({"a": "idle0", "b": "idle1", "rate": "1Mbps", "delay": "1ms"})
    (tmp_path / "long.toml").write_text(tomli_w.dumps(scenario))
    r, w = os.pipe()
    os.close(r)  # stdout's reader is gone
    args = ["run", "long.toml", "--seed", "1", "--runs", "20", "--workers", "2", "--out", "out"]
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", *args, "--pcap", "idle0->idle1"],
        stdout=w,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=_env(buffered),
        text=True,
        start_new_session=True,
    )
    os.close(w)
    # On two threads, seed 5 starts once three of seeds 1-4 have finished:
    # all three are kept (handed over or not when Ctrl-C comes).
    fifth = tmp_path / "out" / "capture-idle0-idle1-seed5.pcapng"
    deadline = time.monotonic() + 60
    while not fifth.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fifth.exists(), p.communicate(timeout=60)[1]
    os.killpg(p.pid, signal.SIGINT)  # like Ctrl-C: the whole process group
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == EXIT_INTERRUPTED, stderr
    meta = json.loads((tmp_path / "out" / "run.json").read_text())
    assert meta["interrupted"] and 3 <= meta["runs_finished"] < 20
    # The runs Ctrl-C stopped midway left no capture (docs/capture.md).
    said = f"airtcp: interrupted; {meta['runs_finished']} of 20 runs finished"
    removed = r"(; the partial capture and trace files of (1 run|[2-9] runs) stopped midway were removed)?"
    assert re.fullmatch(re.escape(said) + removed + "\n", stderr), stderr
    captures = sorted(f for f in os.listdir(tmp_path / "out") if f.endswith(".pcapng"))
    assert captures == sorted(f"capture-idle0-idle1-seed{s}.pcapng" for s in meta["seeds"])
    assert sorted(set(pd.read_csv(tmp_path / "out" / "flows.csv").seed)) == meta["seeds"]
