"""Ctrl-C while a run has finished on its thread but is not yet handed over
(issue 12, "Ctrl-C still keeps what finished"), without timing: run_many's
progress bar (``api._bar``) holds the first run handed over until two runs
(or more) have finished, notes which, and sends this process a real SIGINT.

As a script, ``python ctrl_c_after_two_runs.py NOTED ARGS...`` runs
``airtcp ARGS...`` so, writes the runs finished at the SIGINT to NOTED and
every run finished to NOTED.all, and exits with the CLI's status."""

import os
import signal
import sys
import threading


class Watch:
    def __init__(self, api):
        self.real = api._core.run
        self.finished: list[int] = []  # seeds, in the order they finished
        self.at_sigint: list[int] = []
        self.two = threading.Event()

    def run(self, scenario, seed, progress, *observe):
        d = self.real(scenario, seed, progress, *observe)
        self.finished.append(seed)
        if len(self.finished) == 2:
            self.two.set()
        return d

    def bar(self, **_):
        return self

    def update(self, n=1):
        if self.at_sigint:
            return
        assert self.two.wait(120)
        self.at_sigint.extend(self.finished)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # Python runs the handler between bytecodes
            pass

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
    for path, seeds in ((sys.argv[1], w.at_sigint), (sys.argv[1] + ".all", w.finished)):
        with open(path, "w") as f:
            f.write(" ".join(map(str, seeds)))
    sys.exit(code)
