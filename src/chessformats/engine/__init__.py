"""Format-agnostic machinery: errors, tracing, layouts, bulk paths, round-trip helpers."""

from .errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from .layout import BitField, LayoutField, bit_fields, describe, numpy_dtype, pack_bits, unpack_bits
from .records import record_array
from .schema import MeaningEnum, enum_meanings, type_name
from .trace import Span, TracedField, parse, trace

__all__ = [
    "BitField",
    "FormatError",
    "InvalidValueError",
    "LayoutField",
    "MeaningEnum",
    "Span",
    "TracedField",
    "TruncatedError",
    "UnsupportedError",
    "bit_fields",
    "describe",
    "enum_meanings",
    "numpy_dtype",
    "pack_bits",
    "parse",
    "record_array",
    "trace",
    "type_name",
    "unpack_bits",
]
