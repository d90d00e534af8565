"""The lock of a store (a sweep's DIR, a reproduction's OUT/cache;
docs/sweeps.md, "The output directory"): ``.lock`` is there only while a
process writes the store. It is removed when the writer finishes, whether
it completed or was interrupted, so a finished output directory holds
only results; a second writer is still refused while the first runs, and
one that was waiting for the lock gets it for itself alone. A ``.lock``
left by a process that was killed holds nothing (the lock is the
kernel's, and went with the process): the next writer takes it, and
removes it when done.
"""

import threading
import time

import pytest

import airtcp
from airtcp.campaign.store import LOCK, StoreBusy, open_store
from airtcp.experiments import kick
from airtcp.experiments.run import reproduce
from airtcp.experiments.runner import STORE_DIR
from conftest import EXAMPLES, run_cli

TABLES = ("runs",)


def test_a_finished_sweep_leaves_no_lock(tmp_path):
    out = tmp_path / "out"
    r = run_cli("sweep", EXAMPLES / "sweep.toml", "--runs", "1", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    assert (out / "summary.csv").exists() and not (out / LOCK).exists()


def test_a_finished_reproduction_leaves_no_lock(tmp_path):
    r = run_cli("reproduce", "kick", "--runs", "1", "--out", tmp_path, "-q")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "report.md").exists() and not (tmp_path / STORE_DIR / LOCK).exists()


def test_an_interrupted_reproduction_leaves_no_lock(tmp_path):
    exp = kick.EXPERIMENT.with_cells([{"fading": "fast", "size_kb": 10}])
    rep = reproduce(exp, runs=2, out=tmp_path, workers=1, progress=False, interrupt_after=1)
    assert rep.interrupted  # a Ctrl-C after the first run
    assert (tmp_path / STORE_DIR).is_dir() and not (tmp_path / STORE_DIR / LOCK).exists()


def test_the_lock_is_there_while_a_writer_holds_it(tmp_path):
    with open_store(tmp_path, TABLES):
        assert (tmp_path / LOCK).read_text().startswith("pid ")
        with pytest.raises(StoreBusy, match="being written by another process"):
            open_store(tmp_path, TABLES, wait_s=0.2)
    assert not (tmp_path / LOCK).exists()


def test_a_waiting_writer_gets_the_lock_for_itself_when_the_first_finishes(tmp_path):
    """The first writer removes .lock and then releases it; the second,
    which opened that file while waiting, must not take a lock on a file
    no one else can see (a third writer would make a new .lock and write
    the store at the same time)."""
    first = open_store(tmp_path, TABLES)
    second = {}

    def wait_for_it():
        second["store"] = open_store(tmp_path, TABLES, wait_s=30)

    t = threading.Thread(target=wait_for_it)
    t.start()
    time.sleep(0.5)  # the second writer is waiting on the first's .lock
    first.close()
    t.join(30)
    store = second["store"]
    try:
        assert (tmp_path / LOCK).exists()
        with pytest.raises(StoreBusy):
            open_store(tmp_path, TABLES, wait_s=0.3)
    finally:
        store.close()
    assert not (tmp_path / LOCK).exists()


def test_a_lock_file_left_by_a_killed_writer_blocks_nothing(tmp_path):
    out = tmp_path / "out"
    assert run_cli("sweep", EXAMPLES / "sweep.toml", "--runs", "1", "--out", out, "-q").returncode == 0
    (out / LOCK).write_text("pid 4242 on elsewhere since 2026-01-01 00:00:00\n")  # as kill -9 leaves it
    st = run_cli("sweep", "--status", out)
    assert "not being written now" in st.stdout, st.stdout + st.stderr
    r = run_cli("sweep", EXAMPLES / "sweep.toml", "--runs", "2", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    assert airtcp.load_results(out).complete and not (out / LOCK).exists()
