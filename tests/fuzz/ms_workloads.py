"""Workloads for fuzzing MetaSchedule's design spaces (``fuzz_ms_spaces.py``): ResNet-50's
convolution shapes channel-blocked (NCHWc) with int32 and with int64 shapes, depthwise
convolution, pooling, dense and batched matmul, softmax, layer_norm and LRN, made with
te/topi; and the kernels the Relax pipeline makes of a small ResNet-like model
(``extract_tasks``: int64 shapes, convolutions blocked by the default pipeline).

ResNet-50's convolutions keep their channels, kernels, strides and padding; the spatial
size is cut to 14 or 7 (or 32 for the 224-pixel stem), so the unscheduled reference runs in
a fraction of a second.
"""

from __future__ import annotations

import functools

from ember import te, tir, topi

# (name, in channels, out channels, kernel, stride, padding, height = width)
RESNET50_CONVS = (
    ("stem_7x7_s2", 3, 64, 7, 2, 3, 32),
    ("res2_1x1_reduce", 256, 64, 1, 1, 0, 14),
    ("res2_3x3", 64, 64, 3, 1, 1, 14),
    ("res2_1x1_expand", 64, 256, 1, 1, 0, 14),
    ("res3_3x3_s2", 128, 128, 3, 2, 1, 14),
    ("res4_1x1_down_s2", 512, 1024, 1, 2, 0, 14),
    ("res5_3x3", 512, 512, 3, 1, 1, 7),
    ("res5_1x1_expand", 512, 2048, 1, 1, 0, 7),
)


def _dims(shape, index_dtype):
    return tuple(tir.IntImm(index_dtype, d) for d in shape) if index_dtype == "int64" else tuple(shape)


def _block(channels: int) -> int:
    return 16 if channels % 16 == 0 else channels


def conv_nchwc(cin, cout, k, stride, pad, hw, index_dtype="int32"):
    bi, bo = _block(cin), _block(cout)
    x = te.placeholder(_dims((1, cin // bi, hw, hw, bi), index_dtype), name="X")
    w = te.placeholder(_dims((cout // bo, cin, k, k, bo), index_dtype), name="W")
    y = topi.nn.conv2d_nchwc(x, w, (stride, stride), (pad, pad, pad, pad), (1, 1), "float32")
    return te.create_prim_func([x, w, y])


def depthwise_nchwc(channels=64, hw=14, k=3, stride=1, index_dtype="int32"):
    b = 16
    x = te.placeholder(_dims((1, channels // b, hw, hw, b), index_dtype), name="X")
    w = te.placeholder(_dims((channels // b, 1, k, k, b), index_dtype), name="W")
    y = topi.nn.conv2d_nchwc(x, w, (stride, stride), (k // 2,) * 4, (1, 1), "float32", depthwise=True)
    return te.create_prim_func([x, w, y])


def max_pool_nchw(index_dtype="int32"):
    x = te.placeholder(_dims((1, 64, 28, 28), index_dtype), name="X")
    y = topi.nn.pool2d(x, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    return te.create_prim_func([x, y])


def avg_pool_nchw(index_dtype="int32"):
    x = te.placeholder(_dims((1, 32, 14, 14), index_dtype), name="X")
    y = topi.nn.pool2d(x, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), "avg")
    return te.create_prim_func([x, y])


def global_avg_pool(index_dtype="int32"):
    x = te.placeholder(_dims((1, 256, 7, 7), index_dtype), name="X")
    y = topi.nn.adaptive_pool(x, (1, 1), "avg")
    return te.create_prim_func([x, y])


def dense(index_dtype="int32"):
    x = te.placeholder(_dims((4, 256), index_dtype), name="X")
    w = te.placeholder(_dims((100, 256), index_dtype), name="W")
    return te.create_prim_func([x, w, topi.nn.dense(x, w)])


def batch_matmul(index_dtype="int32"):
    a = te.placeholder(_dims((4, 32, 48), index_dtype), name="A")
    b = te.placeholder(_dims((4, 40, 48), index_dtype), name="B")
    return te.create_prim_func([a, b, topi.nn.batch_matmul(a, b)])


def softmax(index_dtype="int32"):
    x = te.placeholder(_dims((8, 1000), index_dtype), name="X")
    return te.create_prim_func([x, topi.nn.softmax(x)])


def layer_norm(index_dtype="int32"):
    x = te.placeholder(_dims((16, 768), index_dtype), name="X")
    g = te.placeholder(_dims((768,), index_dtype), name="G")
    b = te.placeholder(_dims((768,), index_dtype), name="B")
    return te.create_prim_func([x, g, b, topi.nn.layer_norm(x, g, b, axis=[1])])


def lrn(index_dtype="int32"):
    x = te.placeholder(_dims((1, 32, 14, 14), index_dtype), name="X")
    return te.create_prim_func([x, topi.nn.lrn(x, 5)])


def _te_workloads() -> dict:
    out = {}
    for dtype in ("int32", "int64"):
        for name, *shape in RESNET50_CONVS:
            out[f"conv_{name}_{dtype}"] = functools.partial(conv_nchwc, *shape, index_dtype=dtype)
        for name, make in (("depthwise_3x3", depthwise_nchwc), ("max_pool_3x3_s2", max_pool_nchw),
                           ("avg_pool_3x3", avg_pool_nchw), ("global_avg_pool", global_avg_pool),
                           ("dense", dense), ("batch_matmul", batch_matmul), ("softmax", softmax),
                           ("layer_norm", layer_norm), ("lrn", lrn)):
            out[f"{name}_{dtype}"] = functools.partial(make, index_dtype=dtype)
    return out


TE_WORKLOADS = _te_workloads()


@functools.cache
def relax_tasks(target: str) -> dict:
    """The kernels ``extract_tasks`` finds in a small ResNet-like Relax model, by task name."""
    from ember.meta_schedule.relax_integration import extract_tasks
    from ember.relax.frontend import nn

    class Net(nn.Module):
        def __init__(self):
            self.stem = nn.Conv2D(16, 32, 3, padding=1, bias=False)
            self.dw = nn.Conv2D(32, 32, 3, padding=1, groups=32, bias=False)
            self.down = nn.Conv2D(32, 64, 1, stride=2, bias=False)
            self.norm = nn.LayerNorm(64)
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            y = nn.op.max_pool2d(nn.op.relu(self.stem(x)), 3, 1, 1)
            y = self.down(nn.op.relu(self.dw(y)))
            y = nn.op.mean(y, axis=[2, 3])
            return nn.op.softmax(self.fc(self.norm(y)), axis=-1)

    mod, _ = Net().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 16, 14, 14), "float32")}})
    tasks = extract_tasks(mod, target)
    return {f"relax_{t.task_name}": t.mod for t in tasks}


def workload_names(target: str) -> list[str]:
    return sorted(TE_WORKLOADS) + sorted(relax_tasks(target))


def workload(name: str, target: str):
    """The IRModule of workload ``name``."""
    from ember import IRModule

    if name in TE_WORKLOADS:
        return IRModule({"main": TE_WORKLOADS[name]()})
    return relax_tasks(target)[name]
