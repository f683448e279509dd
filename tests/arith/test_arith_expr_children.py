"""map_children / rewrite_each_once: the generic walk that arith's re-spelling passes use."""

from ember.arith.expr_children import map_children, rewrite_each_once
from ember.ir import Add, IntImm, Mul, Var, structural_equal


def test_map_children_returns_the_same_node_when_nothing_changes():
    x = Var("x")
    e = Add(x, IntImm("int32", 1))
    assert map_children(e, lambda c: c) is e
    assert structural_equal(map_children(e, lambda c: x if c is not x else c), Add(x, x))


def test_rewrite_each_once_visits_a_shared_subtree_once_and_keeps_it_shared():
    x, y = Var("x"), Var("y")
    shared = Mul(x, y)
    e = Add(shared, shared)
    seen = []

    def step(node, visit):
        seen.append(type(node).__name__)
        out = map_children(node, visit)
        return Add(out.b, out.a) if type(out) is Mul else out  # x * y becomes y + x

    out = rewrite_each_once(e, step)
    assert seen == ["Add", "Mul"]  # the Mul once, although the sum uses it twice; leaves never
    assert out.a is out.b and structural_equal(out.a, Add(y, x))
    assert rewrite_each_once(x, step) is x
