"""chessformats: read, write, document and inspect the binary file formats of the chess world."""

from . import _moved
from ._version import __version__
from .engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError

_moved.install()


__all__ = ["FormatError", "InvalidValueError", "TruncatedError", "UnsupportedError", "__version__"]
