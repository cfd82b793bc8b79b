"""The attack tables of the chess-level readers: :mod:`chessformats.kernel.tables` under their old home (the
readers that bind them as module globals import them from here or from the kernel; there is one set)."""

from __future__ import annotations

from ..kernel import tables as _tables
from ..kernel.tables import *  # noqa: F403

__all__ = _tables.__all__
