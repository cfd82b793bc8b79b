"""Format-agnostic machinery: errors, tracing, layouts, bulk paths, round-trip helpers."""

from .codec import Codec, Field, codec
from .errors import FormatError, InvalidValueError, TruncatedError, UnsupportedError
from .layout import BitField, LayoutField, bit_fields, describe, numpy_dtype, pack_bits, unpack_bits
from .records import record_array
from .schema import EnumView, MeaningEnum, enum_meanings, enum_view, type_name
from .trace import Span, TracedField, parse, trace

__all__ = [
    "BitField",
    "Codec",
    "EnumView",
    "Field",
    "FormatError",
    "InvalidValueError",
    "LayoutField",
    "MeaningEnum",
    "Span",
    "TracedField",
    "TruncatedError",
    "UnsupportedError",
    "bit_fields",
    "codec",
    "describe",
    "enum_meanings",
    "enum_view",
    "numpy_dtype",
    "pack_bits",
    "parse",
    "record_array",
    "trace",
    "type_name",
    "unpack_bits",
]
