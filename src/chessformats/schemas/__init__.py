"""Declarations only: one module per format. No I/O, no chess logic."""
