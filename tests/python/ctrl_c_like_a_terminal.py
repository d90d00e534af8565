"""``python ctrl_c_like_a_terminal.py ARGS...`` runs ``airtcp ARGS...``
(a sweep with ``--dask local``) and, when the first run is handed over,
sends SIGINT to its whole process group, as a terminal's Ctrl-C does: the
LocalCluster's processes get it too. No timing: the signal comes from the
progress bar, and each worker process runs the first batch it gets and
holds every later one until it closes (``dask_setup``, a preload added
to the cluster's), so exactly two batches (on two workers) ever finish.
Start it in a session of its own (``start_new_session``), or the signal
reaches whatever started it."""

import os
import signal
import sys
import threading

from ctrl_c_at_the_end import SigintAtTheEnd


class SigintToTheGroupAtTheFirst(SigintAtTheEnd):
    def update(self, n=1):
        self.n += n
        if self.n == n:
            os.killpg(os.getpgrp(), signal.SIGINT)
            for _ in range(1000):  # Python runs the handler between bytecodes
                pass


CLOSING = threading.Event()


def dask_setup(worker):
    """In a worker process: the first batch runs, later ones wait until
    the worker closes."""
    from airtcp.campaign import execute

    real, started = execute.run_batch, []

    def run_batch(batch, check=None):
        started.append(batch)
        if len(started) > 1:
            CLOSING.wait()
            return []
        return real(batch, check)

    execute.run_batch = run_batch


def dask_teardown(worker):
    CLOSING.set()


if __name__ == "__main__":
    assert os.getpgrp() == os.getpid(), "start me in a session of my own"
    import distributed

    from airtcp import cli
    from airtcp.campaign import sweep

    local_cluster = distributed.LocalCluster

    def cluster(*args, preload=(), **kwargs):
        return local_cluster(*args, preload=[*preload, "ctrl_c_like_a_terminal"], **kwargs)

    distributed.LocalCluster = cluster
    sweep._bar = lambda disable=False, **kwargs: SigintToTheGroupAtTheFirst(**kwargs)
    sys.exit(cli.main(sys.argv[1:]))
