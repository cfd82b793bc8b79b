"""chessformats: read, write, document and inspect the binary file formats of the chess world."""

from . import _moved
from .engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError

_moved.install()

__version__ = "0.1.0"

__all__ = ["FormatError", "InvalidValueError", "TruncatedError", "UnsupportedError", "__version__"]
