"""Issue 12: start-up without pandas/pyarrow, runs on threads, the README's
Python example at the top level of a script."""

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import airtcp
from airtcp._threads import Cancelled, run_in_threads
from conftest import REPO, doc_blocks


def python(code: str, cwd=REPO, timeout=300):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


def test_run_and_summary_import_neither_pandas_nor_pyarrow():
    p = python(
        """
        import sys
        import airtcp
        from airtcp import cli
        r = airtcp.run("examples/dumbbell.toml")
        text = r.summary()
        assert "goodput Mb/s" in text, text
        m = airtcp.run_many("examples/wireless.toml", [1, 2], workers=2, progress=False)
        m.summary()
        heavy = sorted(n for n in ("pandas", "pyarrow", "numpy", "tqdm") if n in sys.modules)
        print(heavy)
        """
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


@pytest.mark.parametrize("out", [[], ["--out", "{tmp}/out"]], ids=["summary", "out-csv"])
def test_cli_run_imports_neither_pandas_nor_pyarrow(tmp_path, out):
    """`airtcp run`, and with --out its CSV tables (the default format):
    pandas and pyarrow are for DataFrames and Parquet only (issue 12)."""
    args = [a.format(tmp=tmp_path) for a in out]
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "airtcp", "run", "examples/dumbbell.toml", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    if out:
        assert (tmp_path / "out" / "flows.csv").stat().st_size > 0
    imported = {m.group(1).strip() for m in re.finditer(r"\|\s*([\w.]+)\s*$", p.stderr, re.M)}
    assert "airtcp._core" in imported
    assert not imported & {"pandas", "pyarrow", "numpy", "tqdm"}


def test_cli_run_out_parquet_imports_pyarrow_not_pandas(tmp_path):
    """Parquet needs pyarrow, not pandas: the tables are made from the
    core's buffers (pyarrow.array of a list would import pandas)."""
    p = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "airtcp", "run", "examples/dumbbell.toml"]
        + ["--out", str(tmp_path / "out"), "--format", "parquet"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    imported = {m.group(1).strip() for m in re.finditer(r"\|\s*([\w.]+)\s*$", p.stderr, re.M)}
    assert "pyarrow.parquet" in imported and "pandas" not in imported
    assert (tmp_path / "out" / "flows.parquet").stat().st_size > 0


def test_summary_without_pandas_matches_the_dataframes(wireless):
    # The summary is made from plain columns; its numbers are the tables'.
    r = airtcp.run_many(wireless, [1, 2, 3], workers=2, progress=False)
    mean = r.flows.groupby("flow").goodput_bps.mean()[0]
    assert f"{mean / 1e6:.3f}" in r.summary()
    assert r.columns["flows"]["seed"] == [1, 2, 3]


def test_readme_example_runs_at_the_top_level_of_a_script(tmp_path):
    # The README's example as written (fewer seeds), no __main__ guard.
    code = doc_blocks("README.md", "python")[0]
    assert "run_many" in code and "__main__" not in code
    code = code.replace("range(1, 101)", "range(1, 5)").replace('"examples/', f'"{REPO}/examples/')
    script = tmp_path / "example.py"
    script.write_text(code)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "goodput_bps" in p.stdout and "Traceback" not in p.stderr


def test_threads_cancel_pending_and_running_tasks():
    started, returned, finished = [], [], []

    def task(k, check):
        started.append(k)
        for _ in range(10_000):
            check()  # a running task stops at its next check
        returned.append(k)
        return k

    # on_result raising KeyboardInterrupt cancels the batch; the tasks that
    # finished all the same are handed over, each once.
    def on_result(i, v):
        assert v == i + 1
        finished.append(v)
        raise KeyboardInterrupt

    interrupted = run_in_threads(list(range(50)), lambda k, check: task(k + 1, check), 2, on_result)
    assert interrupted
    assert sorted(finished) == sorted(returned) and len(started) < 50

    def bad(k, check):
        raise ValueError("from a task")

    try:
        run_in_threads([0, 1], bad, 2, lambda i, v: None)
    except ValueError:
        pass  # an exception in a task is raised to the caller
    else:
        raise AssertionError("a task's exception must reach the caller")
    assert issubclass(Cancelled, Exception)


def test_a_failing_task_stops_the_rest_but_what_finished_is_handed_over_first():
    """Issue 12, "Ctrl-C still keeps what finished", for a task's error
    (campaign/execute.py's promise: an error is raised "once the batches
    that finished are reported"): task 1 is running when task 0 fails and
    returns after the failure is known; it is handed over, then the error
    is raised; tasks 2-7 stop at their first check or never start."""
    failed = threading.Event()
    returned, handed = [], []

    def fn(k, check):
        if k == 0:
            failed.set()
            raise ValueError("task 0 fails")
        if k == 1:
            assert failed.wait(60)
            time.sleep(0.3)  # the main thread meets the error meanwhile
            returned.append(k)
            return k
        while True:
            check()  # stopped by the cancellation

    with pytest.raises(ValueError, match="task 0 fails"):
        run_in_threads(list(range(8)), fn, 2, lambda i, v: handed.append(v))
    assert returned == [1] and handed == [1]


def test_load_then_run_builds_once_and_other_seeds_still_work(wireless):
    sc = airtcp.load(wireless)
    a = airtcp.run(sc)  # the world built while loading
    b = airtcp.run(sc)  # a fresh one
    c = airtcp.run(sc, seed=sc.seed)
    # NaN (e.g. mean_first_rto_s of a flow without timeouts) equals itself.
    from airtcp.bench import same_columns

    for r in (b, c):
        assert same_columns(r.columns, a.columns)
    assert not same_columns(airtcp.run(sc, seed=2).columns, a.columns)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("how", ["sigint", "raised"])
def test_a_task_finished_but_not_yet_handed_over_at_ctrl_c_is_kept(how):
    """Issue 12, "Ctrl-C still keeps what finished": task 1 has returned
    while the main thread is still busy with task 0's result when Ctrl-C
    comes (a real SIGINT, or a KeyboardInterrupt raised by on_result): task
    1 is handed over all the same; the tasks still waiting never start."""
    second_done = threading.Event()
    started, returned, handed = [], [], []

    def task(k, check):
        started.append(k)
        if k == 1:
            returned.append(k)
            second_done.set()
            return k
        if k >= 2:
            while True:
                check()  # stopped by the interrupt
        returned.append(k)
        return k

    def on_result(i, v):
        handed.append(v)
        if v == 0:
            assert second_done.wait(60)
            while len(returned) < 2:  # appended before the event: already there
                pass
            if how == "sigint":
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):  # Python runs the handler between bytecodes
                    pass
            else:
                raise KeyboardInterrupt

    # One worker: task 1 starts once task 0 has returned, and tasks 2-4 wait.
    # Task 0 is handed over first; task 1 returns while on_result(0) waits.
    def fn(k, check):
        return task(k, check)

    assert run_in_threads(list(range(5)), fn, 1, on_result)
    assert handed == [0, 1]
    assert returned == [0, 1] and max(started) <= 2
