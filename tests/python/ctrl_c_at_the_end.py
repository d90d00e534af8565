"""Ctrl-C once every run has finished, while the last is handed over,
without timing: a progress bar that sends this process a real SIGINT when
its count reaches its total.

As a script, ``python ctrl_c_at_the_end.py ARGS...`` runs ``airtcp
ARGS...`` with that bar for run_many and sweeps, and exits with the CLI's
status."""

import os
import signal
import sys


class SigintAtTheEnd:
    """Stands in for tqdm: ``update`` sends SIGINT once ``initial`` plus
    the updates reach ``total``."""

    def __init__(self, total, initial=0, **_):
        self.total, self.n = total, initial

    def update(self, n=1):
        self.n += n
        if self.n == self.total:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # Python runs the handler between bytecodes
                pass

    def close(self):
        pass


if __name__ == "__main__":
    from airtcp import api, cli
    from airtcp.campaign import sweep

    api._bar = sweep._bar = lambda disable=False, **kwargs: SigintAtTheEnd(**kwargs)
    sys.exit(cli.main(sys.argv[1:]))
