"""Simulations on native threads: the core releases the GIL while it
builds and simulates, so threads run in parallel without processes (no
``__main__`` guard, no per-worker imports, nothing pickled)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TypeVar

T = TypeVar("T")


def default_workers() -> int:
    """The cores this process may run on: its CPU affinity, which taskset,
    containers and batch schedulers (a Slurm job's cgroup) narrow, so that
    a job given 2 of a node's 64 cores runs 2 threads, not 64 contending
    for 2. Where there is no affinity call (macOS, Windows), every core."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:
        return os.cpu_count() or 1


class Cancelled(Exception):
    """Raised inside a task (by its ``check``) once the batch is cancelled."""


def run_in_threads(
    tasks: Sequence[T],
    fn: Callable[[T, Callable[..., None]], Any],
    workers: int,
    on_result: Callable[[int, Any], None],
) -> bool:
    """Run ``fn(task, check)`` for every task on ``workers`` threads.

    ``on_result(index, value)`` is called on the calling thread as each task
    finishes (in completion order), once for every task that finished.
    ``check`` raises :class:`Cancelled` once the batch is cancelled: pass it
    as the progress callback of ``_core.run`` so that a running simulation
    stops within a simulated second. On Ctrl-C, or a KeyboardInterrupt
    raised by ``on_result``, the batch is cancelled: tasks not started
    never start, running ones stop, and every task that finished (before
    the interrupt, or after it and before its next ``check``) is still
    handed to ``on_result`` before this returns True. (Ctrl-C sets the
    cancellation instead of raising while this runs on the main thread
    with Python's own SIGINT handler, so that it cannot land between a
    task's end and its hand-over. A KeyboardInterrupt raised by
    ``on_result`` counts that task as handed over.) An interrupt that comes
    once every task has been handed over stopped nothing: this returns
    False, as if it had come after. An exception raised by a task cancels
    the rest as an interrupt does, and is raised here once every task that
    finished has been handed over (the first one, if several tasks fail):
    a campaign keeps the runs that finished beside a failing one.
    """
    cancelled = [False]  # plain flags: set from a signal handler too
    interrupted = [False]
    handed = 0
    first_error: BaseException | None = None  # raised once the finished are handed over

    def check(*_):
        if cancelled[0]:
            raise Cancelled

    def job(k: int):
        check()
        return fn(tasks[k], check)

    def interrupt(*_):
        interrupted[0] = cancelled[0] = True

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="airtcp")
    try:
        with _sigint_calls(interrupt):
            futures = [pool.submit(job, k) for k in range(len(tasks))]
            index = {fut: k for k, fut in enumerate(futures)}
            remaining = set(futures)
            while remaining:
                try:
                    for fut in as_completed(remaining):
                        remaining.discard(fut)
                        error = None if fut.cancelled() else fut.exception()
                        if error is not None and not isinstance(error, Cancelled):
                            if first_error is None:
                                first_error = error
                            cancelled[0] = True
                        if cancelled[0]:
                            for f in remaining:
                                f.cancel()  # not started: never will
                        if fut.cancelled() or error is not None:
                            continue
                        handed += 1
                        on_result(index[fut], fut.result())
                except KeyboardInterrupt:
                    # From on_result, or a Ctrl-C with another SIGINT
                    # handler: stop the rest, and collect what finished.
                    interrupt()
    finally:
        cancelled[0] = True
        pool.shutdown(wait=True, cancel_futures=True)
    if first_error is not None:
        raise first_error
    return interrupted[0] and handed < len(tasks)


@contextlib.contextmanager
def _sigint_calls(handler: Callable[..., None]):
    """While the block runs, Ctrl-C (SIGINT) calls ``handler`` instead of
    raising KeyboardInterrupt, if this is the main thread and Python's own
    handler is installed (anything else is left as it is)."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
