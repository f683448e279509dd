"""ember.tir.transform: passes lowering block TensorIR to the flat form the codegens consume.

Each pass is a function ``PrimFunc → PrimFunc`` in its own module and a TVM-named
factory returning the module pass (``tvm.tir.transform.FlattenBuffer()(mod)``).
``lower_for_codegen`` runs them all in order; ``check_lowered`` checks the result.
"""

from .annotate_device_regions import AnnotateDeviceRegions, annotate_device_regions
from .combine_context_call import CombineContextCall, combine_context_call
from .compact_buffer_allocation import CompactBufferAllocation, compact_buffer_allocation
from .convert_blocks_to_opaque import ConvertBlocksToOpaque, convert_blocks_to_opaque
from .convert_ssa import ConvertSSA, convert_ssa
from .convert_for_loops_to_serial import ConvertForLoopsToSerial, convert_for_loops_to_serial
from .decorate_device_scope import DecorateDeviceScope, decorate_device_scope
from .flatten_buffer import FlattenBuffer, flatten_buffer
from .force_narrow_index_to_int32 import ForceNarrowIndexToInt32, force_narrow_index_to_int32
from .hoist_expression import (
    HoistedConditionals, HoistedLetBindings, HoistExpression, HoistIfThenElse, hoist_expression,
)
from .inline_private_functions import InlinePrivateFunctions, inline_private_functions
from .loop_partition import LoopPartition, loop_partition
from .lower_cross_thread_reduction import LowerCrossThreadReduction, lower_cross_thread_reduction
from .lower_init_block import LowerInitBlock, lower_init_block
from .lower_intrin import LowerIntrin, lower_intrin
from .lower_match_buffer import LowerMatchBuffer, lower_match_buffer
from .lower_opaque_block import LowerOpaqueBlock, lower_opaque_block
from .module_helpers import AnnotateEntryFunc, Apply, BindTarget, Filter
from .narrow_datatype import NarrowDataType, narrow_datatype
from .pipeline import NotLoweredError, check_lowered, lower_for_codegen, lowering_passes
from .reduce_branching_through_overcompute import (
    ReduceBranchingThroughOvercompute, reduce_branching_through_overcompute,
)
from .remove_assume import RemoveAssume, remove_assume
from .remove_no_op import RemoveNoOp, remove_no_op
from .remove_store_undef import RemoveStoreUndef, remove_store_undef
from .renormalize_split_pattern import RenormalizeSplitPattern, renormalize_split_pattern
from .rewrite_unsafe_select import RewriteUnsafeSelect, rewrite_unsafe_select
from .simplify import Simplify, simplify
from .storage_rewrite import StorageRewrite, storage_rewrite
from .thread_sync import ThreadSync, thread_sync
from .unroll_loop import UnrollLoop, unroll_loop
from .unify_thread_binding import UnifyThreadBinding, unify_thread_binding
from .vectorize_loop import VectorizeLoop, vectorize_loop

# TVM's pass-infrastructure names, reachable as tvm.tir.transform.prim_func_pass etc.
from ember.transform import PassContext, Sequential, prim_func_pass  # noqa: E402,I001


def LowerBlocks():  # noqa: N802 - one pass doing ConvertBlocksToOpaque + LowerOpaqueBlock
    """LowerInitBlock, ConvertBlocksToOpaque and LowerOpaqueBlock as one Sequential pass."""
    return Sequential(
        [LowerInitBlock(), ConvertBlocksToOpaque(), LowerOpaqueBlock()], name="tir.LowerBlocks"
    )


__all__ = [
    "CompactBufferAllocation", "ConvertBlocksToOpaque", "FlattenBuffer", "LowerBlocks",
    "LowerInitBlock", "LowerIntrin", "LowerOpaqueBlock", "RemoveNoOp", "Simplify",
    "StorageRewrite", "UnrollLoop", "VectorizeLoop", "check_lowered", "compact_buffer_allocation",
    "convert_blocks_to_opaque", "flatten_buffer", "lower_for_codegen", "lower_init_block",
    "lower_intrin", "lower_opaque_block", "lowering_passes", "NotLoweredError", "remove_no_op",
    "simplify", "storage_rewrite", "unroll_loop", "vectorize_loop", "PassContext", "Sequential",
    "prim_func_pass", "ThreadSync", "thread_sync",
    "AnnotateDeviceRegions", "annotate_device_regions", "CombineContextCall", "combine_context_call",
    "ConvertForLoopsToSerial", "convert_for_loops_to_serial", "DecorateDeviceScope",
    "decorate_device_scope", "AnnotateEntryFunc", "Apply", "BindTarget", "Filter",
    "RemoveAssume", "remove_assume", "RemoveStoreUndef", "remove_store_undef",
    "RewriteUnsafeSelect", "rewrite_unsafe_select", "UnifyThreadBinding", "unify_thread_binding",
    "ConvertSSA", "convert_ssa", "HoistedConditionals", "HoistedLetBindings", "HoistExpression",
    "HoistIfThenElse", "hoist_expression", "ForceNarrowIndexToInt32", "force_narrow_index_to_int32",
    "NarrowDataType", "narrow_datatype", "LowerMatchBuffer", "lower_match_buffer",
    "RenormalizeSplitPattern", "renormalize_split_pattern", "InlinePrivateFunctions",
    "inline_private_functions", "LoopPartition", "loop_partition",
    "LowerCrossThreadReduction", "lower_cross_thread_reduction",
    "ReduceBranchingThroughOvercompute", "reduce_branching_through_overcompute",
]

from . import transform  # noqa: E402 - TVM's module of the pass factories, needs __all__ above
