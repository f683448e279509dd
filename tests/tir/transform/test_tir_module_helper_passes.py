"""Apply, Filter, BindTarget, AnnotateEntryFunc, AnnotateDeviceRegions, DecorateDeviceScope."""

import pytest

import ember as tvm
from ember.script import ir as I
from ember.script import tir as T


@I.ir_module
class two_funcs:
    @T.prim_func
    def exposed(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    @T.prim_func(private=True)
    def internal(A: T.Buffer((4,), "float32")):
        A[1] = T.float32(2)


def test_filter_keeps_matching_prim_funcs():
    after = tvm.tir.transform.Filter(lambda f: "global_symbol" in f.attrs)(two_funcs)
    assert [gv.name_hint for gv in after.functions] == ["exposed"]


def test_apply_runs_on_every_prim_func():
    after = tvm.tir.transform.Apply(lambda f: f.with_attr("seen", 1))(two_funcs)
    assert all(f.attrs["seen"] == 1 for f in after.functions.values())


def test_bind_target_gives_host_only_to_exposed_functions():
    target = tvm.target.Target("cuda", host="llvm")
    after = tvm.tir.transform.BindTarget(target)(two_funcs)
    assert after["exposed"].attrs["target"] == target
    internal = after["internal"].attrs["target"]
    assert internal.kind.name == "cuda" and internal.host is None
    assert target.host is not None  # the argument itself is not changed


def test_bind_target_keeps_existing_target():
    first = tvm.tir.transform.BindTarget(tvm.target.Target("llvm"))(two_funcs)
    again = tvm.tir.transform.BindTarget(tvm.target.Target("cuda"))(first)
    assert again["exposed"].attrs["target"].kind.name == "llvm"


def test_annotate_entry_func():
    single = tvm.IRModule({"main": two_funcs["exposed"]})
    after = tvm.tir.transform.AnnotateEntryFunc()(single)
    assert after["main"].attrs["tir.is_entry_func"]
    both_exposed = tvm.IRModule({"a": two_funcs["exposed"], "b": two_funcs["exposed"]})
    with pytest.raises(ValueError, match="exactly one"):
        tvm.tir.transform.AnnotateEntryFunc()(both_exposed)


def test_decorate_then_annotate_device_regions():
    target = tvm.target.Target("cuda", host="llvm")
    mod = tvm.tir.transform.BindTarget(target)(two_funcs)
    mod = tvm.tir.transform.DecorateDeviceScope()(mod)
    assert mod["exposed"].body.attr_key == "device_scope"
    mod = tvm.tir.transform.AnnotateDeviceRegions()(mod)
    outer = mod["exposed"].body
    assert outer.attr_key == "target" and outer.node.host is None
    assert outer.body.attr_key == "device_scope"
    # the internal function's target has no host: nothing to split, left alone
    assert mod["internal"].body.attr_key == "device_scope"


def test_transform_submodule_reexports_passes():
    from ember.tir.transform.transform import BindTarget

    assert BindTarget is tvm.tir.transform.BindTarget
