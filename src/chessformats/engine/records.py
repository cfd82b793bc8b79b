"""Bulk access to files made of fixed-size records, through the dtype derived from their declaration."""

from __future__ import annotations

import bisect
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .errors import TruncatedError

if TYPE_CHECKING:
    import construct as cs
    import numpy as np

__all__ = ["locate_item", "record_array", "record_count"]


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


def locate_item(starts: Sequence[int], index: int, *, file: str, label: str) -> tuple[int, int]:
    """``(part, number in the part)`` of item ``index`` of a file stored in parts (pages, blocks) whose first items
    are numbered ``starts`` (the total last); a negative ``index`` counts from the end, as a list's.

    Raises :class:`IndexError` naming the file and the valid range.
    """
    total = starts[-1]
    if index < 0:
        index += total
    if not 0 <= index < total:
        raise IndexError(f"{os.path.basename(file)}: no {label} {index} ({label}s are 0..{total - 1})")
    part = bisect.bisect_right(starts, index) - 1
    return part, index - starts[part]
