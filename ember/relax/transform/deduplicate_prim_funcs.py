"""DeduplicatePrimFuncs: structurally equal PrimFuncs of a module become one.

FuseTIR makes one PrimFunc per fused group, so a network that repeats a block (ResNet's
bottlenecks, a transformer's layers) carries many kernels that differ only in their names
(``fused_conv2d16_multiply7_add9_relu71``, ``…72`` …).  Each one would be scheduled,
lowered and compiled by LLVM on its own.  This pass keeps the first PrimFunc of every class
of structurally equal ones (``global_symbol`` ignored; buffers and variables compared by
position) and points every reference in the module's Relax functions at it.  Compile time
drops with the number of distinct kernels; what runs is unchanged.

Kernels are compared with the operands of ``+`` and ``*`` in a canonical order (a value
computed inside the kernel before one read from a parameter): ONNX graphs write a residual
connection as ``add(x, block(x))`` or ``add(block(x), x)``, which would otherwise make two
kernels of each fused ``conv + add``.  Both operations are commutative bit for bit (IEEE
and integer), so either kernel computes the same; the kept one runs unchanged.
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, replace, structural_equal, structural_hash
from ember.tir import BufferLoad, PrimFunc
from ember.tir.functor import IRMutator
from ember.transform import Pass, module_pass

from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["DeduplicatePrimFuncs", "deduplicate_prim_funcs"]


class _CommutedOperands(IRMutator):
    """``a + b`` / ``a * b`` with a parameter's load second, blocks' read regions likewise
    (the comparison form only)."""

    def __init__(self, params: set):
        super().__init__()
        self._params = params

    def _rank(self, e) -> int:
        if isinstance(e, BufferLoad):
            return 1 if id(e.buffer) in self._params else 0
        return 2  # anything else keeps its place

    def _commute(self, op):
        op = self.generic_visit(op)
        ra, rb = self._rank(op.a), self._rank(op.b)
        if rb < ra <= 1:
            return type(op)(op.b, op.a)
        return op

    visit_Add = visit_Mul = _commute

    def visit_Block(self, block):
        block = self.generic_visit(block)
        reads = tuple(sorted(block.reads, key=lambda r: id(r.buffer) in self._params))  # a set: order free
        same = all(x is y for x, y in zip(reads, block.reads))
        return block if same else replace(block, reads=reads)


def _comparable(func: PrimFunc) -> PrimFunc:
    attrs = dict(func.attrs or {})
    if "global_symbol" in attrs:
        attrs.pop("global_symbol")
        func = replace(func, attrs=attrs)
    params = {id(b) for b in func.buffer_map.values()}
    return replace(func, body=_CommutedOperands(params).visit(func.body))


class _Redirect(ExprMutator):
    def __init__(self, mod: IRModule, target: dict):
        super().__init__(mod)
        self._target = target

    def visit_global_var_(self, op: GlobalVar):
        return self._target.get(op, op)


def deduplicate_prim_funcs(mod: IRModule) -> IRModule:
    """``mod`` with one PrimFunc per class of structurally equal ones (see module docstring)."""
    classes: dict[int, list] = {}
    target: dict = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, PrimFunc):
            continue
        key = _comparable(func)
        bucket = classes.setdefault(structural_hash(key), [])
        kept = next((k for k, f in bucket if structural_equal(f, key)), None)
        if kept is None:
            bucket.append((gv, key))
        else:
            target[gv] = kept
    if not target:
        return mod
    mutator = _Redirect(mod, target)
    out = IRModule({gv: f for gv, f in mod.functions.items() if gv not in target}, mod.attrs, mod.global_infos)
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            out[gv] = mutator.visit_expr(func)
    return out


def DeduplicatePrimFuncs() -> Pass:  # noqa: N802 - named like TVM's passes
    """Merge structurally equal PrimFuncs (fewer kernels to schedule and compile)."""
    return module_pass(lambda mod, ctx: deduplicate_prim_funcs(mod), opt_level=0, name="DeduplicatePrimFuncs")
