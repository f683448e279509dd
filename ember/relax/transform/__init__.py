"""``relax.transform``: passes over Relax functions (each IRModule → IRModule)."""

from ember.transform import (  # noqa: F401
    ModulePass, Pass, PassContext, PassInfo, Sequential, module_pass,
)

from .bind_symbolic_vars import BindSymbolicVars
from .canonicalize_bindings import CanonicalizeBindings
from .dead_code_elimination import DeadCodeElimination
from .eliminate_common_subexpr import EliminateCommonSubexpr
from .fold_constant import FoldConstant
from .normalize import Normalize
from .pass_wrappers import dataflowblock_pass, function_pass
from .to_non_dataflow import ToNonDataflow

# high-level ops → kernels (relax.get_pipeline("zero"))
from .legalize_ops import LegalizeOps  # noqa: E402
from .annotate_tir_op_pattern import AnnotateTIROpPattern  # noqa: E402
from .fuse_ops import FuseOps  # noqa: E402
from .fuse_tir import FuseTIR  # noqa: E402
from .fuse_transpose_matmul import FuseTransposeMatmul  # noqa: E402
from .pack_conv_weights import PackConvWeights  # noqa: E402
from .fold_batchnorm_to_conv2d import FoldBatchnormToConv2D  # noqa: E402
from .convert_layout import ConvertLayout  # noqa: E402
from .deduplicate_prim_funcs import DeduplicatePrimFuncs  # noqa: E402

# lowering to the VM (relax.get_pipeline("default_build"))
from .bind_params import BindParams  # noqa: E402
from .call_tir_rewrite import CallTIRRewrite  # noqa: E402
from .remove_purity_checking import RemovePurityChecking  # noqa: E402
from .static_plan_block_memory import StaticPlanBlockMemory  # noqa: E402
from .vm_shape_lower import VMShapeLower  # noqa: E402
from .decompose_ops import DecomposeOpsForInference  # noqa: E402

# module-level rewrites (TVM's relax.transform utility passes)
from .topological_sort import TopologicalSort  # noqa: E402
from .convert_to_dataflow import ConvertToDataflow  # noqa: E402
from .attach_global_symbol import AttachGlobalSymbol  # noqa: E402
from .normalize_global_var import NormalizeGlobalVar  # noqa: E402
from .remove_unused_parameters import RemoveUnusedParameters  # noqa: E402
from .remove_unused_outputs import RemoveUnusedOutputs  # noqa: E402
from .lambda_lift import LambdaLift  # noqa: E402
from .inline_private_functions import InlinePrivateFunctions  # noqa: E402
from .expand_tuple_arguments import ExpandTupleArguments  # noqa: E402
from .bundle_model_params import BundleModelParams  # noqa: E402
from .update_param_struct_info import UpdateParamStructInfo  # noqa: E402
from .lift_transform_params import LiftTransformParams  # noqa: E402
from .expand_matmul_of_sum import ExpandMatmulOfSum  # noqa: E402
from .rewrite_dataflow_reshape import RewriteDataflowReshape  # noqa: E402
from .reorder_permute_dims_after_concat import ReorderPermuteDimsAfterConcat  # noqa: E402
from .reorder_take_after_matmul import ReorderTakeAfterMatmul  # noqa: E402
from .combine_parallel_matmul import CombineParallelMatmul  # noqa: E402
from .attach_attr_layout_free_buffers import AttachAttrLayoutFreeBuffers  # noqa: E402
from .split_layout_rewrite_preproc import SplitLayoutRewritePreproc  # noqa: E402
from .compute_prim_value import ComputePrimValue  # noqa: E402
from .ipc_allreduce_rewrite import IPCAllReduceRewrite  # noqa: E402
from .lower_gpu_ipc_alloc_storage import LowerGPUIPCAllocStorage  # noqa: E402

# reverse-mode AD: op gradients (FPrimalGradient) and relax.grad.* kernels
from . import gradient_legalize, gradient_table, gradient_table_nn, gradient_te  # noqa: E402, F401
from .gradient import Gradient  # noqa: E402

__all__ = [
    "BindSymbolicVars", "CanonicalizeBindings", "DeadCodeElimination", "EliminateCommonSubexpr", "FoldConstant",
    "Normalize", "ToNonDataflow", "function_pass", "dataflowblock_pass", "module_pass", "Sequential",
    "PassContext", "CallTIRRewrite", "StaticPlanBlockMemory", "VMShapeLower", "BindParams",
    "RemovePurityChecking", "LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR",
    "FuseTransposeMatmul", "MetaScheduleApplyDatabase", "MetaScheduleTuneIRMod", "DecomposeOpsForInference",
    "PackConvWeights", "DeduplicatePrimFuncs", "FoldBatchnormToConv2D", "ConvertLayout",
]


# tuning passes live with ember.meta_schedule (above relax); loaded when first called
def MetaScheduleApplyDatabase(work_dir=None, enable_warning=False):  # noqa: N802 - TVM's pass name
    """Replace kernels by their best schedules in the current (``with db:``) or work_dir database."""
    from ember.meta_schedule.relax_passes import MetaScheduleApplyDatabase as make

    return make(work_dir, enable_warning)


def MetaScheduleTuneIRMod(params, work_dir, max_trials_global, max_trials_per_task=None, op_names=None,  # noqa: N802
                          **kwargs):
    """Tune the module's kernels into work_dir's database; the module passes through unchanged."""
    from ember.meta_schedule.relax_passes import MetaScheduleTuneIRMod as make

    return make(params, work_dir, max_trials_global, max_trials_per_task, op_names, **kwargs)
