"""Read-only queries on a PrimFunc's statement tree that every primitive shares.

Navigation (finding a block by name or a loop by its loop Var, the path of ancestors
to a statement, the loops above a block up to its scope block, the child blocks of a
scope), dependences (producers and consumers among sibling blocks), block kinds
(reduction, trivial bindings) and access-region inference, plus ``replace_stmts``,
which rebuilds the tree with some statements swapped (or removed) by identity.
"""

from __future__ import annotations

from ember.ir import IntImm, PrimExpr, Range, Var, const
from ember.tir.buffer import BufferLoad, BufferRegion
from ember.tir.functor import IRMutator, collect
from ember.tir.stmt import (
    AssertStmt, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, For, IfThenElse,
    IterVarType, LetStmt, SeqStmt, Stmt, seq,
)

from . import _arith

__all__ = [
    "stmt_children", "walk", "find_block", "find_loop", "path_to", "loops_above", "scope_of",
    "child_blocks", "block_names", "blocks_under", "is_reduction", "producers", "consumers",
    "infer_regions", "replace_stmts", "vars_in", "writes_buffer", "reads_buffer", "is_true",
    "TensorizeInfo", "get_auto_tensorize_mapping_info", "get_tensorize_loop_mapping", "is_output_block",
    "suggest_index_map",
]

_BODY_ONLY = (LetStmt, AttrStmt, AssertStmt, DeclBuffer)


def stmt_children(s) -> tuple:
    """The statements directly below ``s`` (a Block's init first, then its body)."""
    if isinstance(s, SeqStmt):
        return s.seq
    if isinstance(s, For):
        return (s.body,)
    if isinstance(s, BlockRealize):
        return (s.block,)
    if isinstance(s, Block):
        return (s.init, s.body) if s.init is not None else (s.body,)
    if isinstance(s, IfThenElse):
        return (s.then_case,) if s.else_case is None else (s.then_case, s.else_case)
    if isinstance(s, _BODY_ONLY) or hasattr(s, "body") and isinstance(s.body, Stmt):
        return (s.body,)
    return ()


def walk(s):
    """All statements under ``s`` in pre-order (``s`` included)."""
    stack = [s]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(stmt_children(x)))


def find_block(func, name: str) -> BlockRealize | None:
    for s in walk(func.body):
        if isinstance(s, BlockRealize) and s.block.name_hint == name:
            return s
    return None


def find_loop(func, var: Var) -> For | None:
    for s in walk(func.body):
        if isinstance(s, For) and s.loop_var is var:
            return s
    return None


def path_to(root, target) -> list | None:
    """Ancestors of ``target`` from ``root`` down to its parent (``None`` if absent)."""
    if root is target:
        return []
    stack = [(root, [])]
    while stack:
        node, path = stack.pop()
        for child in stmt_children(node):
            if child is target:
                return path + [node]
            stack.append((child, path + [node]))
    return None


def loops_above(func, stmt) -> list[For]:
    """Loops enclosing ``stmt`` (outermost first) up to the nearest enclosing block."""
    path = path_to(func.body, stmt) or []
    loops: list[For] = []
    for s in reversed(path):
        if isinstance(s, Block | BlockRealize):
            break
        if isinstance(s, For):
            loops.append(s)
    return loops[::-1]


def scope_of(func, stmt) -> BlockRealize | None:
    """The nearest enclosing BlockRealize of ``stmt`` (its scope block)."""
    for s in reversed(path_to(func.body, stmt) or []):
        if isinstance(s, BlockRealize):
            return s
    return None


def child_blocks(s) -> list[BlockRealize]:
    """Blocks directly under ``s`` (not inside another block), in program order."""
    found: list[BlockRealize] = []
    roots = stmt_children(s.block) if isinstance(s, BlockRealize) else stmt_children(s)
    stack = list(reversed(roots))
    while stack:
        x = stack.pop()
        if isinstance(x, BlockRealize):
            found.append(x)
            continue
        stack.extend(reversed(stmt_children(x)))
    return found


def blocks_under(s) -> list[BlockRealize]:
    """Every BlockRealize under ``s`` (``s`` included), pre-order."""
    return [x for x in walk(s) if isinstance(x, BlockRealize)]


def block_names(func) -> list[str]:
    return [x.block.name_hint for x in walk(func.body) if isinstance(x, BlockRealize)]


def is_true(e) -> bool:
    return isinstance(e, IntImm) and bool(e.value)


def is_reduction(block: Block) -> bool:
    return block.init is not None or any(iv.iter_type == IterVarType.CommReduce for iv in block.iter_vars)


def writes_buffer(block: Block, buffer) -> bool:
    return any(r.buffer is buffer for r in block.writes)


def reads_buffer(block: Block, buffer) -> bool:
    return any(r.buffer is buffer for r in block.reads)


def producers(func, realize: BlockRealize) -> list[BlockRealize]:
    """Earlier sibling blocks (same scope) that write a buffer ``realize`` reads."""
    scope = scope_of(func, realize)
    siblings = child_blocks(scope) if scope is not None else []
    out = []
    for sib in siblings:
        if sib is realize:
            break
        if any(reads_buffer(realize.block, w.buffer) for w in sib.block.writes):
            out.append(sib)
    return out


def consumers(func, realize: BlockRealize) -> list[BlockRealize]:
    """Later sibling blocks (same scope) that read a buffer ``realize`` writes."""
    scope = scope_of(func, realize)
    siblings = child_blocks(scope) if scope is not None else []
    out, seen = [], False
    for sib in siblings:
        if sib is realize:
            seen = True
            continue
        if seen and any(writes_buffer(realize.block, r.buffer) for r in sib.block.reads):
            out.append(sib)
    return out


def vars_in(e) -> list[Var]:
    return collect(e, lambda n: isinstance(n, Var))


# -- access regions -----------------------------------------------------------------------

def _region_of(accesses: list, buffer, relax: dict) -> BufferRegion:
    """The smallest box covering ``accesses`` (per dimension: an index expression or a
    (min, extent) pair from a nested block's region), relaxing the ``relax`` vars."""
    from ember.ir import Ramp

    lows: list = [None] * len(buffer.shape)
    highs: list = [None] * len(buffer.shape)
    for access in accesses:
        for d, index in enumerate(access):
            if isinstance(index, tuple):
                lo, _ = _arith.relax_bound(index[0], relax)
                _, hi = _arith.relax_bound(index[0] + index[1] - 1, relax)
            elif isinstance(index, Ramp):  # [base, base + stride * (lanes - 1)]
                lo, hi = _arith.relax_bound(index.base, relax)
                hi = _arith.simplify(hi + index.stride * (index.lanes - 1))
            elif index.dtype.lanes > 1:
                lo, hi = const(0, "int32"), buffer.shape[d] - 1
            else:
                lo, hi = _arith.relax_bound(index, relax)
            lows[d] = lo if lows[d] is None else _arith.min_expr(lows[d], lo)
            highs[d] = hi if highs[d] is None else _arith.max_expr(highs[d], hi)
    return BufferRegion(buffer, tuple(
        Range(lo, _arith.simplify(hi - lo + 1)) for lo, hi in zip(lows, highs)
    ))


def infer_regions(block: Block, only=None) -> tuple[tuple, tuple]:
    """(reads, writes) of ``block`` from its body, relaxing loops inside the block.

    A nested block contributes its own declared regions (its iterators replaced by
    their bindings).  A buffer the block's init writes (a reduction's output) is only
    a write; the block's own allocations and matched buffers are left out.  With
    ``only`` (a set of buffers), just the regions of those buffers are computed.
    """
    from ember.tir.functor import substitute

    loads: dict = {}
    stores: dict = {}
    relax: dict = {}
    local = {id(b) for b in block.alloc_buffers} | {id(m.buffer) for m in block.match_buffers}

    def visit(s):
        if isinstance(s, For):
            relax[s.loop_var] = (s.min, _arith.simplify(s.min + s.extent - 1))
        if isinstance(s, BlockRealize):
            binding = {iv.var: v for iv, v in zip(s.block.iter_vars, s.iter_values)}
            for regions, table in ((s.block.reads, loads), (s.block.writes, stores)):
                for r in regions:
                    if id(r.buffer) not in local:
                        table.setdefault(r.buffer, []).append(tuple(
                            (substitute(x.min, binding), x.extent) for x in r.region))
            return
        if isinstance(s, Stmt):
            exprs = _stmt_exprs(s)
            for e in exprs:
                for n in collect(e, lambda x: isinstance(x, BufferLoad)):
                    if id(n.buffer) not in local:
                        loads.setdefault(n.buffer, []).append(n.indices)
            if isinstance(s, BufferStore) and id(s.buffer) not in local:
                stores.setdefault(s.buffer, []).append(s.indices)
        for child in stmt_children(s):
            visit(child)

    init_written: set = set()
    for part in (block.init, block.body):
        if part is not None:
            visit(part)
            if part is block.init:
                init_written = {id(b) for b in stores}
    # as in TVM, a reduction's output (what its init writes) is not among its reads
    if only is not None:
        wanted = {id(b) for b in only}
        return (tuple(_region_of(acc, buf, relax) for buf, acc in loads.items()
                      if id(buf) in wanted and id(buf) not in init_written),
                tuple(_region_of(acc, buf, relax) for buf, acc in stores.items() if id(buf) in wanted))
    reads = [_region_of(acc, buf, relax) for buf, acc in loads.items() if id(buf) not in init_written]
    writes = [_region_of(acc, buf, relax) for buf, acc in stores.items()]
    # a matched region counts as read where its view is loaded, as written where it is stored,
    # and as both when the view is only used opaquely (its data pointer), as in TVM
    loaded = {id(n.buffer) for n in collect(block, lambda x: isinstance(x, BufferLoad))}
    stored = {id(n.buffer) for n in collect(block, lambda x: isinstance(x, BufferStore))}
    for m in block.match_buffers:
        r, w = id(m.buffer) in loaded, id(m.buffer) in stored
        if r or not w:
            reads.append(m.source)
        if w or not r:
            writes.append(m.source)
    return tuple(reads), tuple(writes)


def _stmt_exprs(s) -> list:
    """The expressions held directly by a statement (not by its child statements)."""
    out = []
    for name in ("value", "condition", "min", "extent", "indices", "message"):
        x = getattr(s, name, None)
        if isinstance(x, PrimExpr):
            out.append(x)
        elif isinstance(x, tuple):
            out.extend(e for e in x if isinstance(e, PrimExpr))
    return out


# -- rebuilding --------------------------------------------------------------------------

class _Replacer(IRMutator):
    """Swaps statements by identity; walks statements only (expressions are kept)."""

    def __init__(self, mapping: dict):
        super().__init__()
        self.mapping = mapping

    def visit(self, x):
        if isinstance(x, PrimExpr):
            return x
        if isinstance(x, Stmt | Block) and id(x) in self.mapping:
            return self.mapping[id(x)][1]
        return super().visit(x)

    def visit_SeqStmt(self, s):
        new = [self.visit(x) for x in s.seq]
        if all(a is b for a, b in zip(new, s.seq)):
            return s
        return seq(*new) if any(x is not None for x in new) else None


def replace_stmts(root, mapping: dict):
    """``root`` with each key statement replaced by its value (``None`` removes it).

    ``mapping`` maps old statements to new ones (by identity)."""
    by_id = {id(k): (k, v) for k, v in mapping.items()}
    return _Replacer(by_id).visit(root)


# -- well-formedness ----------------------------------------------------------------------

def verify(func) -> str | None:
    """The first well-formedness problem of a scheduled function, or None.

    Checks what primitives could break: unique block names, one binding per block
    iterator, and loop variables used in bindings, predicates and loop ranges only
    inside their loops.
    """
    free = set()
    for p in func.params:
        free.add(p)
    for buf in func.buffer_map.values():
        for x in (*buf.shape, *buf.strides, buf.elem_offset):
            free.update(vars_in(x) if x is not None else ())
    names: set = set()
    problem: list = []

    def scalar_vars(e):  # buffer data handles are not loop variables
        return [v for v in vars_in(e) if not v.dtype.is_handle]

    def visit(s, bound: frozenset):
        if problem:
            return
        if isinstance(s, LetStmt):
            bound = bound | {s.var}
        if isinstance(s, For):
            used = scalar_vars(s.min) + scalar_vars(s.extent)
            if any(v not in bound for v in used):
                problem.append(f"the range of loop {s.loop_var.name!r} uses a variable not in scope")
            bound = bound | {s.loop_var}
        elif isinstance(s, BlockRealize):
            b = s.block
            if b.name_hint in names:
                problem.append(f"two blocks are named {b.name_hint!r}")
            names.add(b.name_hint)
            if len(s.iter_values) != len(b.iter_vars):
                problem.append(f"block {b.name_hint!r} has {len(b.iter_vars)} iterators but "
                               f"{len(s.iter_values)} bindings")
            for e in (*s.iter_values, s.predicate):
                if any(v not in bound for v in scalar_vars(e)):
                    problem.append(f"a binding of block {b.name_hint!r} uses a variable not in scope")
                    break
            if b.iter_vars:  # no outer loops inside a block; an opaque block (no iterators) sees them, as in TVM
                bound = frozenset(free) | {iv.var for iv in b.iter_vars}
            for buf in b.alloc_buffers:
                for x in buf.shape:
                    bound = bound | set(vars_in(x))
            for m in b.match_buffers:
                bound = bound | {v for x in (m.buffer.elem_offset, *m.buffer.strides, *m.buffer.shape)
                                 if x is not None for v in vars_in(x)}
        for child in stmt_children(s):
            visit(child, bound)

    visit(func.body, frozenset(free))
    return problem[0] if problem else None


def unique_name(func, base: str) -> str:
    """``base`` or ``base_1``, ``base_2`` … : a block name not used in ``func`` yet."""
    taken = set(block_names(func))
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


# TVM's public ``tvm.tir.schedule.analysis`` names (defined in tensorize_mapping, imported last:
# that module uses the helpers above).
from .tensorize_mapping import (TensorizeInfo, get_auto_tensorize_mapping_info,  # noqa: E402
                                get_tensorize_loop_mapping, is_output_block, suggest_index_map)
