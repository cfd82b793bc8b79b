"""What works across book formats, above ``formats/``: the format-neutral statistics model
(:mod:`~chessformats.books.stats`), building books from games (:mod:`~chessformats.books.build`, with
:mod:`~chessformats.books.pgnscan` and :mod:`~chessformats.books.batchplay`), the conversions between
book formats, and PGN files to a ChessBase base with the same batch reading
(:mod:`~chessformats.books.chessbase_import`)."""
