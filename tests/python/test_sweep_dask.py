"""Issue 15: sweeps and reproductions on Dask (a LocalCluster of 2 worker
processes) give exactly the rows of the local run, also when a worker is
killed in the middle; airtcp reproduce NAME --dask local works."""

import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import psutil
import pytest

import airtcp
from airtcp.campaign.store import JOURNAL
from airtcp.experiments.run import reproduce
from conftest import EXAMPLES, REPO, run_cli
from test_sweep import BASE, SWEEP, counts, same_results, write

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def test_sweep_on_a_local_cluster_with_a_worker_killed_gives_the_rows_of_the_local_run(tmp_path):
    # 4 points x 8 seeds, about 0.1 s a run: a few seconds on 2 workers.
    fast = BASE.format(duration="30s").replace('"2Mbps"', '"50Mbps"').replace('"10Mbps"', '"100Mbps"')
    table = SWEEP.format(runs=8).replace("[0.01, 0.05]", "[0.0001, 0.001]")
    path = write(tmp_path, fast.replace("[[flow]]\n", "[[flow]]\ncount = 8\n") + table)
    out = tmp_path / "dask"
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "sweep", str(path), "--out", str(out), "--dask", "local", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        # Once runs are being stored, SIGKILL one worker process (a child
        # the LocalCluster spawned); its nanny starts another and Dask runs
        # the lost batch again.
        journal = out / JOURNAL
        deadline = time.time() + 120
        while time.time() < deadline and p.poll() is None and not (journal.exists() and journal.stat().st_size):
            time.sleep(0.02)
        workers = [c for c in psutil.Process(p.pid).children(recursive=True) if "spawn_main" in " ".join(c.cmdline())]
        assert p.poll() is None and len(workers) == 2, (p.poll(), workers)
        stored_before = journal.read_text().count('"tasks"')
        workers[0].send_signal(signal.SIGKILL)
        stdout, stderr = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0, stderr
    assert "32 runs (32 simulated on a Dask LocalCluster of 2 workers" in stdout
    on_dask = airtcp.load_results(out)
    assert on_dask.complete and len(counts(on_dask)) == 32 and (counts(on_dask) == 1).all()
    assert stored_before < len(on_dask._store.parts)  # the kill came before the end
    same_results(on_dask, airtcp.sweep(path, out=tmp_path / "threads", workers=2, progress=False))


def test_reproduce_on_a_local_cluster_equals_the_threaded_run(tmp_path):
    r = run_cli("reproduce", "kick", "--runs", "1", "--out", tmp_path / "dask", "--dask", "local", "--workers", "2")
    assert r.returncode == 0, r.stderr
    assert "30 runs (30 simulated, 0 from the cache)" in r.stdout and "Claims" in r.stdout
    local = reproduce("kick", runs=1, out=tmp_path / "threads", workers=2, progress=False, write=False)
    on_dask = pd.read_parquet(tmp_path / "dask" / "runs.parquet")
    assert on_dask.drop(columns="wall_s").equals(local.runs.drop(columns="wall_s"))
    assert "on a Dask LocalCluster of 2 workers" in (tmp_path / "dask" / "report.md").read_text()


def test_a_local_cluster_leaves_port_8787_alone(tmp_path):
    """Two local sweeps at once (two users, or a sweep and a
    reproduction): the LocalCluster has no dashboard, and its scheduler's
    HTTP routes take a free port, not Dask's default 8787, so a second one
    says nothing about it (it warned "Port 8787 is already in use", three
    lines on stderr). The port is held here, as another cluster would."""
    import socket

    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("", 8787))
        holder.listen()
    except OSError:
        pass  # already in use by something else: the same test
    try:
        path = write(tmp_path, BASE.format(duration="1s") + SWEEP.format(runs=1))
        r = run_cli("sweep", path, "--out", tmp_path / "o", "--dask", "local", "--workers", "1", "-q")
    finally:
        holder.close()
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_a_scheduler_address_that_never_answers_is_given_up(tmp_path, monkeypatch):
    """docs/sweeps.md: "A scheduler that does not answer is given up after
    30 s, in one line". A peer that accepts the connection and never
    speaks (a wrong port, a tunnel whose far end is gone) held the sweep
    for ever: distributed's Client bounds the TCP connection by its timeout
    but not the wait for the handshake's reply. Here the bound is 1 s; the
    listener's backlog completes the connection, nothing ever answers."""
    import socket

    from airtcp.campaign import execute

    monkeypatch.setattr(execute, "SCHEDULER_TIMEOUT_S", 1.0, raising=False)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    outcome = []

    def sweep():
        try:
            airtcp.sweep(EXAMPLES / "sweep.toml", out=tmp_path / "o", runs=1, dask=address, progress=False)
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            outcome.append(e)

    waiting = threading.Thread(target=sweep, daemon=True)
    waiting.start()
    waiting.join(60)
    listener.close()
    assert not waiting.is_alive(), "still waiting for the scheduler after 60 s"
    assert [type(e) for e in outcome] == [OSError], outcome
    assert str(outcome[0]) == f"cannot reach the Dask scheduler at {address}: no answer in 1 s"


def test_without_dask_installed_the_error_says_what_to_install(tmp_path):
    path = write(tmp_path, BASE.format(duration="1s") + SWEEP.format(runs=1))
    code = (
        "import sys; sys.modules['distributed'] = None; from airtcp.cli import main; "
        f"sys.exit(main(['sweep', {str(path)!r}, '--out', {str(tmp_path / 'o')!r}, '--dask', 'local', '-q']))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr == "airtcp: --dask needs Dask distributed: pip install 'airtcp[dask]'\n"
    assert not (tmp_path / "o").exists()  # checked before anything is written


@pytest.fixture
def in_process_client():
    """A Dask client of one in-process worker with two threads: batches
    run in this process, so a test can hold them and watch them."""
    import logging

    import distributed

    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None, silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


class HoldAfterTwo:
    """``execute.run_batch`` for the test: the first two batches to start
    run (``real``, or return their items) and finish; every later one is
    held until ``release`` (it is running on the worker at Ctrl-C, or
    waiting). ``submit`` wraps the client's to find each batch's future."""

    def __init__(self, client, real=None):
        import distributed

        self.distributed, self.real_submit, self.real = distributed, client.submit, real
        self.lock, self.started, self.release = threading.Lock(), [], threading.Event()
        self.two_started = threading.Event()
        self.futures = {}  # batch items -> future

    def run_batch(self, batch, check=None):
        with self.lock:
            self.started.append(batch.items)
            held = len(self.started) > 2
            if len(self.started) == 2:
                self.two_started.set()
        if held:
            assert self.release.wait(120)
            return []
        return self.real(batch) if self.real else list(batch.items)

    def submit(self, fn, batch, *args, **kwargs):
        fut = self.real_submit(fn, batch, *args, **kwargs)
        # A future of our own: the caller releases its own once handed over.
        self.futures[batch.items] = self.distributed.Future(fut.key, fut.client)
        return fut

    def batches(self, monkeypatch, n=6):
        """Install this on ``execute`` and the client; ``n`` batches of one
        item each (``k<i>``, ``i``)."""
        from airtcp.campaign import execute

        monkeypatch.setattr(execute, "run_batch", self.run_batch)
        monkeypatch.setattr(self.real_submit.__self__, "submit", self.submit)
        return [execute.Batch("", f"b{i}", ((f"k{i}", i),), str) for i in range(n)]

    def wait_two_finished(self):
        """Until the client knows that the first two batches are done."""
        assert self.two_started.wait(120)
        first_two = [self.futures[items] for items in self.started[:2]]
        self.distributed.wait(first_two, timeout=120)
        assert all(f.status == "finished" for f in first_two)


def interrupt(how):
    if how == "raised":
        raise KeyboardInterrupt
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(1000):  # Python runs the handler between bytecodes
        pass


@pytest.mark.parametrize("how", ["sigint", "raised"])
def test_on_dask_a_batch_finished_but_not_yet_handed_over_at_ctrl_c_is_kept(in_process_client, monkeypatch, how):
    """Issue 12, "Ctrl-C still keeps what finished", on Dask: the second
    batch has finished on the worker (and the client knows it) while
    on_result is still busy with the first when Ctrl-C comes (a real
    SIGINT, or a KeyboardInterrupt raised by on_result). Both are handed
    over, each once; the batches held on the worker are not waited for."""
    from airtcp.campaign import execute

    hold = HoldAfterTwo(in_process_client)
    batches = hold.batches(monkeypatch)
    handed = []

    def on_result(k, results):
        handed.append((k, results))
        if len(handed) == 1:
            hold.wait_two_finished()
            interrupt(how)

    try:
        interrupted = execute.run_batches(batches, on_result, workers=2, dask=in_process_client)
    finally:
        hold.release.set()
    first_two = sorted(int(items[0][0][1:]) for items in hold.started[:2])
    assert interrupted
    assert sorted(handed) == [(k, [(f"k{k}", k)]) for k in first_two]


def test_on_dask_ctrl_c_while_batches_run_does_not_wait_for_them(in_process_client, monkeypatch):
    """Ctrl-C once the two batches that finished are handed over, the
    others held on the worker (running or waiting): run_batches returns
    at once (the held batches are released only after it returns), having
    handed over the two, each once."""
    from airtcp.campaign import execute

    hold = HoldAfterTwo(in_process_client)
    monkeypatch.setattr(execute, "run_batch", hold.run_batch)
    batches = [execute.Batch("", f"b{i}", ((f"k{i}", i),), str) for i in range(6)]
    handed, both = [], threading.Event()

    def on_result(k, results):
        handed.append(k)
        if len(handed) == 2:
            both.set()

    def ctrl_c():
        assert both.wait(120)
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=ctrl_c)
    sender.start()
    try:
        interrupted = execute.run_batches(batches, on_result, workers=2, dask=in_process_client)
    finally:
        hold.release.set()
        sender.join()
    assert interrupted
    assert sorted(handed) == sorted(int(items[0][0][1:]) for items in hold.started[:2])


def test_sweep_on_dask_keeps_every_run_finished_at_ctrl_c_and_resumes(in_process_client, tmp_path, monkeypatch):
    """`airtcp.sweep(..., dask=client)`, a real SIGINT while the progress
    bar takes the first finished run and the second has finished on the
    worker: both are stored, once, with the documented RuntimeWarning;
    running the sweep again stores the rest, giving the rows of a sweep on
    threads."""
    from airtcp.campaign import execute, sweep

    fast = BASE.format(duration="30s").replace('"2Mbps"', '"50Mbps"').replace('"10Mbps"', '"100Mbps"')
    path = write(tmp_path, fast + SWEEP.format(runs=2))  # 4 points x 2 seeds, a batch each
    hold = HoldAfterTwo(in_process_client, real=execute.run_batch)
    monkeypatch.setattr(execute, "run_batch", hold.run_batch)
    monkeypatch.setattr(in_process_client, "submit", hold.submit)

    class Bar:
        updates = 0

        def update(self, n=1):
            Bar.updates += 1
            if Bar.updates == 1:
                hold.wait_two_finished()
                interrupt("sigint")

        def close(self):
            pass

    monkeypatch.setattr(sweep, "_bar", lambda **_: Bar())
    out = tmp_path / "dask"
    try:
        with pytest.warns(RuntimeWarning, match=r"^interrupted: 2 of 8 runs are stored in "):
            r = airtcp.sweep(path, out=out, workers=2, dask=in_process_client, progress=False)
    finally:
        hold.release.set()
    assert r.interrupted and r.executed == 2
    stored = airtcp.load_results(out)
    assert stored._store.done == {key for items in hold.started[:2] for key, _ in items}
    assert (counts(stored) == 1).all() and len(counts(stored)) == 2
    monkeypatch.undo()
    resumed = airtcp.sweep(path, out=out, workers=2, progress=False)
    assert resumed.complete and resumed.executed == 6 and (counts(resumed) == 1).all()
    same_results(resumed, airtcp.sweep(path, out=tmp_path / "threads", workers=2, progress=False))


class FailSecond(HoldAfterTwo):
    """The first batch to start finishes; the second fails once the first
    has been handed over (``first_handed``); later ones are held."""

    def __init__(self, client):
        super().__init__(client)
        self.first_handed = threading.Event()

    def run_batch(self, batch, check=None):
        with self.lock:
            self.started.append(batch.items)
            k = len(self.started)
            if k == 2:
                self.two_started.set()
        if k == 2:
            assert self.first_handed.wait(120)
            raise RuntimeError(f"batch {batch.items[0][0]} failed")
        if k > 2:
            assert self.release.wait(120)
            return []
        return list(batch.items)

    def wait_second_failed(self):
        """Until the client knows that the second batch failed."""
        assert self.two_started.wait(120)
        second = self.futures[self.started[1]]
        self.distributed.wait([second], timeout=120)
        assert second.status == "error"


@pytest.mark.parametrize("how", ["sigint", "raised"])
def test_on_dask_a_batch_failed_but_not_yet_collected_at_ctrl_c_is_raised(in_process_client, monkeypatch, how):
    """Ctrl-C (a real SIGINT, or a KeyboardInterrupt raised by on_result)
    while the first batch is handed over and the second has failed on the
    worker (the client knows it): the failure is raised, as the threads
    raise a task's error that comes after Ctrl-C, after the batches that
    finished were handed over; it is not passed over as if the batch had
    been cancelled."""
    from airtcp.campaign import execute

    hold = FailSecond(in_process_client)
    batches = hold.batches(monkeypatch)
    handed = []

    def on_result(k, results):
        handed.append(k)
        hold.first_handed.set()
        hold.wait_second_failed()
        interrupt(how)

    try:
        with pytest.raises(RuntimeError, match=r"^batch k\d failed$") as raised:
            execute.run_batches(batches, on_result, workers=2, dask=in_process_client)
    finally:
        hold.release.set()
    first, second = (int(items[0][0][1:]) for items in hold.started[:2])
    assert handed == [first] and str(raised.value) == f"batch k{second} failed"


@pytest.mark.parametrize("how", ["sigint", "raised"])
def test_on_dask_ctrl_c_once_every_batch_is_handed_over_stops_nothing(in_process_client, monkeypatch, how):
    """Ctrl-C while the last batch is handed over: nothing was stopped,
    so run_batches says it was not interrupted (as on threads)."""
    from airtcp.campaign import execute

    monkeypatch.setattr(execute, "run_batch", lambda batch, check=None: list(batch.items))
    batches = [execute.Batch("", f"b{i}", ((f"k{i}", i),), str) for i in range(3)]
    handed = []

    def on_result(k, results):
        handed.append(k)
        if len(handed) == len(batches):
            interrupt(how)

    assert execute.run_batches(batches, on_result, workers=2, dask=in_process_client) is False
    assert sorted(handed) == [0, 1, 2]


def test_cli_ctrl_c_on_a_local_cluster(tmp_path):
    """`airtcp sweep --dask local`, Ctrl-C as a terminal sends it (SIGINT
    to the whole process group: the LocalCluster's worker processes get it
    too) when the first run is handed over, each worker having finished
    one batch and holding the next: exit 130, the one message with the
    command that resumes, nothing else on stderr (no worker's traceback),
    the runs that finished stored once each, and no wait for a worker
    killed with the results of the batch it finished (before the fix the
    workers died, the client waited for ever for the second result).
    Resuming on threads stores the rest, giving the rows of a sweep on
    threads."""
    fast = BASE.format(duration="30s").replace('"2Mbps"', '"50Mbps"').replace('"10Mbps"', '"100Mbps"')
    path = write(tmp_path, fast + SWEEP.format(runs=2))  # 4 points x 2 seeds, a batch each
    out = tmp_path / "dask"
    command = ["sweep", str(path), "--out", str(out), "--workers", "2", "--dask", "local"]
    p = subprocess.run(
        [sys.executable, REPO / "tests" / "python" / "ctrl_c_like_a_terminal.py", *command, "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    stored = airtcp.load_results(out)
    k = len(counts(stored))
    assert p.returncode == 130, p.stderr
    assert p.stderr == (
        f"airtcp: interrupted; {k} of 8 runs are stored in {out}.\n"
        f"Run the same command again to resume: airtcp {' '.join(command[:-2])} --dask local\n"
    )
    assert k in (1, 2) and (counts(stored) == 1).all()
    resumed = airtcp.sweep(path, out=out, workers=2, progress=False)
    assert resumed.complete and resumed.executed == 8 - k and (counts(resumed) == 1).all()
    same_results(resumed, airtcp.sweep(path, out=tmp_path / "threads", workers=2, progress=False))
