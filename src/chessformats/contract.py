"""The contract every format keeps: ``from chessformats import contract``. See :mod:`chessformats.engine.contract`."""

from .engine.contract import (
    BookMove,
    BookPosition,
    ClosedError,
    GameCollection,
    OpeningBook,
    Skipped,
    WriteReport,
    WriteWarning,
)

__all__ = ["BookMove", "BookPosition", "ClosedError", "GameCollection", "OpeningBook", "Skipped", "WriteReport",
           "WriteWarning"]
