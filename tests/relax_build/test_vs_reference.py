"""The VM against the Relax reference interpreter on generated elementwise/broadcast graphs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import relax, tir, topi
from ember.relax import BlockBuilder
from ember.relax.reference import run as reference_run

UNARY = [topi.nn.relu, topi.negative, topi.exp, topi.abs]
BINARY = [topi.add, topi.multiply, topi.subtract, topi.maximum]


def graph_module(steps, symbolic: bool):
    """x[n, 6], y[6] → a chain where each step applies a unary op or combines two earlier values."""
    n = tir.Var("n", "int64") if symbolic else 3
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 6], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([6], "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            values = [x]
            for kind, op, a, b in steps:
                lhs = values[a % len(values)]
                if kind == "unary":
                    values.append(bb.emit_te(UNARY[op], lhs))
                else:
                    rhs = y if b % 3 == 0 else values[b % len(values)]
                    values.append(bb.emit_te(BINARY[op], lhs, rhs))
            out = bb.emit_output(relax.Tuple([values[-1], values[len(values) // 2]]))
        bb.emit_func_output(out)
    return bb.get()


step = st.tuples(st.sampled_from(["unary", "binary"]), st.integers(0, 3), st.integers(0, 20), st.integers(0, 20))


@settings(max_examples=6, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=6), symbolic=st.booleans())
def test_vm_matches_reference_interpreter(steps, symbolic):
    mod = graph_module(steps, symbolic)
    vm = relax.VirtualMachine(relax.build(mod), ember.cpu())
    rng = np.random.default_rng(len(steps))
    x = rng.uniform(-1, 1, (3, 6)).astype("float32")
    y = rng.uniform(-1, 1, 6).astype("float32")
    got = vm["main"](x, y)
    want = reference_run(mod, x, y)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_shape_of_and_shape_results():
    n = tir.Var("n", "int64")
    bb = BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n, 2], "float32"))
    with bb.function("main", [x]):
        s = bb.emit(relax.op.shape_of(x))
        bb.emit_func_output(relax.Tuple([s, relax.ShapeExpr([n * 2, 3])]))
    vm = relax.VirtualMachine(relax.build(bb.get()), ember.cpu())
    assert vm["main"](np.zeros((5, 2), "float32")) == ((5, 2), (10, 3))
