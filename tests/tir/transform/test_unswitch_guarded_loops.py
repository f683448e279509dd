"""UnswitchGuardedLoops: ``for k in range(16): if k < n: S`` gets an unguarded copy for
``16 <= n`` (the combine of a symbolic row's vector partial sums), same results."""

import numpy as np
import pytest
from tir_lower_builders import func_of, loop

import ember as tvm
from ember import tir
from ember.ir import const
from ember.tir import For, IfThenElse
from ember.tir.functor import collect
from ember.tir.transform.unswitch_guarded_loops import unswitch_guarded_loops

pytest.importorskip("ember.arith")


def _guarded_sum():
    """out[0] = sum(A[k] for k < min(16, n)) through a loop of 16 guarded by k < n."""
    n = tir.Var("n", "int64")
    A = tir.decl_buffer((16,), "float32", "A")
    out = tir.decl_buffer((1,), "float32", "out")
    k = tir.Var("k", "int64")
    zero = const(0, "int64")
    add = tir.BufferStore(out, out[zero] + A[k], (zero,))
    body = tir.seq(tir.BufferStore(out, const(0.0, "float32"), (zero,)),
                   loop(k, const(16, "int64"), IfThenElse(k < n, add, None)))
    return func_of([n, A, out], body)


def test_guarded_loop_gets_an_unguarded_copy():
    after = unswitch_guarded_loops(_guarded_sum())
    (branch,) = [s for s in collect(after.body, lambda x: isinstance(x, IfThenElse)) if isinstance(s.then_case, For)]
    assert not collect(branch.then_case.body, lambda x: isinstance(x, IfThenElse))
    assert isinstance(branch.else_case, For)


def test_loop_guarded_by_its_own_variable_elsewhere_stays():
    func = _guarded_sum()
    n = func.params[0]
    k = tir.Var("k", "int64")
    A = func.buffer_map[func.params[1]]
    body = loop(k, const(16, "int64"), IfThenElse(k + 1 < n, tir.BufferStore(A, const(1.0, "float32"), (k,)), None))
    other = func_of([n, A], body)
    assert unswitch_guarded_loops(other) is other


@pytest.mark.parametrize("n", [0, 3, 16, 40])
def test_results_unchanged(n):
    kernel = tvm.build(_guarded_sum(), target="llvm")
    a = np.arange(16, dtype="float32") + 1
    out = tvm.nd.array(np.zeros(1, "float32"))
    kernel(n, tvm.nd.array(a), out)
    assert out.numpy()[0] == a[:min(n, 16)].sum()


def test_bound_read_from_a_buffer_the_loop_writes_stays_guarded():
    """for k < 16: if k < N[0]: N[0] = k — the bound changes inside the loop, so testing it
    once before the loop would be wrong (from 20: k = 0 stores 0, then no k < 0; tested once,
    16 <= 20 would run every store and leave 15)."""
    N = tir.decl_buffer((1,), "int64", "N")
    k = tir.Var("k", "int64")
    zero = const(0, "int64")
    body = loop(k, const(16, "int64"), IfThenElse(k < N[zero], tir.BufferStore(N, k, (zero,)), None))
    func = func_of([N], body)
    assert unswitch_guarded_loops(func) is func
    kernel = tvm.build(func, target="llvm")
    n = tvm.nd.array(np.array([20], "int64"))
    kernel(n)
    assert n.numpy()[0] == 0
