"""The TIR lowering pipeline (block TensorIR → lowered-TIR contract) and its checker.

``lower_for_codegen`` is the one place that lists the lowering passes in order;
``check_lowered`` is what a code generator calls to refuse IR that was not lowered,
naming the pass that should have handled it.  The contract itself is written in
docs/dev/TEAM_NOTES.md ("Lowered-TIR contract").  Beyond it: THREAD_BINDING loops (GPU
schedules) are left in place for the GPU code generators, vector indices may be any
Ramp (any stride) for stores and any vector expression (a gather) for loads, and
Allocate extents are one constant or symbolic element count.
"""

from __future__ import annotations

import os

from ember.ir import Call, IRModule, Op
from ember.transform import Pass, PassContext

from ..buffer import Buffer, BufferLoad
from ..function import PrimFunc
from ..functor import pre_order_visit
from ..stmt import Block, BlockRealize, BufferStore, DeclBuffer, For, ForKind
from .compact_buffer_allocation import PlaceAndCompactAllocations
from .convert_blocks_to_opaque import ConvertBlocksToOpaque
from .flatten_buffer import FlattenBuffer
from .guard_data_indices import GuardDataDependentIndices
from .hoist_invariant_division import HoistInvariantDivision
from .lower_cross_thread_reduction import LowerCrossThreadReduction
from .lower_init_block import LowerInitBlock
from .lower_intrin import CODEGEN_INTRINSICS, STRUCTURAL_INTRINSICS, LowerIntrin
from .lower_opaque_block import LowerOpaqueBlock
from .remove_no_op import RemoveNoOp
from .unswitch_guarded_loops import UnswitchGuardedLoops
from .peel_guarded_tail import PeelGuardedTail
from .simplify import Simplify
from .storage_rewrite import StorageRewrite
from .unroll_loop import UnrollLoop
from .vectorize_loop import VectorizeLoop

__all__ = ["lower_for_codegen", "lowering_passes", "check_lowered", "NotLoweredError"]


def lowering_passes(target=None) -> list[Pass]:
    """The lowering passes in order, each with the precondition it relies on."""
    gpu = target is not None and "gpu" in getattr(target, "keys", ())
    return [
        # GPU only; needs blocks with init and iterators: reductions over threadIdx → partials + combine
        *([LowerCrossThreadReduction()] if gpu else []),
        # blocks may carry ``init``; needs block iterators still present
        LowerInitBlock(),
        # needs init lowered (or not); substitutes block iterators by loop expressions
        ConvertBlocksToOpaque(),
        # needs opaque blocks without init; leaves loops, ifs, Allocate + DeclBuffer
        LowerOpaqueBlock(),
        # needs blocks gone; moves Allocates to where they are used and shrinks them
        PlaceAndCompactAllocations(),
        # needs buffers at their final (compacted) shapes, not yet flat: indices read from
        # data are clamped (loads) or range-checked (stores), so bad data cannot crash a kernel
        GuardDataDependentIndices(),
        # needs multi-dimensional accesses only through BufferLoad/Store; drops DeclBuffer
        FlattenBuffer(),
        # needs flat indices; folds index arithmetic and bound checks (no-op without arith)
        Simplify(),
        # needs simplified bounds; a serial loop guarded as a whole by i < n gets an unguarded copy
        UnswitchGuardedLoops(),
        # needs flat buffers; turns VECTORIZED loops into Ramp/Broadcast or serial loops
        # (all serial under PassContext(config={"tir.disable_vectorize": True}), as in TVM)
        VectorizeLoop(not PassContext.current().config.get("tir.disable_vectorize", False)),
        # needs vectorization done: a loop of guarded vectors (symbolic tail) runs the whole
        # vectors, then the tail, each without a test per iteration
        PeelGuardedTail(),
        # needs vectorization done; expands UNROLLED / auto-unroll loops
        UnrollLoop(),
        # cleans what unrolling and vectorizing left
        Simplify(),
        RemoveNoOp(),
        # CPU: needs lowered flat scalar/vector code and the LLVM codegen's total division;
        # a division by a symbolic value is bound once outside the loops it does not vary in
        *([] if gpu else [HoistInvariantDivision()]),
        # needs flat Allocates; lets dead temporaries share memory
        StorageRewrite(),
        # last: only the codegen's intrinsic table remains
        LowerIntrin(),
    ]


def lower_for_codegen(mod, target=None, dump_ir: bool | None = None, verify: bool | None = None) -> IRModule:
    """Lower every PrimFunc of ``mod`` (an IRModule or a PrimFunc) to the lowered-TIR contract.

    ``dump_ir`` (default: the PassContext's ``dump_ir`` or ``EMBER_DUMP_IR=1``) prints
    the IR after each pass; ``verify`` (default ``EMBER_VERIFY_IR=1``) runs the
    well-formedness checker after each pass.
    """
    if isinstance(mod, PrimFunc):
        mod = IRModule.from_expr(mod)
    if not isinstance(mod, IRModule):
        raise TypeError(f"lower_for_codegen: expected an IRModule or PrimFunc for mod, got {type(mod).__name__}")
    ctx = PassContext.current()
    if dump_ir is None:
        dump_ir = ctx.dump_ir()
    if verify is None:
        verify = os.environ.get("EMBER_VERIFY_IR", "") not in ("", "0")
    for p in lowering_passes(target):
        if not ctx.pass_enabled(p.info):
            continue
        mod = p(mod)
        if dump_ir and not ctx.dump_ir():  # Pass.__call__ already printed otherwise
            print(f"# ---- IR after {p.info.name} ----")
            mod.show()
        if verify:
            from ..analysis import verify_well_formed

            verify_well_formed(mod)
    return mod


class NotLoweredError(ValueError):
    """Raised by :func:`check_lowered`; the message names the pass that should have run."""


def _allowed_call(call: Call) -> str | None:
    op = call.op
    if not isinstance(op, Op) or not op.name.startswith("tir."):
        return None
    name = op.name[4:]
    if name in CODEGEN_INTRINSICS or name in STRUCTURAL_INTRINSICS:
        return None
    return f"intrinsic {op.name!r} is not in the codegen table; run LowerIntrin"


def _check_flat(buf: Buffer) -> str | None:
    if len(buf.shape) != 1:
        return f"buffer {buf.name!r} is accessed with {len(buf.shape)} dimensions; run FlattenBuffer"
    return None


# node type → check(node) returning a message (or None when the node is fine)
_CHECKS = {
    Block: lambda n: f"block {n.name_hint!r} is still present; run LowerOpaqueBlock",
    BlockRealize: lambda n: f"block {n.block.name_hint!r} is still present; run LowerOpaqueBlock",
    DeclBuffer: lambda n: f"DeclBuffer of {n.buffer.name!r} is still present; run FlattenBuffer",
    For: lambda n: (
        f"loop {n.loop_var.name!r} is still VECTORIZED; run VectorizeLoop"
        if n.kind == ForKind.VECTORIZED else None
    ),
    BufferLoad: lambda n: _check_flat(n.buffer),
    BufferStore: lambda n: _check_flat(n.buffer),
    Call: _allowed_call,
}


def check_lowered(func_or_mod) -> None:
    """Raise :class:`NotLoweredError` if ``func_or_mod`` breaks the lowered-TIR contract."""
    if isinstance(func_or_mod, IRModule):
        for gv, func in func_or_mod.functions.items():
            if isinstance(func, PrimFunc):
                _check_func(gv.name_hint, func)
        return
    if not isinstance(func_or_mod, PrimFunc):
        raise TypeError(
            f"check_lowered: expected a PrimFunc or IRModule for func_or_mod, got {type(func_or_mod).__name__}"
        )
    _check_func(func_or_mod.attrs.get("global_symbol", "<PrimFunc>"), func_or_mod)


def _check_func(name: str, func: PrimFunc) -> None:
    problems: list[str] = []

    def visit(node):
        check = _CHECKS.get(type(node))
        if check is not None:
            message = check(node)
            if message is not None:
                problems.append(message)

    pre_order_visit(func.body, visit)
    if problems:
        raise NotLoweredError(f"PrimFunc {name!r} is not lowered: {problems[0]}")
