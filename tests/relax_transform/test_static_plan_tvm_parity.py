"""StaticPlanBlockMemory as TVM's pass (the module is only rewritten; plans are recorded in the
module attributes only when the build pipeline asks), and Relax calls of a PrimFunc that
returns nothing typed ``R.Tuple()`` as TVM types them."""

from ember import relax
from ember.relax.transform.static_plan_block_memory import PLAN_ATTR
from ember.script import ir as I, relax as R, tir as T


@I.ir_module
class TwoKernels:
    @T.prim_func
    def double(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.block("b"):
                vi = T.axis.spatial(T.int64(4), i)
                b[vi] = a[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"relax.force_pure": True})
        cls = TwoKernels
        t = R.builtin.alloc_tensor(R.shape([4]), dtype="float32", runtime_device_index=0)
        _ = cls.double(x, t)
        out = R.builtin.alloc_tensor(R.shape([4]), dtype="float32", runtime_device_index=0)
        _1 = cls.double(t, out)
        return out


def test_call_of_a_void_prim_func_is_an_empty_tuple():
    (block,) = TwoKernels["main"].body.blocks
    assert str(block.bindings[1].var.struct_info) == "R.Tuple()"


def test_pass_alone_leaves_module_attributes_alone():
    planned = relax.transform.StaticPlanBlockMemory()(TwoKernels)
    assert PLAN_ATTR not in (planned.attrs or {})
    names = [b.value.op.name for b in planned["main"].body.blocks[0].bindings
             if hasattr(b.value, "op") and hasattr(b.value.op, "name")]
    assert names.count("relax.memory.alloc_storage") == 1  # t is planned, out stays fresh


def test_recorded_plans_when_asked():
    planned = relax.transform.StaticPlanBlockMemory(record_plans=True)(TwoKernels)
    assert planned.attrs[PLAN_ATTR]["main"].storages
