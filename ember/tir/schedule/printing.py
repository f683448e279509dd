"""Text of a PrimFunc for schedule output and error messages.

``func_script`` uses the TVMScript printer (``ember.script.printer.to_script``) when it
is available and otherwise a compact TVMScript-like fallback written here, so schedule
errors can always show the function with the offending block or loop marked.
``mark_line`` finds the line of a block (``T.block("C")``) or loop (``for i in``)
and appends ``  # <--- error here``.
"""

from __future__ import annotations

import re

from ember.ir import (
    Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Max, Min, Mod,
    Mul, Not, Or, Ramp, Select, StringImm, Sub, Var,
)
from ember.ir.expr import EQ, GE, GT, LE, LT, NE
from ember.tir.buffer import BufferLoad
from ember.tir.stmt import (
    BlockRealize, BufferStore, Evaluate, For, ForKind, IfThenElse, IterVarType, SeqStmt,
)

__all__ = ["func_script", "mark_line", "expr_text"]

_BIN = {Add: "+", Sub: "-", Mul: "*", Div: "/", FloorDiv: "//", FloorMod: "%", Mod: "%",
        LT: "<", LE: "<=", GT: ">", GE: ">=", EQ: "==", NE: "!=", And: "and", Or: "or"}
_KIND = {ForKind.SERIAL: "T.serial", ForKind.PARALLEL: "T.parallel", ForKind.VECTORIZED: "T.vectorized",
         ForKind.UNROLLED: "T.unroll", ForKind.THREAD_BINDING: "T.thread_binding"}
_ITER = {IterVarType.DataPar: "spatial", IterVarType.CommReduce: "reduce"}


def expr_text(e) -> str:
    """Python-like text of an expression (fallback printer)."""
    if isinstance(e, IntImm):
        return str(e.value) if e.dtype.bits != 1 else str(bool(e.value))
    if isinstance(e, FloatImm):
        return f"T.{e.dtype}({e.value})"
    if isinstance(e, StringImm):
        return repr(e.value)
    if isinstance(e, Var):
        return e.name
    op = _BIN.get(type(e))
    if op is not None:
        return f"({expr_text(e.a)} {op} {expr_text(e.b)})"
    if isinstance(e, Min | Max):
        return f"T.{type(e).__name__.lower()}({expr_text(e.a)}, {expr_text(e.b)})"
    if isinstance(e, Not):
        return f"not {expr_text(e.a)}"
    if isinstance(e, BufferLoad):
        return f"{e.buffer.name}[{', '.join(expr_text(i) for i in e.indices)}]"
    if isinstance(e, Cast):
        return f"T.Cast({str(e.dtype)!r}, {expr_text(e.value)})"
    if isinstance(e, Select):
        return f"T.Select({expr_text(e.condition)}, {expr_text(e.true_value)}, {expr_text(e.false_value)})"
    if isinstance(e, Ramp):
        return f"T.Ramp({expr_text(e.base)}, {expr_text(e.stride)}, {e.lanes})"
    if isinstance(e, Broadcast):
        return f"T.Broadcast({expr_text(e.value)}, {e.lanes})"
    if isinstance(e, Call):
        name = getattr(e.op, "name", getattr(e.op, "name_hint", "?"))
        return f"T.{name.split('.')[-1]}({', '.join(expr_text(a) for a in e.args)})"
    return type(e).__name__


def _region(r) -> str:
    parts = []
    for rng in r.region:
        if isinstance(rng.extent, IntImm) and rng.extent.value == 1:
            parts.append(expr_text(rng.min))
        else:
            parts.append(f"{expr_text(rng.min)}:{expr_text(rng.min + rng.extent)}")
    return f"{r.buffer.name}[{', '.join(parts)}]"


def _stmt(s, indent: int, out: list[str]) -> None:
    pad = "    " * indent
    if s is None:
        return
    if isinstance(s, SeqStmt):
        for x in s.seq:
            _stmt(x, indent, out)
    elif isinstance(s, For):
        kind = _KIND[s.kind]
        rng = expr_text(s.extent) if isinstance(s.min, IntImm) and s.min.value == 0 else \
            f"{expr_text(s.min)}, {expr_text(s.min + s.extent)}"
        if s.kind == ForKind.THREAD_BINDING and s.thread_binding is not None:
            rng += f", thread={s.thread_binding.thread_tag!r}"
        if s.annotations:
            rng += f", annotations={dict(s.annotations)!r}"
        out.append(f"{pad}for {s.loop_var.name} in {kind}({rng}):")
        _stmt(s.body, indent + 1, out)
    elif isinstance(s, BlockRealize):
        b = s.block
        out.append(f'{pad}with T.block("{b.name_hint}"):')
        inner = pad + "    "
        for iv, value in zip(b.iter_vars, s.iter_values):
            kind = _ITER.get(iv.iter_type, "opaque")
            out.append(f"{inner}{iv.var.name} = T.axis.{kind}({expr_text(iv.dom.extent)}, {expr_text(value)})")
        if not (isinstance(s.predicate, IntImm) and s.predicate.value):
            out.append(f"{inner}T.where({expr_text(s.predicate)})")
        out.append(f"{inner}T.reads({', '.join(_region(r) for r in b.reads)})")
        out.append(f"{inner}T.writes({', '.join(_region(r) for r in b.writes)})")
        for buf in b.alloc_buffers:
            out.append(f"{inner}{buf.name} = T.alloc_buffer({tuple(expr_text(x) for x in buf.shape)})")
        for mb in b.match_buffers:
            out.append(f"{inner}{mb.buffer.name} = T.match_buffer({_region(mb.source)})")
        if b.annotations:
            out.append(f"{inner}T.block_attr({dict(b.annotations)!r})")
        if b.init is not None:
            out.append(f"{inner}with T.init():")
            _stmt(b.init, indent + 2, out)
        _stmt(b.body, indent + 1, out)
    elif isinstance(s, BufferStore):
        idx = ", ".join(expr_text(i) for i in s.indices)
        out.append(f"{pad}{s.buffer.name}[{idx}] = {expr_text(s.value)}")
    elif isinstance(s, IfThenElse):
        out.append(f"{pad}if {expr_text(s.condition)}:")
        _stmt(s.then_case, indent + 1, out)
        if s.else_case is not None:
            out.append(f"{pad}else:")
            _stmt(s.else_case, indent + 1, out)
    elif isinstance(s, Evaluate):
        out.append(f"{pad}T.evaluate({expr_text(s.value)})")
    else:
        out.append(f"{pad}# {type(s).__name__}")
        body = getattr(s, "body", None)
        if body is not None:
            _stmt(body, indent, out)


def _fallback(func, name: str) -> str:
    params = []
    for p in func.params:
        buf = func.buffer_map.get(p)
        if buf is not None:
            shape = ", ".join(expr_text(x) for x in buf.shape)
            params.append(f"{buf.name}: T.Buffer(({shape},), \"{buf.dtype}\")")
        else:
            params.append(f"{p.name}: T.{p.dtype}")
    out = ["@T.prim_func", f"def {name}({', '.join(params)}):"]
    _stmt(func.body, 1, out)
    return "\n".join(out)


def func_script(func, name: str = "main") -> str:
    """TVMScript of ``func`` (the project printer, or the fallback when it is missing)."""
    try:
        from ember.script.printer import to_script

        return to_script(func)
    except Exception:  # noqa: BLE001 - the printer is optional here
        return _fallback(func, name)


def mark_line(text: str, block_name: str | None = None, loop_name: str | None = None) -> str:
    """Append ``# <--- error here`` to the line of the named block or loop (first match)."""
    lines = text.split("\n")
    if block_name is not None:
        pattern = re.compile(r'T\.block\(\s*["\']' + re.escape(block_name) + r'["\']')
    elif loop_name is not None:
        pattern = re.compile(r"\bfor\b[^:]*\b" + re.escape(loop_name) + r"\b[^:]*\bin\b")
    else:
        return text
    for k, line in enumerate(lines):
        if pattern.search(line):
            lines[k] = line + "  # <--- error here"
            break
    return "\n".join(lines)
