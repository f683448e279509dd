"""TVMScript Relax: a tuple of symbolic-dim declarations may name constants too
(``N, C = T.int64(), T.int64(16)``), as TVM binds the name to the constant."""

from ember.script import relax as R
from ember.script import tir as T


def test_tuple_declaration_names_a_constant_dim():
    @R.function
    def f(x: R.Tensor(ndim=2, dtype="float32")):
        N, C = T.int64(), T.int64(16)
        y = R.match_cast(x, R.Tensor((N, C), "float32"))
        return y

    n, c = f.body.blocks[0].bindings[0].struct_info.shape.values
    assert str(n.dtype) == "int64" and int(c) == 16
