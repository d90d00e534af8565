"""Simulations on native threads: the core releases the GIL while it
builds and simulates, so threads run in parallel without processes (no
``__main__`` guard, no per-worker imports, nothing pickled)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, TypeVar

T = TypeVar("T")


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
    finishes (in completion order). ``check`` raises :class:`Cancelled` once
    the batch is cancelled: pass it as the progress callback of
    ``_core.run`` so that a running simulation stops within a simulated
    second. On KeyboardInterrupt (Ctrl-C, or raised by ``on_result``) the
    batch is cancelled: tasks not started never start, running ones stop;
    returns True. An exception raised by a task cancels the rest and is
    raised here.
    """
    stop = threading.Event()

    def check(*_):
        if stop.is_set():
            raise Cancelled

    def job(k: int):
        check()
        return fn(tasks[k], check)

    interrupted = False
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="airtcp")
    try:
        futures = {pool.submit(job, k): k for k in range(len(tasks))}
        for fut in as_completed(futures):
            on_result(futures[fut], fut.result())
    except KeyboardInterrupt:
        interrupted = True
    finally:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
    return interrupted
