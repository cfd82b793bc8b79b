"""What works across book formats, above ``formats/``: the format-neutral statistics model
(:mod:`~chessformats.books.stats`), building books from games (:mod:`~chessformats.books.build`, with
:mod:`~chessformats.books.pgnscan` and :mod:`~chessformats.books.batchplay`), and the conversions between
book formats."""
