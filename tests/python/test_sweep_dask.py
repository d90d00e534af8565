"""Issue 15: sweeps and reproductions on Dask (a LocalCluster of 2 worker
processes) give exactly the rows of the local run, also when a worker is
killed in the middle; airtcp reproduce NAME --dask local works."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import psutil
import pytest

import airtcp
from airtcp.campaign.store import JOURNAL
from airtcp.experiments.run import reproduce
from conftest import run_cli
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
