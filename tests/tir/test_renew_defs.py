"""tir.stmt_functor.renew_defs: fresh definitions, same structure."""

from ember.ir import structural_equal
from ember.script import tir as T
from ember.tir import Block
from ember.tir.functor import collect
from ember.tir.stmt_functor import renew_defs


@T.prim_func
def scale(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj]


def test_renewed_copy_is_equal_but_shares_no_definitions():
    new = renew_defs(scale)
    assert structural_equal(new, scale)
    assert all(a is not b for a, b in zip(new.params, scale.params))
    old_b, new_b = scale.body.block.alloc_buffers[0], new.body.block.alloc_buffers[0]
    assert new_b is not old_b and new_b.data is not old_b.data
    old_blocks = collect(scale.body, lambda n: isinstance(n, Block))
    new_blocks = collect(new.body, lambda n: isinstance(n, Block))
    for x, y in zip(old_blocks, new_blocks):
        assert all(a.var is not b.var for a, b in zip(x.iter_vars, y.iter_vars))
