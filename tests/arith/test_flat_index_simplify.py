"""The flat index of a fused loop over a padded 5-D buffer (what a channel-blocked padding copy
lowers to) simplifies to a value-equal expression: ``(x % (h*w) // w) * (w*c) + (x % w) * c``
is ``(x % (h*w)) * c`` — found as wrong code (an extra ``x % w * c``) in a conv's padding loop."""

import pytest

from ember import tir
from ember.arith import Analyzer


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("h,w,c", [(58, 58, 16), (3, 5, 8), (7, 7, 4)])
def test_fused_padding_index_keeps_its_value(dtype, h, w, c):
    x = tir.Var("x", dtype)

    def k(v):
        return tir.const(v, dtype)

    index = (x // k(h * w)) * k(h * w * c) + (x % k(h * w) // k(w)) * k(w * c) + (x % k(w)) * k(c)
    for simplify in (Analyzer().simplify, Analyzer().rewrite_simplify, Analyzer().canonical_simplify):
        got = simplify(index)
        for v in range(0, 3 * h * w, max(1, h * w // 40)):
            want = (v // (h * w)) * h * w * c + (v % (h * w) // w) * w * c + (v % w) * c
            value = Analyzer().simplify(tir.substitute(got, {x: k(v)}))
            assert int(value.value) == want, f"{simplify.__name__}: {index} -> {got} is wrong at x = {v}"
