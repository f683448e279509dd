"""DeduplicatePrimFuncs: repeated identical kernels (a network's repeated blocks) become one
PrimFunc that every call uses; different kernels stay apart; results unchanged."""

import numpy as np

import ember
from ember import relax, tir
from ember.relax.transform import DeduplicatePrimFuncs


def _chain(widths):
    """x → relu(x @ w_i + b_i) for each width (repeated widths give identical kernels)."""
    rng = np.random.default_rng(1)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, widths[0]), "float32"))
    weights = []
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for a, b in zip(widths, widths[1:]):
                w = rng.standard_normal((a, b)).astype("float32")
                c = rng.standard_normal((b,)).astype("float32")
                weights.append((w, c))
                y = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(y, relax.const(w)), relax.const(c))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get(), weights


def _kernels(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if isinstance(f, tir.PrimFunc))


def test_identical_kernels_merged():
    mod, _ = _chain([8, 8, 8, 8, 5])
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(relax.transform.AnnotateTIROpPattern()(
        relax.transform.LegalizeOps()(mod))))
    before = _kernels(fused)
    out = DeduplicatePrimFuncs()(fused)
    after = _kernels(out)
    assert len(before) == 4 and len(after) == 2  # three 8x8 layers share one kernel, the 8x5 keeps its own
    relax.analysis.check_well_formed(out)
    text = out["main"].script()
    assert all(name in text for name in after)


def test_nothing_to_merge_returns_module():
    mod, _ = _chain([8, 6, 5])
    fused = relax.get_pipeline("zero")(mod)
    assert DeduplicatePrimFuncs()(fused) is fused


def test_build_after_merge_matches_numpy():
    mod, weights = _chain([8, 8, 8, 8])
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), ember.cpu())
    x = np.random.default_rng(2).standard_normal((4, 8)).astype("float32")
    ref = x
    for w, c in weights:
        ref = np.maximum(ref @ w + c, 0)
    np.testing.assert_allclose(vm["main"](ember.nd.array(x)).numpy(), ref, rtol=1e-5, atol=1e-5)


def _residual(n_blocks: int, swap_first: bool):
    """x → relu(x @ w_i) + x per block; the first block's add takes its operands the other way
    round when ``swap_first`` (as ONNX ResNets write residual adds both ways)."""
    rng = np.random.default_rng(3)
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    weights = []
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for i in range(n_blocks):
                w = rng.standard_normal((8, 8)).astype("float32")
                weights.append(w)
                h = bb.emit(relax.op.nn.relu(relax.op.matmul(y, relax.const(w))))
                y = bb.emit(relax.op.add(y, h) if swap_first and i == 0 else relax.op.add(h, y))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get(), weights


def test_commuted_add_operands_merged_and_results_unchanged():
    plain = relax.get_pipeline("zero")(_residual(3, swap_first=False)[0])
    mod, weights = _residual(3, swap_first=True)
    swapped = relax.get_pipeline("zero")(mod)
    assert len(_kernels(swapped)) == len(_kernels(plain))  # add(x, h) and add(h, x) share one kernel
    x = np.random.default_rng(4).standard_normal((4, 8)).astype("float32")
    ref = x
    for i, w in enumerate(weights):
        h = np.maximum(ref @ w, 0)
        ref = ref + h if i == 0 else h + ref
    out = relax.VirtualMachine(relax.build(swapped, "llvm"), ember.cpu())["main"](ember.nd.array(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
