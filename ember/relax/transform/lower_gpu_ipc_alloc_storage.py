"""LowerGPUIPCAllocStorage: allocations in the ``"ipc_memory"`` scope call the CUDA IPC
allocator (TVM's pass).

- ``R.memory.alloc_storage(size, device, "ipc_memory", dtype)`` becomes
  ``R.call_packed("runtime.disco.cuda_ipc.alloc_storage", size, dtype)`` (an Object);
- ``R.builtin.alloc_tensor(shape, dtype, device, "ipc_memory")`` becomes that storage call
  followed by ``R.memory.alloc_tensor(storage, 0, shape, dtype)``.

Allocations in other scopes are left alone.  IPCAllReduceRewrite puts allreduce inputs in
this scope; the allocator itself belongs to a multi-GPU (disco) runtime, which ember has not.
"""

from __future__ import annotations

from ..expr import Call, ExternFunc, Function, StringImm
from ..struct_info import ObjectStructInfo
from .binding_rewrite import BindingRewriter, is_op_call
from .pass_wrappers import relax_module_pass

__all__ = ["LowerGPUIPCAllocStorage"]

IPC_SCOPE = "ipc_memory"
IPC_ALLOC_STORAGE = "runtime.disco.cuda_ipc.alloc_storage"


def _in_ipc_scope(call: Call, scope_index: int) -> bool:
    scope = call.args[scope_index]
    return isinstance(scope, StringImm) and scope.value == IPC_SCOPE


class _Lowering(BindingRewriter):
    def storage(self, size, dtype) -> Call:
        return Call(ExternFunc(IPC_ALLOC_STORAGE), [size, dtype], None, [ObjectStructInfo()])

    def rewrite(self, value):
        if is_op_call(value, "relax.memory.alloc_storage") and _in_ipc_scope(value, 2):
            size, _, _, dtype = value.args
            return self.storage(self.visit_expr(size), dtype)
        if is_op_call(value, "relax.builtin.alloc_tensor") and _in_ipc_scope(value, 3):
            from ..op import memory

            shape, dtype = self.visit_expr(value.args[0]), value.args[1]
            storage = self.builder_.emit(self.storage(shape, dtype))
            return memory.alloc_tensor(storage, 0, shape, dtype)
        return None


def LowerGPUIPCAllocStorage():  # noqa: N802 - TVM's pass name
    """Lower ``"ipc_memory"`` allocations to ``runtime.disco.cuda_ipc.alloc_storage`` calls."""

    def run(func: Function, mod) -> Function:
        return _Lowering(mod, func).visit_expr(func)

    return relax_module_pass(run, "LowerGPUIPCAllocStorage")
