"""LowerGPUIPCAllocStorage: "ipc_memory" allocations become runtime.disco.cuda_ipc.alloc_storage
calls (a builtin tensor allocation also gets a memory.alloc_tensor on that storage); other
scopes are left alone."""

import ember as tvm
from ember import relax
from ember.script import ir as I
from ember.script import relax as R


@I.ir_module
class IpcTensor:
    @R.function(pure=False)
    def main(x: R.Tensor((4, 8), "float16")):
        t = R.builtin.alloc_tensor(R.shape([4, 8]), R.dtype("float16"), R.prim_value(0), R.str("ipc_memory"))
        return t


@I.ir_module
class IpcTensorLowered:
    @R.function(pure=False)
    def main(x: R.Tensor((4, 8), "float16")):
        storage = R.call_packed("runtime.disco.cuda_ipc.alloc_storage", R.shape([4, 8]), R.dtype("float16"),
                                sinfo_args=R.Object)
        t = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 8]), R.dtype("float16"))
        return t


@I.ir_module
class GlobalStorage:
    @R.function(pure=False)
    def main(x: R.Tensor((4, 8), "float16")):
        s = R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str("global"), R.dtype("float16"))
        t = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([4, 8]), R.dtype("float16"))
        return t


def test_builtin_ipc_tensor_is_lowered():
    after = relax.transform.LowerGPUIPCAllocStorage()(IpcTensor)
    tvm.ir.assert_structural_equal(after, IpcTensorLowered)


def test_ipc_storage_is_lowered():
    text = GlobalStorage.script().replace('R.str("global")', 'R.str("ipc_memory")')
    ipc = tvm.script.from_source(text)
    after = relax.transform.LowerGPUIPCAllocStorage()(ipc).script()
    assert 'R.call_packed("runtime.disco.cuda_ipc.alloc_storage", R.shape([64]), R.dtype("float16")' in after
    assert "R.memory.alloc_storage" not in after


def test_other_scopes_are_unchanged():
    assert relax.transform.LowerGPUIPCAllocStorage()(GlobalStorage) is GlobalStorage
