"""Bulk access to files made of fixed-size records, through the dtype derived from their declaration."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .errors import TruncatedError

if TYPE_CHECKING:
    import construct as cs
    import numpy as np

__all__ = ["record_array", "record_count"]


def record_array(
    data: Any,
    record: cs.Construct,
    *,
    file: str | os.PathLike[str] | None = None,
    label: str = "record",
    path: str = "records",
    offset: int = 0,
) -> np.ndarray[Any, Any]:
    """View ``data`` (bytes, mmap, memoryview) as an array of ``record``\\ s, without copying.

    A partial record at the end is a :class:`TruncatedError` naming the record and its offset.
    """
    import numpy as np

    from .layout import numpy_dtype

    count = record_count(len(data) - offset, record, file=file, label=label, path=path, offset=offset)
    return np.frombuffer(data, dtype=numpy_dtype(record), count=count, offset=offset)


def record_count(
    size: int,
    record: cs.Construct | int,
    *,
    file: str | os.PathLike[str] | None = None,
    label: str = "record",
    path: str = "records",
    offset: int = 0,
) -> int:
    """How many ``record``\\ s ``size`` bytes (starting at ``offset`` of the file) hold; a partial record at the
    end is a :class:`TruncatedError` naming the record and its offset. ``record`` is the declaration or its size
    (quick readers, which import neither numpy nor construct)."""
    record_size = record if isinstance(record, int) else int(record.sizeof())
    count, rest = divmod(size, record_size)
    if rest:
        at = offset + count * record_size
        raise TruncatedError(f"truncated {label} {count}", needed=record_size, available=rest,
                             file=file, offset=at, path=f"{path}[{count}]", show_path=False)
    return count
