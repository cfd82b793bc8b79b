"""The encoding half of the variable-layout generator (:mod:`.varcodec`): lines appending a value's bytes to a
list, one function per ``Struct`` (``(obj, o, up)``), bit runs through :mod:`.varbits`."""

from __future__ import annotations

from typing import Any

import construct as cs

from .errors import join_path
from .plan import NoPlan
from .schema import strip_renamed
from .varbits import is_bit_run
from .varexpr import Expressions, Scope, take_fields
from .varoptions import stored_form
from .varparts import focus_fields, is_focused, refuses_none

__all__ = ["Writer"]


class Writer:
    """Writes the encoders of a variable-layout generator (its ``bind``, ``var``, ``fixed``, ``alternatives``,
    ``delegate``, ``functions``, ``bit_runs`` and ``guard``)."""

    def __init__(self, generator: Any) -> None:
        self.g = generator
        self.encoders: dict[tuple[int, frozenset[str] | None], tuple[str, Any]] = {}
        self.bodies: dict[str, list[str]] = {}
        """A struct function's lines (the declaration's own is written into ``encode``)."""

    def encode(self, con: cs.Construct, path: str, value: str, scope: Scope, lines: list[str], indent: str,
               out: str = "o") -> None:
        """Lines appending the bytes of ``value`` (source of an expression) as ``con`` to the list ``out``."""
        con, _, _ = strip_renamed(con) if isinstance(con, cs.Renamed) else (con, None, None)
        expressions = Expressions(self.g.bind, building=True)
        if path in self.g.options.stored:
            self.encode_stored(con, path, value, scope, lines, indent, out)
            return
        fixed = self.g.fixed(con)
        if fixed is not None:
            if self.g.guard and refuses_none(fixed.encode):  # an alternative for a value that may be missing
                lines += [f"{indent}if {value} is None:", f"{indent}    raise _Short"]
            encoder = self.g.bind("e", fixed.encode)
            if not fixed.names and fixed.number[1:] in ("B", "H", "I", "L", "Q"):  # an unsigned number: inline
                order = "little" if fixed.number[0] == "<" else "big"
                checks = [self.g.bind("v", valid) for _, _, valid in fixed.checks]
                test = f"{value} in {checks[0]}" if checks else f"0 <= {value} < {1 << (8 * fixed.size)}"
                slow = f"_checked_value({encoder}, {value}, {checks[0]}, {path!r})" if checks else f"{encoder}({value})"
                lines.append(f"{indent}{out}.append({value}.to_bytes({fixed.size}, {order!r}) if {test} else {slow})")
                return
            lines.append(f"{indent}{out}.append({encoder}({value}))")
            return
        if isinstance(con, cs.Struct) or is_focused(con):
            function, needs = self.struct_encoder(con, path, scope)
            up = self.g.up_for(needs, scope, expressions) + self.g.arguments(function, scope)
            lines.append(f"{indent}{function}({value}, {out}, {up})")
            return
        if isinstance(con, cs.Peek):  # writes nothing
            lines.append(f"{indent}pass")
            return
        if isinstance(con, cs.Check):
            lines.append(f"{indent}if not {expressions.source(con.func, scope)}:")
            lines.append(f"{indent}    raise _inv({path!r}, 'check failed')")
            return
        if isinstance(con, (cs.Array, cs.GreedyRange)):
            item = self.g.var()
            if isinstance(con, cs.Array):
                count = self.g.var("n")
                lines.append(f"{indent}{count} = {expressions.source(con.count, scope)}")
                lines.append(f"{indent}if not 0 <= {count} or len({value}) != {count}:")
                lines.append(f"{indent}    raise _inv({path!r}, f'{{len({value})}} elements, not {{{count}}}')")
            fixed = self.g.fixed(con.subcon)
            if isinstance(con, cs.Array) and fixed is not None and fixed.number[1:] == "B":  # bytes at once
                for _, _, valid in fixed.checks:
                    values = self.g.bind("v", valid)
                    lines += [f"{indent}if not {values}.issuperset({value}):",
                              f"{indent}    raise _bad_items({path!r}, 0, list({value}), {values})"]
                lines.append(f"{indent}{out}.append(bytes({value}))")
                return
            lines.append(f"{indent}for {item} in {value}:")
            self.encode(con.subcon, f"{path}[]", item, scope, lines, indent + "    ", out)
            return
        if con is cs.GreedyBytes:
            lines.append(f"{indent}{out}.append(bytes({value}))")
            return
        if isinstance(con, cs.Bytes):
            length, raw = self.g.var("n"), self.g.var("b")
            lines.append(f"{indent}{length} = {expressions.source(con.length, scope)}")
            lines.append(f"{indent}{raw} = bytes({value}) if isinstance({value}, (bytes, bytearray)) else None")
            lines.append(f"{indent}if {raw} is None or len({raw}) != {length}:")
            lines.append(f"{indent}    raise _inv({path!r}, f'not {{{length}}} bytes', {value})")
            lines.append(f"{indent}{out}.append({raw})")
            return
        if isinstance(con, cs.FixedSized):
            length, inner, raw = self.g.var("n"), self.g.var("o"), self.g.var("b")
            lines.append(f"{indent}{length} = {expressions.source(con.length, scope)}")
            lines.append(f"{indent}{inner} = []")
            if not self.encode_bit_run(con.subcon, path, value, scope, lines, indent, raw, length):
                self.encode(con.subcon, path, value, scope, lines, indent, inner)
                lines.append(f"{indent}{raw} = b''.join({inner})")
            lines.append(f"{indent}if not 0 <= len({raw}) <= {length}:")
            lines.append(f"{indent}    raise _inv({path!r}, f'{{len({raw})}} bytes do not fit in {{{length}}}')")
            lines.append(f"{indent}{out}.append({raw} + bytes({length} - len({raw})))")
            return
        if self.g.alternatives(con, path, scope, lines, indent, True, lambda sub, inner, into: self.encode(
                sub, path, value, scope, lines, inner, into or out), out):
            return
        if con is cs.Pass:
            lines.append(f"{indent}pass")
            return
        if isinstance(con, cs.Default):
            filled = self.g.var()
            lines.append(f"{indent}{filled} = {self.g.bind('k', con.value)} if {value} is None else {value}")
            self.encode(con.subcon, path, filled, scope, lines, indent, out)
            return
        if callable(getattr(con, "codec_write", None)):
            slow = f"_write_own({self.g.bind('a', con)}, {value}, {path!r})"
            written = getattr(con, "codec_write_lines", None)
            if callable(written):
                lines += [indent + line for line in written(value, out, slow, self.g.bind)]
                return
            inline = getattr(con, "codec_write_source", None)
            lines.append(f"{indent}{out}.append({inline(value, slow, self.g.bind) if callable(inline) else slow})")
            return
        if isinstance(con, cs.Adapter) and not isinstance(con, (cs.Enum, cs.Const)):
            inner = self.g.var()
            lines.append(f"{indent}{inner} = {self.g.bind('a', con)}._encode({value}, _C(), {path!r})")
            self.encode(con.subcon, path, inner, scope, lines, indent, out)
            return
        self.g.delegate(con, path)
        context = expressions.context(scope)
        lines.append(f"{indent}{out}.append(_build_part({self.g.bind('a', con)}, {value}, {context}, {path!r}))")

    def encode_stored(self, con: cs.Construct, path: str, value: str, scope: Scope, lines: list[str], indent: str,
                      out: str) -> None:
        """Lines appending a field kept as stored (:mod:`.varoptions`): its integer or its bytes."""
        con = self.g.stored_part(con)
        if self.g.fixed(con) is None and isinstance(con, cs.FixedSized):
            size = Expressions(self.g.bind, building=True).source(con.length, scope)
            order = ""
        elif self.g.fixed(con) is not None:
            number, order = stored_form(self.g.fixed_codec(con, False), path)
            size = str(number)
        else:
            raise NoPlan(f"{path}: kept as stored, but of no fixed size")
        if order:
            limit = 1 << (8 * int(size))
            lines += [f"{indent}if not 0 <= {value} < {limit}:",
                      f"{indent}    raise _bad_stored({path!r}, {value}, {size})",
                      f"{indent}{out}.append({value}.to_bytes({size}, {order!r}))"]
            return
        lines += [f"{indent}if not isinstance({value}, (bytes, bytearray)) or len({value}) != {size}:",
                  f"{indent}    raise _bad_stored({path!r}, {value}, {size})", f"{indent}{out}.append(bytes({value}))"]

    def encode_bit_run(self, con: cs.Construct, path: str, value: str, scope: Scope, lines: list[str], indent: str,
                       raw: str, length: str = "0") -> bool:
        """Lines putting the bytes of a bit run the data lays out in ``raw`` (a region of ``length`` bytes: ``nbr``
        bits, for a field that takes the bits left); False when it is none (or one the generator leaves to
        construct)."""
        if not is_bit_run(con):
            return False
        bit_lines: list[str] = []
        try:
            self.g.bit_runs.encode(con.subcon, path, value, scope, bit_lines, indent)
        except NoPlan:
            return False
        lines += [f"{indent}acc, nbits, nbr = 0, 0, 8 * {length}", *bit_lines, f"{indent}if nbits % 8:",
                  f"{indent}    raise _inv({path!r}, f'{{nbits}} bits are no whole number of bytes')",
                  f"{indent}{raw} = acc.to_bytes(nbits // 8, 'big')"]
        return True

    def struct_encoder(self, con: cs.Struct, path: str, parent: Scope | None = None) -> tuple[str, Any]:
        key = id(con), frozenset(parent.names) if parent is not None else None
        known = self.encoders.get(key)
        if known is not None:
            return known
        function = f"_w{next(self.g.fresh)}"
        scope = Scope(incremental=True, parent=parent)
        named, lines = take_fields(con) if not is_focused(con) else focus_fields(con)
        guard, self.g.guard = self.g.guard, False  # a function of its own, called from anywhere
        for sub, name in zip(con.subcons, named, strict=True):
            self.encode(sub, join_path(path, name or ""), f"f_{name}" if name else "None", scope, lines, "    ")
            if name:
                if join_path(path, name) in self.g.options.stored and self.g.fixed(sub) is not None:
                    scope.stored[name] = self.g.fixed_codec(strip_renamed(sub)[0], False)
                scope.add(name, f"f_{name}", lines)
        self.g.guard = guard
        lines = scope.finish(lines, building=True)
        self.g.functions.append("\n".join([f"def {function}(obj, o, up{scope.parameters()}):", *lines, ""]))
        self.bodies[function] = lines
        self.g.imported[function] = tuple(scope.imports)
        needs = scope.needs_up, frozenset(scope.params) if scope.params is not None else None
        self.encoders[key] = function, needs
        return function, needs
