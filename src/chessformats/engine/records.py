"""Bulk access to files made of fixed-size records, through the dtype derived from their declaration."""

from __future__ import annotations

import os
from typing import Any

import construct as cs
import numpy as np

from .errors import TruncatedError
from .layout import numpy_dtype

__all__ = ["RecordArray", "record_array"]

RecordArray = np.ndarray[Any, Any]


def record_array(
    data: Any,
    record: cs.Construct,
    *,
    file: str | os.PathLike[str] | None = None,
    label: str = "record",
    path: str = "records",
    offset: int = 0,
) -> RecordArray:
    """View ``data`` (bytes, mmap, memoryview) as an array of ``record``\\ s, without copying.

    A partial record at the end is a :class:`TruncatedError` naming the record and its offset.
    """
    dtype = numpy_dtype(record)
    size = len(data) - offset
    count, rest = divmod(size, dtype.itemsize)
    if rest:
        at = offset + count * dtype.itemsize
        raise TruncatedError(f"truncated {label} {count}", needed=dtype.itemsize, available=rest,
                             file=file, offset=at, path=f"{path}[{count}]", show_path=False)
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset)
