"""``estimate_flops``: floating-point operations of an (unscheduled) kernel — arithmetic
nodes of float type in each block's body times the block's iteration count."""

from __future__ import annotations

from ember.tir import Add, Block, Call, Div, FloorDiv, Max, Min, Mul, Sub, post_order_visit

from .utils import normalize_mod, prim_func_of

_ARITH = (Add, Sub, Mul, Div, FloorDiv, Max, Min, Call)


def estimate_flops(mod) -> float:
    _, func = prim_func_of(normalize_mod(mod))
    total = [0.0]

    def visit(node):
        if not isinstance(node, Block) or node.name_hint == "root":
            return
        iters = 1
        for iv in node.iter_vars:
            iters *= int(getattr(iv.dom.extent, "value", 1))
        ops = [0]
        post_order_visit(node.body, lambda n: ops.__setitem__(0, ops[0] + 1)
                         if isinstance(n, _ARITH) and getattr(n, "dtype", None) is not None
                         and str(n.dtype).startswith(("float", "bfloat")) else None)
        total[0] += iters * ops[0]

    post_order_visit(func.body, visit)
    return total[0]
