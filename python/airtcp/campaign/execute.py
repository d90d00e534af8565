"""Running a campaign's runs: batches of seeds of one scenario, on local
threads (the default) or on a Dask cluster.

A batch is a :class:`Batch`: a scenario's TOML text, the (key, seed) of
each run, and a module-level function that turns a run's result dict into
what the caller stores (so that it travels to Dask workers by name). Every
backend runs the same :func:`run_batch`, so a run's result is the same bit
for bit on threads, on a LocalCluster or on a remote cluster.

Threads need nothing: the simulator releases the GIL. Dask is imported
only when asked for (``dask="local"``, an address such as
``"tcp://host:8786"``, or a ``distributed.Client``); a worker lost in the
middle of a batch (killed, out of memory) makes Dask run the batch again
elsewhere, and the caller stores each run once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import __build__, _core
from .._threads import default_workers


class DaskMissing(RuntimeError):
    """``dask=`` was given but Dask distributed is not installed."""


@dataclass(frozen=True)
class Batch:
    """Runs of one scenario: ``items`` are (key, seed); ``extract(result
    dict, *args)`` makes each run's stored value."""

    text: str
    source_name: str
    items: tuple[tuple[str, int], ...]
    extract: Callable[..., Any]
    args: tuple = ()


def run_batch(batch: Batch, check: Callable[..., None] | None = None) -> list[tuple[str, Any]]:
    """Load the batch's scenario once (building the world for its first
    seed) and run each seed; return [(key, extract(result, *args))].
    ``check`` is the simulations' progress callback (cancellation)."""
    sc = _core.load(batch.text, batch.source_name, batch.items[0][1])
    return [(key, batch.extract(_core.run(sc, seed, check), *batch.args)) for key, seed in batch.items]


def batches_of(items: Sequence[Any], parallel: int, cap: int = 25) -> list[Sequence[Any]]:
    """Split ``items`` (runs of one scenario) into batches: about eight
    per worker for load balance, at most ``cap`` runs each (what a Ctrl-C
    can lose per worker)."""
    size = max(1, min(cap, len(items) // (parallel * 8) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def describe(dask: Any, workers: int | None) -> str:
    """Where runs go, for messages: "4 threads", "a Dask LocalCluster"..."""
    if dask is None:
        n = workers or default_workers()
        return f"{n} thread" + ("s" if n != 1 else "")
    if dask == "local":
        n = workers or default_workers()
        return f"a Dask LocalCluster of {n} worker" + ("s" if n != 1 else "")
    if isinstance(dask, str):
        return f"the Dask scheduler at {dask}"
    return "a Dask cluster"


def run_batches(
    batches: Sequence[Batch],
    on_result: Callable[[int, list[tuple[str, Any]]], None],
    workers: int | None = None,
    dask: Any = None,
) -> bool:
    """Run every batch; call ``on_result(index, results)`` on this thread as
    each finishes (in completion order). Returns True if interrupted by
    Ctrl-C (or a KeyboardInterrupt raised by ``on_result``): pending
    batches never start and running ones stop (on Dask: are cancelled);
    every batch that finished has been reported, once, even one not yet
    collected at the interrupt. An interrupt that comes once every batch
    has been reported stopped nothing: False. An error in a batch stops
    the rest and is raised (also one found after an interrupt, once the
    batches that finished are reported)."""
    if not batches:
        return False
    if dask is not None:
        return _run_on_dask(batches, on_result, workers, dask)
    n = max(1, min(workers or default_workers(), len(batches)))
    if n == 1:
        reported = 0
        try:
            for i, b in enumerate(batches):
                results = run_batch(b)
                reported += 1  # before on_result: a KeyboardInterrupt it raises counts it reported
                on_result(i, results)
        except KeyboardInterrupt:
            return reported < len(batches)
        return False
    from .._threads import run_in_threads

    return run_in_threads(batches, run_batch, n, on_result)


def parallelism(workers: int | None, dask: Any) -> int:
    """How many batches run at once (for batch sizes); a remote cluster's
    size is unknown before connecting, so assume a few dozen."""
    if dask is None or dask == "local":
        return workers or default_workers()
    return workers or 32


# --------------------------------------------------------------------------
# Dask


def _on_worker(batch: Batch, client_build: str) -> list[tuple[str, Any]]:
    """A batch on a Dask worker: the same airtcp as the client, or a clear
    error (a different simulator could give different results)."""
    if __build__ != client_build:
        raise RuntimeError(
            f"this Dask worker runs airtcp {__build__}, the client airtcp {client_build}: "
            "install the same airtcp on every worker"
        )
    return run_batch(batch)


class ArgumentError(ValueError):
    """A campaign argument out of range: ``dask=`` a string that is
    neither "local" nor a scheduler address Dask can connect to, or
    ``workers`` below 1 or above what a LocalCluster may start."""


def require_dask(dask: Any) -> None:
    """Raise DaskMissing now (before anything is written) if ``dask`` asks
    for Dask and it is not installed, and ArgumentError if it is a
    string Dask cannot take for an address (it raised a ValueError, or an
    OverflowError for a port above 65535, from deep inside Client)."""
    if dask is None:
        return
    _import_distributed()
    if isinstance(dask, str) and dask != "local":
        _check_address(dask)


def check_workers(workers: Any, dask: Any = None) -> None:
    """``workers`` is None or a positive int (0, -1 or 2.5 were taken for
    the default or for 1, silently). For a LocalCluster, at most the cores
    here: each worker is a single-threaded process running simulations, so
    more add only memory, and 10^6 of them would be started one by one."""
    if workers is None:
        return
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be an int, not {type(workers).__name__}")
    if workers < 1:
        raise ArgumentError(f"workers must be at least 1, got {workers}")
    if dask == "local" and workers > default_workers():
        raise ArgumentError(
            f"--workers {workers} with --dask local: at most {default_workers()}, the cores here "
            "(each LocalCluster worker is a single-threaded process; more add only memory)"
        )


def _check_address(address: str) -> None:
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    expected = "expected 'local' or a scheduler address such as tcp://HOST:8786"
    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls"):
            host, port = parse_host_port(location)
            if not 0 < port < 65536:
                raise ValueError(f"port {port} is not in 1..65535")
    except (ValueError, TypeError) as e:
        raise ArgumentError(f"--dask {address!r}: {expected} ({e})") from None


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise DaskMissing("--dask needs Dask distributed: pip install 'airtcp[dask]'") from None
    return distributed


def connect(dask: Any, workers: int | None):
    """(client, cluster we started or None) for ``dask``: "local" starts a
    LocalCluster of ``workers`` single-threaded processes (which ignore
    Ctrl-C, see below); a string is a scheduler
    address; a Client is used as is; a cluster object gets a client."""
    distributed = _import_distributed()
    if isinstance(dask, distributed.Client):
        return dask, None
    if dask == "local":
        import logging

        from .._threads import _sigint_calls

        # SIGINT ignored while the cluster starts its processes, so that
        # they inherit that: a terminal's Ctrl-C goes to the whole process
        # group, and a worker it killed would take the results of the
        # batches it finished with it (the client, asking for them, would
        # wait for ever); the client alone acts on Ctrl-C. A Ctrl-C while
        # the cluster starts (a second or two) is not seen.
        with _sigint_calls(signal.SIG_IGN):
            cluster = distributed.LocalCluster(
                n_workers=workers or default_workers(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # No dashboard, but the scheduler still serves its HTTP
                # routes (health, metrics), by default on port 8787: a
                # second local sweep on the machine then warned "Port 8787
                # is already in use". A free port, on loopback only.
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                silence_logs=logging.ERROR,
                preload=[__name__],  # dask_setup below, in a worker its nanny starts again too
            )
        try:
            return distributed.Client(cluster), cluster
        except BaseException:
            cluster.close()
            raise
    if isinstance(dask, str):
        try:
            _answers(dask, SCHEDULER_TIMEOUT_S)
            return distributed.Client(dask, timeout=SCHEDULER_TIMEOUT_S), None
        except OSError as e:
            raise OSError(f"cannot reach the Dask scheduler at {dask}: {e}") from None
    if hasattr(dask, "scheduler_address"):
        return distributed.Client(dask), None
    raise TypeError(f"dask must be 'local', a scheduler address or a distributed.Client, not {type(dask).__name__}")


#: Seconds a scheduler address has to answer (docs/sweeps.md: "given up
#: after 30 s").
SCHEDULER_TIMEOUT_S = 30.0


def _answers(address: str, timeout_s: float) -> None:
    """Raise OSError unless a Dask scheduler at ``address`` completes
    Dask's handshake within ``timeout_s``. distributed's Client bounds the
    TCP connection by its timeout but then waits for the handshake reply
    without one, so a peer that accepts and never answers (a wrong port, a
    tunnel whose far end is gone) held it for ever. The probe runs in a
    thread of its own (the caller may have a running event loop, as in
    Jupyter); its wait is bounded, so the thread ends."""
    import asyncio

    import distributed.client
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    # The credentials the Client will use (its own rule: a configured
    # security loader, else Dask's configuration), so that a tls:// address
    # is probed as the Client connects.
    loader = getattr(distributed.client, "_maybe_call_security_loader", lambda address: None)
    args = (loader(address) or Security()).get_connection_args("client")

    async def probe() -> None:
        try:
            comm = await asyncio.wait_for(open_comm(address, timeout=timeout_s, **args), timeout_s)
        except TimeoutError:
            raise OSError(f"no answer in {timeout_s:g} s") from None
        await comm.close()

    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(probe())
        except BaseException as e:  # handed to the caller
            failed.append(e)

    thread = threading.Thread(target=run, name="airtcp-dask-probe", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


def dask_setup(worker: Any) -> None:
    """A LocalCluster's worker (a Dask preload, run as it starts, also when
    its nanny starts it again): Ctrl-C is for the client, as in
    :func:`connect`."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_on_dask(
    batches: Sequence[Batch],
    on_result: Callable[[int, list[tuple[str, Any]]], None],
    workers: int | None,
    dask: Any,
) -> bool:
    """Batches on Dask; on Ctrl-C (or a KeyboardInterrupt raised by
    ``on_result``) every batch whose future has already finished is still
    handed to ``on_result``, once, and only then are the others cancelled
    (a batch running on a worker cannot be stopped there, so it is not
    waited for); a batch the client knows failed is then raised, as the
    threads raise a task's error after Ctrl-C. While this runs on the main
    thread with Python's own SIGINT handler, Ctrl-C raises only while
    waiting for the next batch; elsewhere (a hand-over, a commit) it is
    noted and acted on after it, so it cannot land between a batch's
    result and its hand-over."""
    from .._threads import _sigint_calls

    distributed = _import_distributed()
    client, cluster = connect(dask, workers)
    owned = client is not dask
    interrupted = [False]
    waiting = [False]
    handed = [0]
    futures: dict[Any, int] = {}  # submitted and not yet handed over

    def interrupt(*_):
        interrupted[0] = True
        if waiting[0]:
            raise KeyboardInterrupt

    def hand_over(fut) -> None:
        result = fut.result()  # a batch's error is raised here
        k = futures.pop(fut)  # before on_result: at most once, even if it raises
        fut.release()
        handed[0] += 1
        on_result(k, result)

    try:
        with _sigint_calls(interrupt):
            try:
                # A window of submitted batches, refilled as they finish,
                # keeps the scheduler's queue (and the client's memory)
                # small on big sweeps.
                window = max(64, 4 * len(client.scheduler_info().get("workers", {})))
                pending = iter(range(len(batches)))
                done = distributed.as_completed()

                def submit(k: int) -> None:
                    fut = client.submit(_on_worker, batches[k], __build__, pure=False)
                    futures[fut] = k
                    done.add(fut)

                for k in pending:
                    submit(k)
                    if len(futures) >= window:
                        break
                while futures and not interrupted[0]:
                    waiting[0] = True
                    fut = next(done)
                    waiting[0] = False
                    if fut in futures:
                        hand_over(fut)
                    nxt = None if interrupted[0] else next(pending, None)
                    if nxt is not None:
                        submit(nxt)
            except KeyboardInterrupt:
                interrupted[0] = True
            finally:
                waiting[0] = False
            if interrupted[0]:
                # What finished is kept: the batches already done (as far
                # as the client knows), in the order they were submitted;
                # then the first that failed is raised, as on threads.
                done_now = sorted(futures, key=futures.get)
                for fut in done_now:
                    if fut.status == "finished":
                        try:
                            hand_over(fut)
                        except KeyboardInterrupt:  # from on_result: counts as handed over
                            pass
                failed = next((f for f in done_now if f.status == "error"), None)
                if failed is not None:
                    failed.result()  # raises the batch's error
    finally:
        if futures:
            client.cancel(list(futures))
        if owned:
            client.close()
        if cluster is not None:
            cluster.close()
    return interrupted[0] and handed[0] < len(batches)
