"""MultiLevelTiling's design spaces of a te-made channel-blocked conv with int32 shapes
(its output buffer has int64 ones) build and compute what the unscheduled conv computes:
compute_at binds the padding block's int32 iterators to int64 region starts cast to int32,
and compute_inline binds them to the consumer's int64 indices cast to int32."""

import numpy as np
import pytest

import ember
from ember import te, topi
from ember.meta_schedule.default_seed import finalize_for_build
from ember.meta_schedule.tune_context import TuneContext
from ember.target import Target

TARGET = Target("llvm -num-cores=1")


def _conv_nchwc_int32(c=1, f=1, hw=6, b=16):
    x = te.placeholder((1, c, hw, hw, b), name="X")
    w = te.placeholder((f, c * b, 3, 3, b), name="W")
    y = topi.nn.conv2d_nchwc(x, w, (1, 1), (1, 1, 1, 1), (1, 1), "float32")
    return te.create_prim_func([x, w, y]), [int(d) for d in y.shape]


@pytest.mark.parametrize("rand_state", [0, 1, 2])  # 1 and 2 inline the int32 padding
def test_multi_level_tiling_spaces_of_int32_conv_build_and_compute_the_conv(rand_state):
    func, out_shape = _conv_nchwc_int32()
    mod = ember.IRModule({"main": func})
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (1, 1, 6, 6, 16)).astype("float32")
    w = rng.uniform(-1, 1, (1, 16, 3, 3, 16)).astype("float32")
    want = np.zeros(out_shape, "float32")
    ember.build(mod, target=TARGET)(x, w, want)
    spaces = TuneContext(mod, target=TARGET, space_generator="post-order-apply",
                         search_strategy="evolutionary",
                         rand_state=rand_state).generate_design_space()
    assert spaces
    for sch in spaces:
        got = np.zeros(out_shape, "float32")
        ember.build(finalize_for_build(sch.mod), target=TARGET)(x, w, got)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
