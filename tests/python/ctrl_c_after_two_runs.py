"""Ctrl-C while a run has finished on its thread but is not yet handed over
(issue 12, "Ctrl-C still keeps what finished"), and another is midway,
without timing: run_many's progress bar (``api._bar``) holds the first run
handed over until two runs (or more) have finished and another has passed
a simulated second since (it is held there, its files open, until the
SIGINT has been sent), notes which, and sends this process a real SIGINT.

As a script, ``python ctrl_c_after_two_runs.py NOTED ARGS...`` runs
``airtcp ARGS...`` so, writes the runs finished at the SIGINT to NOTED,
every run finished to NOTED.all, the runs held midway to NOTED.midway and
every run started to NOTED.started, and exits with the CLI's status."""

import os
import signal
import sys
import threading


class Watch:
    def __init__(self, api):
        self.real = api._core.run
        self.started: list[int] = []  # seeds, in the order they started
        self.finished: list[int] = []  # seeds, in the order they finished
        self.at_sigint: list[int] = []
        self.two = threading.Event()
        self.midway: list[int] = []  # seeds held midway until the SIGINT
        self.one_midway = threading.Event()
        self.sent = threading.Event()

    def run(self, scenario, seed, progress, *observe):
        self.started.append(seed)

        def held(t):
            if len(self.finished) >= 2 and not self.sent.is_set():
                if seed not in self.midway:
                    self.midway.append(seed)
                self.one_midway.set()
                assert self.sent.wait(120)
            return progress(t)

        d = self.real(scenario, seed, None if progress is None else held, *observe)
        self.finished.append(seed)
        if len(self.finished) == 2:
            self.two.set()
        return d

    def bar(self, **_):
        return self

    def update(self, n=1):
        if self.at_sigint:
            return
        assert self.two.wait(120) and self.one_midway.wait(120)
        self.at_sigint.extend(self.finished)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # Python runs the handler between bytecodes
            pass
        self.sent.set()

    def close(self):
        pass


def watch(api, setattr=setattr) -> Watch:
    """Install the watch on ``api`` (``setattr``: pytest's monkeypatch.setattr)."""
    w = Watch(api)
    setattr(api._core, "run", w.run)
    setattr(api, "_bar", w.bar)
    return w


if __name__ == "__main__":
    from airtcp import api, cli

    w = watch(api)
    code = cli.main(sys.argv[2:])
    noted = sys.argv[1]
    for path, seeds in ((noted, w.at_sigint), (noted + ".all", w.finished), (noted + ".midway", w.midway), (noted + ".started", w.started)):
        with open(path, "w") as f:
            f.write(" ".join(map(str, seeds)))
    sys.exit(code)
