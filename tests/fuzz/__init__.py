"""Mutation fuzzing of every reader, run from the repository (``python -m tests.fuzz --minutes N``).

The harness takes every file of the shared corpus (``../shared/corpus``; Kvetka books, of which no real one
exists, are written by the project's own writer), damages it with small structured mutations and drives the
public reader paths with it in forked worker processes under a time limit and an address-space cap. An
exception outside the :class:`chessformats.FormatError` family, a hang or an allocation above the cap is a
failure: it is shrunk to a minimal list of mutations and saved under ``tests/fuzz/corpus/`` as a reproducer,
which ``test_reproducers.py`` replays in every test run. See ``docs/reliability.md``.

Modules: :mod:`.seeds` (what is mutated), :mod:`.mutations` (how), :mod:`.fields` (the count, length and
pointer fields, found by tracing the declarations over the seeds), :mod:`.drivers` (the reader paths),
:mod:`.runner` (workers, limits, attribution, shrinking), :mod:`.reproducers` (saved cases).
"""
