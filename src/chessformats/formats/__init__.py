"""The chess-level API of each format, built on python-chess types."""
