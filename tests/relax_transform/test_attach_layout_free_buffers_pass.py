"""AttachAttrLayoutFreeBuffers: kernels learn which arguments are weights."""

from ember import relax, topi
from ember.tir import PrimFunc


def _module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 4), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((4, 4), "float32"))
    with bb.function("main", [x, w], attrs={"num_input": 1}):
        with bb.dataflow():
            y = bb.emit_te(topi.nn.matmul, x, w)
            z = bb.emit_te(topi.nn.matmul, w, y)
            out = bb.emit_output(z)
        bb.emit_func_output(out)
    return bb.get()


def test_weight_positions_recorded_per_call_pattern():
    out = relax.transform.AttachAttrLayoutFreeBuffers()(_module())
    kernels = {gv.name_hint: f for gv, f in out.functions.items() if isinstance(f, PrimFunc)}
    free = sorted(tuple(f.attrs["layout_free_buffers"]) for f in kernels.values())
    assert free == [(0,), (1,)]
    relax.analysis.check_well_formed(out)


def test_no_num_input_no_change():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 4), "float32"))
    with bb.function("main", [x]):
        y = bb.emit_te(topi.nn.matmul, x, x)
        bb.emit_func_output(y)
    mod = bb.get()
    assert relax.transform.AttachAttrLayoutFreeBuffers()(mod) is mod
