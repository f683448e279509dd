"""Relax pipelines by name: ``relax.get_pipeline("zero" | "default_build")``.

"zero" optimises a graph of high-level operators into kernels:
Normalize → FuseTransposeMatmul → [BlockedConvLayout → WinogradConv2D] → PackConvWeights → LegalizeOps → AnnotateTIROpPattern → FoldConstant → FuseOps → FuseTIR →
DeduplicatePrimFuncs.

"default_build" lowers a graph of ``call_tir``/packed calls to what the VM code
generator takes: ToNonDataflow → RemovePurityChecking → CallTIRRewrite →
StaticPlanBlockMemory → VMShapeLower.  ``relax.build`` runs it after whatever the user ran.
"""

from __future__ import annotations

from collections import Counter

from ember.ir import IRModule, Op
from ember.transform import Pass, Sequential, module_pass

from .expr import Call, Function
from .transform.call_tir_rewrite import CallTIRRewrite
from .transform.remove_purity_checking import RemovePurityChecking
from .transform.static_plan_block_memory import StaticPlanBlockMemory
from .transform.to_non_dataflow_if_needed import ToNonDataflowIfNeeded
from .transform.vm_shape_lower import VMShapeLower

__all__ = ["get_default_pipeline", "get_pipeline", "zero_pipeline", "default_build_pipeline", "check_legalized",
           "register_pipeline"]

# ops the VM lowering understands; any other relax.* op must be legalized first
LOWERABLE_OPS = frozenset({
    "relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed", "relax.call_pure_packed",
    "relax.builtin.alloc_tensor", "relax.memory.alloc_storage", "relax.memory.alloc_tensor",
    "relax.memory.kill_storage", "relax.memory.kill_tensor", "relax.shape_of", "relax.null_value",
    "relax.print", "relax.assert_op", "relax.call_builtin_with_ctx", "relax.builtin.stop_lift_params",
    "relax.make_closure", "relax.invoke_closure", "relax.invoke_pure_closure",
})


def zero_pipeline(target=None, blocked_layout: bool = False) -> Pass:
    """High-level graph → fused kernels.  ``blocked_layout``: convolutions (and the operators
    between them) in a channel-blocked layout for ``target``'s vectors (``get_default_pipeline``
    asks for it on CPUs)."""
    from .transform import (
        AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR, FuseTransposeMatmul, LegalizeOps,
        DeduplicatePrimFuncs, Normalize, PackConvWeights,
    )
    from .transform.pack_matmul_weights import PackMatmulWeights
    from .transform.blocked_conv_layout import BlockedConvLayout
    from .transform.winograd_conv2d import WinogradConv2D

    return Sequential(
        [
            Normalize(),  # A-normal form with struct info: nested calls become bindings
            *([PackMatmulWeights(target)] if blocked_layout else []),  # few-row matmuls: weights in panels
            FuseTransposeMatmul(),  # matmul(x, permute_dims(w)) → one NT_matmul (no weight copy)
            *([BlockedConvLayout(target)] if blocked_layout else []),  # NCHW{b}c across layers
            *([WinogradConv2D()] if blocked_layout else []),  # 3x3 stride-1 blocked convs: Winograd
            PackConvWeights(),  # conv2d with constant weights reads them packed for channel vectors
            LegalizeOps(),  # high-level ops → call_tir of TE/topi PrimFuncs
            AnnotateTIROpPattern(),  # each PrimFunc's pattern kind, for fusion
            FoldConstant(),  # evaluate calls whose inputs are all constants
            FuseOps(),  # group injective ops into their producers/consumers
            FuseTIR(),  # merge each group into one PrimFunc
            DeduplicatePrimFuncs(),  # structurally equal kernels (repeated blocks) compiled once
            module_pass(_apply_tuned, opt_level=0, name="MetaScheduleApplyDatabase"),  # tuned kernels, if any
        ],
        name="zero",
    )


def _apply_tuned(mod: IRModule, ctx) -> IRModule:
    """Kernels replaced by their tuned schedules when a meta_schedule database is entered
    (``with database:``), as TVM's zero pipeline does; otherwise ``mod`` unchanged."""
    import sys

    db_module = sys.modules.get("ember.meta_schedule.database.database")
    if db_module is None or db_module.Database.current() is None:
        return mod
    from .transform import MetaScheduleApplyDatabase

    return MetaScheduleApplyDatabase()(mod)


def _high_level_ops(mod: IRModule) -> Counter:
    found: Counter = Counter()

    def walk(e):
        if isinstance(e, Call):
            if isinstance(e.op, Op) and e.op.name not in LOWERABLE_OPS:
                found[e.op.name] += 1
            for a in e.args:
                walk(a)
        for field in ("blocks", "true_branch", "false_branch", "body", "fields", "tuple_value", "cond"):
            child = getattr(e, field, None)
            if isinstance(child, tuple):
                for c in child:
                    walk(c)
            elif child is not None and not isinstance(child, str | int):
                walk(child)
        for b in getattr(e, "bindings", ()):
            walk(b.value)

    for func in mod.functions.values():
        if isinstance(func, Function):
            walk(func.body)
    return found


def check_legalized(mod: IRModule) -> IRModule:
    """``mod`` itself; raises naming every high-level op left (they need LegalizeOps)."""
    ops = _high_level_ops(mod)
    if ops:
        listed = ", ".join(f"{name} (x{count})" for name, count in sorted(ops.items()))
        raise ValueError(
            f"relax.build: the module still has high-level operators, which the VM cannot run: "
            f"{listed}; lower them first with relax.get_pipeline('zero')(mod) or "
            "relax.transform.LegalizeOps()(mod)"
        )
    return mod


def default_build_pipeline() -> Pass:
    """``call_tir`` graph → explicit memory and shape code for the VM codegen."""
    return Sequential(
        [
            module_pass(lambda mod, ctx: check_legalized(mod), opt_level=0, name="CheckLegalized"),
            ToNonDataflowIfNeeded(),  # the lowering emits impure calls
            RemovePurityChecking(),  # ... inside functions that stay pure from outside
            CallTIRRewrite(),  # call_tir → alloc_tensor + destination-passing call
            # storages shared by lifetime; symbolic sizes too, a storage sized by their max
            StaticPlanBlockMemory(record_plans=True, concat_in_place=True, grow_symbolic=True),
            VMShapeLower(),  # symbolic dims → shape-heap checks and computations (last: needs final shapes)
        ],
        name="default_build",
    )


_PIPELINES = {"zero": zero_pipeline, "default_build": default_build_pipeline}


def register_pipeline(name: str, factory) -> None:
    """Make ``get_pipeline(name)`` return ``factory()``."""
    _PIPELINES[name] = factory


def get_default_pipeline(target=None) -> Pass:
    """TVM's ``relax.get_default_pipeline(target)``: the graph-level passes a target gets by
    default.  For the CPU that is the "zero" pipeline (legalize, fold, fuse); ``relax.build``
    always finishes with "default_build", so ``relax.build(mod, target,
    relax_pipeline=relax.get_default_pipeline(target))`` compiles an un-legalized module."""
    return zero_pipeline(target, blocked_layout=True)


def get_pipeline(name: str = "zero", **kwargs) -> Pass:
    """The pipeline called ``name`` ("zero", "default_build", or one registered)."""
    if name not in _PIPELINES:
        raise ValueError(f"get_pipeline: unknown pipeline {name!r}; known: {', '.join(sorted(_PIPELINES))}")
    return _PIPELINES[name](**kwargs)
