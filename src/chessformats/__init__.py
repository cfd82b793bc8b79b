"""chessformats: read, write, document and inspect the binary file formats of the chess world."""

from . import _moved
from ._version import __version__
from .engine import display as _display
from .engine.errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError

_moved.install()


def _load_pictures() -> None:
    """Register the notebook pictures of the records (codegen), on the first one a notebook asks for."""
    from .codegen import notebook  # noqa: F401 - registers its renderers with engine.display


_display.set_loader(_load_pictures)


__all__ = ["FormatError", "InvalidValueError", "TruncatedError", "UnsupportedError", "__version__"]
