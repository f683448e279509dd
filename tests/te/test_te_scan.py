"""te.scan: a recurrence description (shapes, outputs, inputs, JSON round trip);
create_prim_func refuses it by name, as TVM."""

import pytest

from ember import te
from ember.ir import load_json, save_json


def _cumsum():
    m, n = te.size_var("m"), te.size_var("n")
    x = te.placeholder((m, n), name="x")
    s = te.placeholder((m, n), name="s")
    init = te.compute((1, n), lambda _, i: x[0, i])
    update = te.compute((m, n), lambda t, i: s[t - 1, i] + x[t, i])
    return x, te.scan(init, update, s, inputs=[x])


def test_scan_shapes_and_outputs():
    x, res = _cumsum()
    assert tuple(res.shape) == tuple(x.shape)
    assert isinstance(res.op, te.ScanOp) and res.op.num_outputs == 1
    assert x in res.op.input_tensors
    assert isinstance(load_json(save_json(res.op)), te.ScanOp)


def test_several_states_and_mismatches():
    m, n = te.size_var("m"), te.size_var("n")
    s1, s2 = te.placeholder((m, n), name="s1"), te.placeholder((m, n), name="s2")
    i1 = te.compute((1, n), lambda _, i: s1[0, i])
    i2 = te.compute((1, n), lambda _, i: s2[0, i])
    u1 = te.compute((m, n), lambda t, i: s1[t - 1, i] + s2[t - 1, i])
    u2 = te.compute((m, n), lambda t, i: s2[t - 1, i] * 2.0)
    r0, r1 = te.scan([i1, i2], [u1, u2], [s1, s2])
    assert (r0.value_index, r1.value_index) == (0, 1)
    with pytest.raises(ValueError, match="one entry per state"):
        te.scan([i1], [u1, u2], [s1, s2])


def test_create_prim_func_refuses_scans():
    x, res = _cumsum()
    with pytest.raises(TypeError, match="Unsupported Operation: ScanOp"):
        te.create_prim_func([x, res])
