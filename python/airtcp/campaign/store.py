"""A campaign's results on disk: Parquet tables written in committed parts,
so that every run is stored exactly once whatever stops the campaign
(Ctrl-C, ``kill -9``, a lost worker, a full disk).

Layout of a store directory ROOT::

    ROOT/.lock                        held (flock) by the one process writing;
                                      there only while it writes
    ROOT/_journal.jsonl               one line per committed part
    ROOT/TABLE/part-000017.parquet    the part's rows of TABLE

A *task* (one run) is identified by a key string. It is done when a line
of the journal lists it. Committing a part of finished tasks:

1. write each table's rows to a hidden file ``TABLE/.part-000017.parquet``
   and fsync it;
2. append the journal line (the part number, its task keys, the row count
   and SHA-256 of each table's file) with a single ``write()`` on a file
   opened O_APPEND, and fsync it: this is the commit;
3. rename the hidden files to their final names.

A process killed at any point leaves either no journal line for the part
(its hidden files are deleted when the store is next opened for writing,
and its tasks run again) or a whole line (its files are renamed at the
next opening if the kill came before step 3). When the store is opened, a
journal line that is cut short, malformed, repeats a part or a task, or
whose files are missing, hold another number of rows or fail their SHA-256
(damaged, or edited in place) is dropped with a warning (its files are
deleted), so its tasks run again: a bad record is re-run, never trusted.

Only one process writes a store at a time: opening it for writing takes an
exclusive lock on ``ROOT/.lock`` (released by the kernel if the process
dies, even by SIGKILL); a second writer waits a few seconds and then gets
:class:`StoreBusy`. The writer removes ``.lock`` when it closes the store
(finished or interrupted), before releasing it; one that a killed process
left holds nothing and is taken by the next writer. Readers (:meth:`Store.read`, ``--status``) take no lock
and see the committed parts only; tools that read ``ROOT/TABLE`` as a
Parquet dataset (pandas, pyarrow, DuckDB, Spark) skip the hidden files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import threading
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

JOURNAL = "_journal.jsonl"
LOCK = ".lock"


class StoreError(Exception):
    """A store that cannot be used; ``str()`` is one line."""


class StoreBusy(StoreError):
    """Another process is writing the store."""


class StoreWarning(UserWarning):
    """A bad record was dropped (its runs will run again)."""


@contextlib.contextmanager
def sigint_deferred():
    """Hold Ctrl-C (SIGINT) until the block is done, then raise
    KeyboardInterrupt: a commit is either made and recorded in memory, or
    not made. (Python raises KeyboardInterrupt between any two bytecodes;
    one between the journal write and its bookkeeping would commit the
    same runs twice.) Only the main thread receives signals; elsewhere, and
    when already deferred, this does nothing."""
    if (
        threading.current_thread() is not threading.main_thread()
        or getattr(sigint_deferred, "active", False)
        or not callable(signal.getsignal(signal.SIGINT))  # ignored, or not set from Python
    ):
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    sigint_deferred.active = True
    try:
        yield
    finally:
        sigint_deferred.active = False
        signal.signal(signal.SIGINT, previous)
    if caught:
        previous(signal.SIGINT, None)  # Python's default raises KeyboardInterrupt


def _same_file(fd: int, path: str) -> bool:
    """Whether the open file ``fd`` is the file now at ``path``."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


def _part_name(part: int) -> str:
    return f"part-{part:06d}.parquet"


@dataclass
class Part:
    """A committed part: its number, tasks and rows per table."""

    part: int
    tasks: list[str]
    rows: dict[str, int]
    sha256: dict[str, str] = field(default_factory=dict)  # of each table's file

    def line(self) -> bytes:
        rec = {"part": self.part, "tasks": self.tasks, "rows": self.rows, "sha256": self.sha256}
        return (json.dumps(rec, separators=(",", ":")) + "\n").encode()


class Store:
    """The parts of one store directory. Open with :func:`open_store` (to
    write) or :func:`read_store` (to read)."""

    def __init__(self, root: str | os.PathLike, tables: Sequence[str]):
        self.root = os.fspath(root)
        self.tables = tuple(tables)
        self.parts: list[Part] = []
        self.done: set[str] = set()
        self.dropped = 0  # bad journal lines dropped when loading
        self._lock_fd: int | None = None
        self._journal_fd: int | None = None

    # -- paths

    def _file(self, table: str, part: int, hidden: bool = False) -> str:
        return os.path.join(self.root, table, ("." if hidden else "") + _part_name(part))

    def _existing_file(self, table: str, part: int) -> str | None:
        for hidden in (False, True):
            path = self._file(table, part, hidden)
            if os.path.exists(path):
                return path
        return None

    def _part_bytes(self, table: str, part: int) -> bytes | None:
        """A part file's bytes, under its final or its hidden name (a
        writer may rename it between the two looks: look again)."""
        for _ in range(2):
            path = self._existing_file(table, part)
            if path is None:
                return None
            try:
                with open(path, "rb") as f:
                    return f.read()
            except FileNotFoundError:
                continue
        return None

    # -- loading

    def _load(self, repair: bool) -> None:
        """Read the journal and check every part; with ``repair`` (the
        lock held), roll committed parts forward, delete what no good
        line names and rewrite the journal without the bad lines."""
        self.parts, self.done, self.dropped = [], set(), 0
        path = os.path.join(self.root, JOURNAL)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        lines = data.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        bad: list[str] = []
        if tail.strip() and repair:
            # (A reader may see a line being written: not news.)
            bad.append("a journal line cut short (the process was killed while committing)")
        seen_parts: set[int] = set()
        for raw in complete:
            if not raw.strip():
                continue
            part, why = self._check_line(raw, seen_parts)
            if part is None:
                bad.append(why)
                continue
            seen_parts.add(part.part)
            self.parts.append(part)
            self.done.update(part.tasks)
        self.dropped = len(bad)
        for why in bad:
            warnings.warn(f"{self.root}: dropped {why}; its runs will run again", StoreWarning, stacklevel=4)
        if repair:
            self._repair(rewrite=bool(bad) or bool(tail))

    def _check_line(self, raw: bytes, seen_parts: set[int]) -> tuple[Part | None, str]:
        try:
            rec = json.loads(raw)
            part = Part(int(rec["part"]), list(rec["tasks"]), dict(rec["rows"]), dict(rec["sha256"]))
        except (ValueError, KeyError, TypeError):
            return None, "a malformed journal line"
        if part.part < 0 or part.part in seen_parts:
            return None, f"part {part.part}: a repeated or negative part number"
        if not part.tasks or not all(isinstance(t, str) for t in part.tasks) or len(set(part.tasks)) != len(part.tasks):
            return None, f"part {part.part}: a malformed task list"
        if any(t in self.done for t in part.tasks):
            return None, f"part {part.part}: runs already stored by an earlier part"
        for table, n in part.rows.items():
            if table not in self.tables or not isinstance(n, int) or n < 0:
                return None, f"part {part.part}: an unknown table or row count ({table!r}: {n!r})"
            if n == 0:
                continue
            data = self._part_bytes(table, part.part)
            if data is None:
                return None, f"part {part.part}: its {table} file is missing"
            if hashlib.sha256(data).hexdigest() != part.sha256.get(table):
                return None, f"part {part.part}: its {table} file does not match its SHA-256 (damaged or edited)"
            try:
                import pyarrow as pa
                import pyarrow.parquet as pq

                rows = pq.read_metadata(pa.BufferReader(data)).num_rows
            except Exception as e:  # not Parquet (written by something else)
                return None, f"part {part.part}: its {table} file is unreadable ({type(e).__name__})"
            if rows != n:
                return None, f"part {part.part}: its {table} file holds {rows} rows, the journal says {n}"
        return part, ""

    def _repair(self, rewrite: bool) -> None:
        good = {p.part: p for p in self.parts}
        for table in self.tables:
            d = os.path.join(self.root, table)
            if not os.path.isdir(d):
                continue
            for name in os.listdir(d):
                hidden = name.startswith(".")
                base = name[1:] if hidden else name
                if not (base.startswith("part-") and base.endswith(".parquet")):
                    continue
                try:
                    number = int(base[len("part-") : -len(".parquet")])
                except ValueError:
                    continue
                path = os.path.join(d, name)
                p = good.get(number)
                if p is None or p.rows.get(table, 0) == 0:
                    os.remove(path)  # not committed: its tasks run again
                elif hidden:
                    final = self._file(table, number)
                    if os.path.exists(final):
                        os.remove(path)
                    else:
                        os.replace(path, final)  # committed before the kill: roll forward
        if rewrite:
            tmp = os.path.join(self.root, "." + JOURNAL + ".tmp")
            with open(tmp, "wb") as f:
                f.write(b"".join(p.line() for p in self.parts))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, os.path.join(self.root, JOURNAL))

    # -- locking

    def _lock(self, wait_s: float) -> None:
        import fcntl

        os.makedirs(self.root, exist_ok=True)
        path = os.path.join(self.root, LOCK)
        deadline = time.monotonic() + wait_s
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.read(fd, 200).decode(errors="replace").strip()
                    os.close(fd)
                    raise StoreBusy(
                        f"{self.root} is being written by another process"
                        + (f" ({holder})" if holder else "")
                        + "; wait for it to finish, or choose another output directory"
                    ) from None
                os.close(fd)
                time.sleep(0.1)
                continue
            # The writer we waited for removed the file before releasing
            # it (close()): a lock on a file no longer at `path` is no
            # lock, since the next writer creates a new one. Take the one
            # that is there.
            if _same_file(fd, path):
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(
            fd, f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode()
        )
        self._lock_fd = fd

    def holder(self) -> str | None:
        """Who writes the store now (for --status), or None. Reads the lock
        file and tests the lock without taking it."""
        import fcntl

        path = os.path.join(self.root, LOCK)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            try:
                # A shared lock conflicts only with the writer's exclusive
                # one; released at once.
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return None
            except BlockingIOError:
                return os.read(fd, 200).decode(errors="replace").strip() or "another process"
        finally:
            os.close(fd)

    # -- writing

    def commit(self, tasks: Sequence[str], tables: Mapping[str, Any]) -> Part:
        """Store the rows of finished ``tasks`` (pyarrow Tables by name) as
        one part (see the module docstring). Tasks already stored are an
        error: the caller runs each task once. Ctrl-C waits until the
        commit is done."""
        with sigint_deferred():
            return self._commit(tasks, tables)

    def _commit(self, tasks: Sequence[str], tables: Mapping[str, Any]) -> Part:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._lock_fd is None:
            raise StoreError(f"{self.root}: the store is not open for writing")
        tasks = list(tasks)
        again = [t for t in tasks if t in self.done]
        if again or len(set(tasks)) != len(tasks):
            raise StoreError(f"{self.root}: runs stored twice: {again[:3]}")
        number = self.parts[-1].part + 1 if self.parts else 0
        rows: dict[str, int] = {}
        digests: dict[str, str] = {}
        hidden: list[tuple[str, str]] = []
        for table, data in tables.items():
            if table not in self.tables:
                raise StoreError(f"{self.root}: unknown table {table!r}")
            rows[table] = data.num_rows
            if data.num_rows == 0:
                continue
            buf = pa.BufferOutputStream()
            pq.write_table(data, buf)
            raw = buf.getvalue()
            digests[table] = hashlib.sha256(raw).hexdigest()
            os.makedirs(os.path.join(self.root, table), exist_ok=True)
            path = self._file(table, number, hidden=True)
            with open(path, "wb") as f:
                f.write(raw)
                f.flush()
                os.fsync(f.fileno())
            hidden.append((path, self._file(table, number)))
        part = Part(number, tasks, rows, digests)
        if self._journal_fd is None:
            self._journal_fd = os.open(os.path.join(self.root, JOURNAL), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(self._journal_fd, part.line())  # the commit: one write
        os.fsync(self._journal_fd)
        for src, dst in hidden:
            os.replace(src, dst)
        self.parts.append(part)
        self.done.update(tasks)
        return part

    def close(self) -> None:
        """Release the journal and the lock."""
        if self._journal_fd is not None:
            os.close(self._journal_fd)
            self._journal_fd = None
        if self._lock_fd is not None:
            # Removed while still held, so that a finished directory holds
            # only results, and a writer waiting on this file sees it gone
            # and opens the next (_lock). One left by a killed process
            # holds nothing: the lock went with the process.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self.root, LOCK))
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading

    def read(self, table: str, schema=None, tasks: set[str] | None = None):
        """Every committed row of ``table`` as one pyarrow Table, in commit
        order (``schema``: the table's schema, used when it has no rows).
        With ``tasks``, only the parts that hold one of them are read (the
        caller picks their rows: a part may hold other tasks too)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = []
        for p in self.parts:
            if p.rows.get(table, 0) and (tasks is None or not tasks.isdisjoint(p.tasks)):
                data = self._part_bytes(table, p.part)
                if data is None:
                    raise StoreError(f"{self.root}: part {p.part} of {table} vanished while reading")
                parts.append(pq.read_table(pa.BufferReader(data)))
        if not parts:
            return schema.empty_table() if schema is not None else pa.table({})
        return pa.concat_tables(parts, promote_options="default") if len(parts) > 1 else parts[0]


def open_store(root: str | os.PathLike, tables: Iterable[str], wait_s: float = 1.0) -> Store:
    """Open ``root`` for writing: take the lock (StoreBusy if another
    process holds it after ``wait_s``), load and repair the journal."""
    s = Store(root, tuple(tables))
    s._lock(wait_s)
    try:
        s._load(repair=True)
    except BaseException:
        s.close()
        raise
    return s


def read_store(root: str | os.PathLike, tables: Iterable[str]) -> Store:
    """Open ``root`` for reading: its committed parts, no lock, no repair."""
    s = Store(root, tuple(tables))
    s._load(repair=False)
    return s


class Committer:
    """Collects finished runs and commits them about every ``every_s``
    seconds (and on :meth:`flush`), so that a kill loses at most that much
    work while parts stay few. ``make_tables(pending)`` turns the pending
    [(key, value)] into the part's pyarrow Tables."""

    def __init__(self, store: Store, make_tables, every_s: float = 1.0):
        self.store = store
        self.make_tables = make_tables
        self.every_s = every_s
        self.pending: list[tuple[str, Any]] = []
        self.last = time.monotonic()

    def add(self, key: str, value: Any) -> None:
        self.pending.append((key, value))
        if time.monotonic() - self.last >= self.every_s:
            self.flush()

    def flush(self) -> None:
        with sigint_deferred():  # committed and cleared, or neither
            self.last = time.monotonic()
            if self.pending:
                self.store.commit([k for k, _ in self.pending], self.make_tables(self.pending))
                self.pending = []
