"""MetaSchedule tuning next to ember's default schedules and ONNX Runtime, in one run.

Kernels: conv2d 1×64×56×56 with 64 3×3 filters (pad 1), softmax 32×1000, matmul 1024³.
Each is tuned with ``ember.meta_schedule.tune_tir`` for at most ``--minutes`` (XGBoost
cost model, evolutionary search, ember.dlight's default schedule as a seed), then the
default-scheduled kernel, the tuned kernel and ONNX Runtime are timed side by side,
each checked against numpy first.  Ratios are ember time / ONNX Runtime time (below 1:
ember faster).  Tuning curves are saved as ``benchmarks/figures/tuning_<kernel>.png``.

Run: python benchmarks/bench_tuning.py [--threads N] [--minutes M] [--only conv2d,softmax,matmul]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from common import machine, set_threads, table, time_call


def kernels():
    """name → (PrimFunc, numpy inputs, numpy reference, ONNX graph builder, FLOPs)."""
    import numpy as np

    from ember import te, topi

    rng = np.random.default_rng(0)

    def rand(*shape):
        return rng.standard_normal(shape).astype("float32")

    def softmax_np(v):
        e = np.exp(v - v.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def conv_np(v, f):
        vp = np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1)))
        res = np.zeros((1, 64, 56, 56), "float32")
        for i in range(3):
            for j in range(3):
                res += np.einsum("nchw,fc->nfhw", vp[:, :, i:i + 56, j:j + 56], f[:, :, i, j], optimize=True)
        return res

    x, w = te.placeholder((1, 64, 56, 56), name="X"), te.placeholder((64, 64, 3, 3), name="W")
    s = te.placeholder((32, 1000), name="X")
    a, b = te.placeholder((1024, 1024), name="A"), te.placeholder((1024, 1024), name="B")
    return {
        "conv2d": (te.create_prim_func([x, w, topi.nn.conv2d_nchw(x, w, 1, 1, 1)]),
                   [rand(1, 64, 56, 56), rand(64, 64, 3, 3)], conv_np,
                   ("Conv", {"pads": [1, 1, 1, 1]}, (1, 64, 56, 56)), 2 * 64 * 56 * 56 * 64 * 9),
        "softmax": (te.create_prim_func([s, topi.nn.softmax(s, axis=-1)]), [rand(32, 1000)], softmax_np,
                    ("Softmax", {"axis": -1}, (32, 1000)), 5 * 32 * 1000),
        "matmul": (te.create_prim_func([a, b, topi.nn.matmul(a, b)]), [rand(1024, 1024), rand(1024, 1024)],
                   lambda p, q: p @ q, ("MatMul", {}, (1024, 1024)), 2 * 1024**3),
    }


def ort_session(spec, args, threads):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    op, attrs, out_shape = spec
    names = [f"in{n}" for n in range(len(args))]
    node = helper.make_node(op, names, ["out"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
                                            for n, a in zip(names, args)],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, out_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feed = dict(zip(names, args))
    return lambda: sess.run(None, feed)[0]


def ember_call(lib, args, out_shape):
    import numpy as np

    import ember

    nd_args = [ember.nd.array(a) for a in args] + [ember.nd.array(np.zeros(out_shape, "float32"))]
    fn = lib[lib.function_names[0]]
    return lambda: (fn(*nd_args), nd_args[-1])[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--only", default="conv2d,softmax,matmul")
    parser.add_argument("--work-dir", default=None, help="keep databases here (default: a temporary dir)")
    args = parser.parse_args()
    set_threads(args.threads)

    import numpy as np

    import ember
    from ember import dlight, meta_schedule as ms
    from ember.target import Target

    target = Target(f"llvm -num-cores={args.threads}")
    root = args.work_dir or tempfile.mkdtemp(prefix="ember_bench_tuning_")
    figures = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figures")
    os.makedirs(figures, exist_ok=True)
    rows = []
    for name, (func, inputs, ref, spec, flops) in kernels().items():
        if name not in args.only.split(","):
            continue
        work_dir = os.path.join(root, name)
        start = time.time()
        database = ms.tune_tir(func, target, work_dir, max_trials_global=100000, num_trials_per_iter=16, task_name=name,
                               max_time=args.minutes * 60,
                               runner=ms.LocalRunner(evaluator_config=ms.EvaluatorConfig(
                                   number=3, repeat=1, min_repeat_ms=50)))
        tuned_secs = time.time() - start
        trials = len(database)
        failed = sum(not r.is_valid for r in database.get_all_tuning_records())
        shutil.copy(os.path.join(work_dir, "tuning_curves.png"), os.path.join(figures, f"tuning_{name}.png"))
        sch = ms.tir_integration.compile_tir(database, func, target)
        tuned = ember.build(sch.mod, target=target)
        with target:
            default_mod = dlight.ApplyDefaultSchedule(*dlight.cpu.default_rules())(ember.IRModule({"main": func}))
        default = ember.build(default_mod, target=target)
        want = ref(*inputs)
        calls = {"default": ember_call(default, inputs, want.shape), "tuned": ember_call(tuned, inputs, want.shape),
                 "ort": ort_session(spec, inputs, args.threads)}
        for label, fn in calls.items():
            got = fn()
            got = got.numpy() if hasattr(got, "numpy") else got
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3, err_msg=f"{name} {label}")
        times = {label: time_call(fn) for label, fn in calls.items()}
        rows.append({"kernel": name, "trials (failed)": f"{trials} ({failed})", "tuning s": f"{tuned_secs:.0f}",
                     "default µs": f"{times['default'] * 1e6:.1f}", "tuned µs": f"{times['tuned'] * 1e6:.1f}",
                     "ORT µs": f"{times['ort'] * 1e6:.1f}",
                     "default / ORT": f"{times['default'] / times['ort']:.2f}",
                     "tuned / ORT": f"**{times['tuned'] / times['ort']:.2f}**",
                     "tuned GFLOP/s": f"{flops / times['tuned'] / 1e9:.1f}"})
        print(table(rows[-1:], list(rows[-1])), flush=True)
    print(f"\n{machine()}, {args.threads} threads, up to {args.minutes:g} min tuning per kernel\n")
    print(table(rows, list(rows[0]) if rows else []))


if __name__ == "__main__":
    main()
