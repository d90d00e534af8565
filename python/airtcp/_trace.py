"""The per-packet trace as Parquet: the writer the simulator streams into,
and :func:`read_trace`.

The simulator hands the trace over in batches of columns (raw little-endian
buffers; names as dictionary indices), each turned here into an Arrow record
batch and appended to the Parquet file, so memory stays constant whatever
the run's length. The columns are documented in docs/results.md. pyarrow is
imported only when a trace is written or read.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

#: Dictionary index meaning "missing" (the core's NULL_INDEX).
NULL_INDEX = 2**32 - 1

_NUMPY_TYPES = {
    "double": "<f8",
    "uint64": "<u8",
    "uint32": "<u4",
    "uint16": "<u2",
    "uint8": "u1",
    "bool": "?",
}


def _array(kind: str, data: Any):
    import numpy as np
    import pyarrow as pa

    if kind in _NUMPY_TYPES:
        return pa.array(np.frombuffer(data, dtype=_NUMPY_TYPES[kind]))
    if kind == "dict":
        raw, names = data
        idx = np.frombuffer(raw, dtype="<u4")
        missing = idx == NULL_INDEX
        indices = pa.array(np.where(missing, 0, idx).astype("int32"), mask=missing)
        return pa.DictionaryArray.from_arrays(indices, pa.array(names, pa.string()))
    if kind == "ranges":
        offsets, starts, ends = data
        pairs = pa.StructArray.from_arrays(
            [pa.array(np.frombuffer(starts, "<u8")), pa.array(np.frombuffer(ends, "<u8"))],
            names=["start", "end"],
        )
        return pa.ListArray.from_arrays(pa.array(np.frombuffer(offsets, "<u4").astype("int32")), pairs)
    raise ValueError(f"unknown trace column kind {kind!r}")


class ParquetTraceWriter:
    """Appends the simulator's trace batches to a Parquet file (one row group
    per batch).

    The file is created here, before the run, so that one that cannot be
    is reported before anything is simulated. Its errors are Python's
    OSError naming the file (``[Errno 2] No such file or directory:
    'trace.parquet'``), not pyarrow's "Failed to open local file ...
    Detail: ..."."""

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self._writer = None
        self.rows = 0
        self._file = open(self.path, "wb")  # noqa: SIM115 (closed by close())

    @contextlib.contextmanager
    def _named(self):
        """pyarrow's OSError as Python's, naming the file. The first error
        ends the trace (the simulator writes no more), so the file is
        closed here."""
        try:
            yield
        except OSError as e:
            self._writer = None
            with contextlib.suppress(OSError):
                self._file.close()
            if not e.errno:
                raise
            raise OSError(e.errno, os.strerror(e.errno), self.path) from None

    def write(self, columns: list[tuple[str, str, Any]]) -> None:
        """Append one batch, given as (name, kind, data) per column."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = [_array(kind, data) for _, kind, data in columns]
        batch = pa.RecordBatch.from_arrays(arrays, names=[name for name, _, _ in columns])
        with self._named():
            if self._writer is None:
                self._writer = pq.ParquetWriter(self._file, batch.schema)
            self._writer.write_batch(batch)
        self.rows += batch.num_rows

    def close(self) -> None:
        with self._named():
            try:
                if self._writer is not None:
                    self._writer.close()
                    self._writer = None
            finally:
                self._file.close()


def read_trace(path: str | os.PathLike, sort: bool = True):
    """Read a per-packet trace written by a run (``[trace]``, ``--trace``,
    ``run(trace=...)``) as a pandas DataFrame.

    Rows are stored in the order the simulator decided them (a packet's
    ``dequeue``, computed when it is enqueued, follows its ``enqueue``);
    ``sort=True`` sorts them by ``time_s``, keeping that order among equal
    times. Name columns (``event``, ``node``, ``link``, ``flow``, ``packet``,
    ``cause``) are pandas categoricals.

    >>> import airtcp
    >>> t = airtcp.read_trace("trace.parquet")          # doctest: +SKIP
    >>> t[(t.event == "drop")].groupby("cause").size()   # doctest: +SKIP
    """
    import errno

    import pyarrow.parquet as pq

    path = os.fspath(path)
    if os.path.isdir(path):
        # pyarrow reads a directory as a dataset: an empty one ended in KeyError: 'time_s'.
        raise IsADirectoryError(errno.EISDIR, "a trace is a Parquet file, not a directory", path)
    df = pq.read_table(path).to_pandas()
    if "time_s" not in df.columns:
        raise ValueError(f"{path}: not a per-packet trace of airtcp (no time_s column)")
    if sort:
        df = df.sort_values("time_s", kind="stable", ignore_index=True)
    return df
