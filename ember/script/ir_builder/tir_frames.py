"""The TensorIR frames of the IR builder: function, block, loops and scoped statements.

Each frame collects the statements built inside it and, when it closes, wraps them in
its node (``PrimFunc``, ``BlockRealize``, ``For``, ``LetStmt`` …).  The words that
create these frames and add to them are in ``ir_builder/tir.py``.
"""

from __future__ import annotations

from ember.ir import PrimExpr, Range, StringImm, as_expr, const, replace
from ember.tir.buffer import Buffer
from ember.tir.stmt import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, DeclBuffer, Evaluate, For, ForKind,
    IfThenElse, LetStmt, While, seq,
)

from .base import IRBuilderFrame

__all__ = [
    "TIRFrame", "PrimFuncFrame", "BlockFrame", "BlockInitFrame", "ForFrame", "AssertFrame",
    "LetFrame", "AllocateFrame", "DeclBufferFrame", "AttrFrame", "WhileFrame", "IfFrame",
    "ThenFrame", "ElseFrame", "LaunchThreadFrame", "DETECT_ACCESS",
]

# Annotation a block built without T.reads / T.writes carries until its function is
# finished and the accesses can be detected (bit 1: reads, bit 2: writes) — TVM's key.
DETECT_ACCESS = "tir.script_parsing_detect_access"


class TIRFrame(IRBuilderFrame):
    """A frame whose statements become one body."""

    collects_stmts = True

    def body(self):
        return seq(*self.stmts) if self.stmts else Evaluate(const(0))


class PrimFuncFrame(TIRFrame):
    """``with T.prim_func():`` — parameters come from ``T.arg``, the body from inside."""

    def __init__(self, is_private: bool = False) -> None:
        super().__init__()
        self.name: str | None = None
        self.is_private = is_private
        self.params: list = []
        self.buffer_map: dict = {}
        self.attrs: dict = {}
        self.ret_type = None
        self.root_allocs: list = []

    def finish(self):
        from ember.tir.function import PrimFunc

        body = self.body()
        has_block = _contains_block(body)
        is_root = isinstance(body, BlockRealize) and body.block.name_hint == "root"
        if self.root_allocs or (has_block and not is_root):
            body = BlockRealize((), const(True), Block((), (), (), "root", body,
                                                       alloc_buffers=tuple(self.root_allocs)))
        if has_block:
            body = complete_accesses(body)
        attrs = dict(self.attrs)
        if self.name is not None and not self.is_private and "global_symbol" not in attrs:
            attrs["global_symbol"] = self.name
        return PrimFunc(tuple(self.params), body, self.ret_type, dict(self.buffer_map), attrs or None)


class BlockFrame(TIRFrame):
    """``with T.block("name"):`` — iterators from ``T.axis.*``, declarations from the words."""

    def __init__(self, name: str, no_realize: bool = False) -> None:
        super().__init__()
        self.name = name
        self.no_realize = no_realize
        self.iter_vars: list = []
        self.iter_values: list = []
        self.reads = None
        self.writes = None
        self.predicate = None
        self.annotations: dict = {}
        self.alloc_buffers: list = []
        self.match_buffers: list = []
        self.init = None

    def finish(self):
        ann = dict(self.annotations)
        detect = (1 if self.reads is None else 0) | (2 if self.writes is None else 0)
        if detect:
            ann[DETECT_ACCESS] = const(detect, "int64")
        block = Block(tuple(self.iter_vars), tuple(self.reads or ()), tuple(self.writes or ()),
                      self.name, self.body(), self.init, tuple(self.alloc_buffers),
                      tuple(self.match_buffers), ann)
        if self.no_realize:
            if self.iter_values:
                raise ValueError(f"T.block({self.name!r}, no_realize=True) cannot bind its iterators "
                                 f"to values; got {len(self.iter_values)}")
            return block
        pred = self.predicate if self.predicate is not None else const(True)
        return BlockRealize(tuple(self.iter_values), pred, block)


class BlockInitFrame(TIRFrame):
    """``with T.init():`` — the reduction initialisation of the enclosing block."""

    def finish(self):
        from .base import IRBuilder

        parent = IRBuilder.current().find_frame(BlockFrame)
        if parent is None:
            raise ValueError("T.init() must be inside a `with T.block(...)`")
        if parent.init is not None:
            raise ValueError(f"block {parent.name!r} already has a T.init()")
        parent.init = self.body()
        return None


class ForFrame(TIRFrame):
    """One or more nested loops (``T.serial``, ``T.grid`` …); ``as`` binds the loop var(s)."""

    def __init__(self, loops: list) -> None:
        super().__init__()
        self.loops = loops  # (var, min, extent, kind, thread_binding, annotations), outermost first

    def enter_value(self):
        return self.loops[0][0] if len(self.loops) == 1 else [lp[0] for lp in self.loops]

    def finish(self):
        body = self.body()
        for var, lo, ext, kind, binding, ann in reversed(self.loops):
            body = For(var, lo, ext, ForKind(kind), body, binding, ann)
        return body


class AssertFrame(TIRFrame):
    def __init__(self, condition, message) -> None:
        super().__init__()
        self.condition = as_expr(condition)
        self.message = StringImm(message) if isinstance(message, str) else message

    def finish(self):
        return AssertStmt(self.condition, self.message, self.body())


class LetFrame(TIRFrame):
    def __init__(self, var, value) -> None:
        super().__init__()
        self.var, self.value = var, value

    def enter_value(self):
        return self.var

    def finish(self):
        return LetStmt(self.var, self.value, self.body())


class AllocateFrame(TIRFrame):
    def __init__(self, var, dtype, extents, condition, annotations) -> None:
        super().__init__()
        self.var, self.dtype, self.extents = var, dtype, extents
        self.condition, self.annotations = condition, annotations

    def enter_value(self):
        return self.var

    def finish(self):
        return Allocate(self.var, self.dtype, self.extents, self.condition, self.body(),
                        self.annotations)


class DeclBufferFrame(TIRFrame):
    """A buffer declared over what follows; it allocates its memory unless given ``data``."""

    def __init__(self, buffer: Buffer, allocate: bool) -> None:
        super().__init__()
        self.buffer, self.allocate = buffer, allocate

    def enter_value(self):
        return self.buffer

    def finish(self):
        stmt = DeclBuffer(self.buffer, self.body())
        if not self.allocate:
            return stmt
        return Allocate(self.buffer.data, self.buffer.dtype, tuple(self.buffer.shape), const(True), stmt)


class AttrFrame(TIRFrame):
    def __init__(self, node, key: str, value) -> None:
        super().__init__()
        self.node, self.key, self.value = node, key, value

    def finish(self):
        return AttrStmt(self.node, self.key, self.value, self.body())


class RealizeFrame(TIRFrame):
    def __init__(self, region, scope: str, condition) -> None:
        super().__init__()
        self.region, self.scope, self.condition = region, scope, condition

    def finish(self):
        from ember.script.tir.frames import realize_stmt

        return realize_stmt(self.region, self.scope, self.condition, self.body())


class LaunchThreadFrame(AttrFrame):
    """A ``thread_extent`` attribute; ``as`` binds the thread variable."""

    def enter_value(self):
        return self.node.var


class WhileFrame(TIRFrame):
    def __init__(self, condition) -> None:
        super().__init__()
        self.condition = as_expr(condition)

    def finish(self):
        return While(self.condition, self.body())


class IfFrame(TIRFrame):
    """``with T.If(c):`` holding one ``with T.Then():`` and optionally one ``with T.Else():``."""

    def __init__(self, condition) -> None:
        super().__init__()
        self.condition = as_expr(condition)
        self.then_case = None
        self.else_case = None

    def take(self, node) -> bool:
        if isinstance(node, _Branch):
            if node.is_then:
                self.then_case = node.stmt
            else:
                self.else_case = node.stmt
            return True
        raise ValueError("inside T.If(...) only `with T.Then():` and `with T.Else():` may appear, "
                         f"got a {type(node).__name__}")

    def finish(self):
        if self.then_case is None:
            raise ValueError("T.If(...) needs a `with T.Then():` branch")
        return IfThenElse(self.condition, self.then_case, self.else_case)


class _Branch:
    __slots__ = ("is_then", "stmt")

    def __init__(self, is_then: bool, stmt) -> None:
        self.is_then, self.stmt = is_then, stmt


class ThenFrame(TIRFrame):
    def finish(self):
        return _Branch(True, self.body())


class ElseFrame(TIRFrame):
    def finish(self):
        return _Branch(False, self.body())


def _contains_block(stmt) -> bool:
    from ember.tir.functor import collect

    return bool(collect(stmt, lambda n: isinstance(n, Block)))


def complete_accesses(body):
    """Fill in the reads/writes of blocks marked for detection, innermost first."""
    from ember.tir.analysis.block_access import block_access_regions
    from ember.tir.functor import ir_transform

    def post(node):
        if not isinstance(node, Block) or not node.annotations or DETECT_ACCESS not in node.annotations:
            return None
        detect = int(node.annotations[DETECT_ACCESS].value)
        ann = {k: v for k, v in node.annotations.items() if k != DETECT_ACCESS}
        reads, writes = block_access_regions(node)
        return replace(node, reads=reads if detect & 1 else node.reads,
                       writes=writes if detect & 2 else node.writes, annotations=ann)

    return ir_transform(body, None, post)


def loop(var, start, stop, kind, binding=None, annotations=None) -> tuple:
    """One loop's description for ``ForFrame``: ``range(start, stop)`` or ``range(0, start)``."""
    if stop is None:
        start, stop = 0, start
    start, stop = as_expr(start), as_expr(stop)
    if isinstance(start, PrimExpr) and start.dtype != stop.dtype and _is_const(start):
        start = const(int(start.value), stop.dtype)
    extent = stop if _is_zero(start) else stop - start
    return var(start.dtype if not _is_const(start) else stop.dtype), start, extent, kind, binding, \
        dict(annotations) if annotations else None


def _is_const(e) -> bool:
    return hasattr(e, "value") and not isinstance(e, StringImm)


def _is_zero(e) -> bool:
    return _is_const(e) and e.value == 0


def full_range(start, stop) -> Range:
    if stop is None:
        start, stop = 0, start
    start, stop = as_expr(start), as_expr(stop)
    return Range(start, stop - start if not _is_zero(start) else stop)
