"""Tables of any format through Apache Arrow: record batches to a table, a DataFrame or a Parquet file.

Format-agnostic: a format gives an iterator of :class:`pyarrow.RecordBatch` (its rows a few thousand at a time);
this module turns it into what the user asked for. pyarrow (and pandas for :func:`to_pandas`) is the optional
extra ``chessformats[arrow]``; it is imported when a table is first asked for, never by ``import chessformats``,
and its absence is an :class:`ImportError` that names the extra.

:func:`write_parquet` writes batch after batch (``pyarrow.parquet.ParquetWriter``), so the memory it needs is that
of one batch whatever the number of rows; the file is written atomically (a temporary file renamed at the end).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .fileio import atomic_write

__all__ = ["EXTRA", "Tabular", "arrow", "batches_to_table", "string_column", "to_pandas", "to_polars", "write_parquet"]

EXTRA = "chessformats[arrow]"
"""The optional extra that installs pyarrow and pandas."""


def arrow() -> Any:
    """The :mod:`pyarrow` module; an :class:`ImportError` naming the extra when it is not installed."""
    try:
        import pyarrow
    except ImportError as error:
        raise ImportError(f"tables need pyarrow: pip install '{EXTRA}' (or pip install pyarrow)") from error
    return pyarrow


def batches_to_table(batches: Iterable[Any], schema: Any = None) -> Any:
    """A :class:`pyarrow.Table` of record batches (``schema``: the table's when there is no batch)."""
    pa = arrow()
    collected = list(batches)
    if not collected and schema is None:
        return pa.table({})
    return pa.Table.from_batches(collected, schema=schema)


def to_pandas(table: Any) -> Any:
    """A table as a :class:`pandas.DataFrame` (an :class:`ImportError` naming the extra without pandas)."""
    try:
        import pandas  # noqa: F401 - pyarrow's to_pandas needs it
    except ImportError as error:
        raise ImportError(f"DataFrames need pandas: pip install '{EXTRA}' (or pip install pandas)") from error
    return table.to_pandas()


def to_polars(table: Any) -> Any:
    """A table as a polars DataFrame (``polars.from_arrow``: no copy for most columns); polars is not part of the
    extra."""
    try:
        import polars
    except ImportError as error:
        raise ImportError("polars DataFrames need polars: pip install polars") from error
    return polars.from_arrow(table)


def write_parquet(batches: Iterable[Any], path: str | os.PathLike[str], *, schema: Any = None,
                  compression: str = "zstd", progress: Callable[[int], None] | None = None) -> int:
    """Write record batches to a Parquet file, one row group per batch, in the memory of one batch; returns the
    rows written. ``schema``: the file's (default: the first batch's; required when there may be no batch).
    ``progress(rows)``: called after each batch. Atomic: a failure leaves ``path`` as it was."""
    pa = arrow()
    import pyarrow.parquet as pq

    rows = 0
    iterator: Iterator[Any] = iter(batches)
    first = next(iterator, None)
    if schema is None:
        schema = first.schema if first is not None else pa.schema([])
    with atomic_write(path) as handle, pq.ParquetWriter(handle, schema, compression=compression) as writer:
        for batch in itertools.chain(() if first is None else (first,), iterator):
            writer.write_batch(batch)
            rows += batch.num_rows
            if progress is not None:
                progress(rows)
    return rows


def string_column(lengths: Any, data: Any, valid: Any = None) -> Any:
    """A pyarrow string array from numpy: each row's length in bytes (``lengths``) and the bytes of every row one
    after the other (``data``, uint8); ``valid``: False for a null row (its length 0). No Python object is made per
    row."""
    import numpy as np

    pa = arrow()
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if int(offsets[-1]) >= 2**31:
        raise ValueError("a string column of more than 2 GiB in one batch: use smaller batches")
    validity = None if valid is None or bool(np.all(valid)) else pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.string(), len(lengths), buffers)


class Tabular:
    """``to_arrow``, ``to_pandas`` and ``to_polars`` for a reader that gives its rows as record batches
    (``iter_batches(**options)``) of a known schema (``table_schema(**options)``); the options are the reader's
    (``san=True`` for a ChessBase base ...)."""

    iter_batches: Callable[..., Iterator[Any]]
    table_schema: Callable[..., Any]

    def to_arrow(self, **options: Any) -> Any:
        """Every row as one :class:`pyarrow.Table` (the batches of :meth:`iter_batches`, held in memory: for a
        file larger than memory, write the batches to Parquet with :func:`write_parquet`)."""
        return batches_to_table(self.iter_batches(**options), self.table_schema(**options))

    def to_pandas(self, **options: Any) -> Any:
        """Every row as a :class:`pandas.DataFrame`."""
        return to_pandas(self.to_arrow(**options))

    def to_polars(self, **options: Any) -> Any:
        """Every row as a polars DataFrame (``polars.from_arrow``; polars is not installed by the extra)."""
        return to_polars(self.to_arrow(**options))
