"""The simplifier's rule table: for each node type, the ordered rules to try.

Most rules are patterns (``Rule(name, lhs, rhs, cond)`` over wildcard IR, see
``pattern.py``); the rest are functions that reason over linear forms and bounds
(``rules_arith``, ``rules_logic``).  Every rule returns a replacement or ``None``;
the driver in ``simplifier.py`` takes the first hit and simplifies it again.
"""

from __future__ import annotations

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Broadcast, Call, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, Max,
    Min, Mod, Mul, Not, Or, Ramp, Select, Sub,
)
from ember.runtime.dtype import DataType

from .fold import fold_binary, fold_cast, fold_if_then_else, fold_not, fold_select
from .linear import Linear, is_int_scalar
from .pattern import PConst, PVar, Rule
from .rules_and import and_div_mod
from .rules_branch import nested_conditional
from .rules_call import fold_int_intrinsic
from .rules_divisor import div_by_symbol
from .rules_push import merge_selects, minmax_absorb, mod_drop_residues, push_into_minmax
from .rules_arith import cast_linear, div_linear, linear_sum, minmax_bound, mod_linear, mul_products
from .rules_logic import compare_linear, logic_entailment
from .rules_mod_two import mod_two_offsets
from .rules_product import compare_product_sum
from .vector import vector_rules

__all__ = ["RULES", "rules_for"]

x, y, z = PVar("x"), PVar("y"), PVar("z")
c1, c2 = PConst("c1"), PConst("c2")
_B = DataType("bool")
T, F = IntImm(_B, 1), IntImm(_B, 0)
ZERO, ONE, TWO = IntImm(DataType("int32"), 0), IntImm(DataType("int32"), 1), IntImm(DataType("int32"), 2)
FZERO, FONE = FloatImm(DataType("float32"), 0.0), FloatImm(DataType("float32"), 1.0)


def _int(m, s) -> bool:
    return is_int_scalar(m.dtype)


def _args_int(m, s) -> bool:
    return is_int_scalar(m["x"].dtype)


def _pos(*names):
    return lambda m, s: all(getattr(m, n) > 0 for n in names)


def _nonneg(name):
    return lambda m, s: s.bound(m[name])[0] >= 0


def _below_divisor(m, s) -> bool:
    """0 <= x < y, for a symbolic y (constant divisors are handled by the linear rules)."""
    if not _args_int(m, s) or type(m.y) is IntImm or s.bound(m.x)[0] < 0:
        return False
    return s.prove_le0(s.linear(m.x).plus(s.linear(m.y), -1).plus(Linear({}, 1)))


# -- identities ----------------------------------------------------------------------
IDENTITY = [
    Rule("x + 0", Add(x, ZERO), x),
    Rule("0 + x", Add(ZERO, x), x),
    Rule("x - 0", Sub(x, ZERO), x),
    Rule("x - x", Sub(x, x), ZERO, _int),
    Rule("x * 1", Mul(x, ONE), x),
    Rule("1 * x", Mul(ONE, x), x),
    Rule("x * 0", Mul(x, ZERO), ZERO, _int),
    Rule("0 * x", Mul(ZERO, x), ZERO, _int),
]
FLOAT_IDENTITY = {
    Add: [Rule("x + 0.0", Add(x, FZERO), x), Rule("0.0 + x", Add(FZERO, x), x)],
    Sub: [Rule("x - 0.0", Sub(x, FZERO), x)],
    Mul: [Rule("x * 1.0", Mul(x, FONE), x), Rule("1.0 * x", Mul(FONE, x), x)],
    Div: [Rule("x / 1.0", Div(x, FONE), x)],
}
DIV_RULES = [
    Rule("x / 1", Div(x, ONE), x),
    Rule("x // 1", FloorDiv(x, ONE), x, _int),
    Rule("(x // c1) // c2", FloorDiv(FloorDiv(x, c1), c2), lambda m: FloorDiv(m.x, m.const(m.c1 * m.c2)),
         _pos("c1", "c2")),
    Rule("(x / c1) / c2", Div(Div(x, c1), c2), lambda m: Div(m.x, m.const(m.c1 * m.c2)), _pos("c1", "c2")),
    Rule("(x * y) // y", FloorDiv(Mul(x, y), y), x, lambda m, s: s.bound(m.y)[0] > 0),
    Rule("(y * x) // y", FloorDiv(Mul(y, x), y), x, lambda m, s: s.bound(m.y)[0] > 0),
    Rule("x // x", FloorDiv(x, x), ONE, lambda m, s: s.bound(m.x)[0] > 0),
    Rule("0 // x", FloorDiv(ZERO, x), ZERO, _int),
    Rule("0 / x", Div(ZERO, x), ZERO, _int),
    Rule("x // y, 0 <= x < y", FloorDiv(x, y), ZERO, _below_divisor),
    Rule("x / y, 0 <= x < y", Div(x, y), ZERO, _below_divisor),
]


def _div_of_minmax(div) -> list:
    """``min(x*c1, y) // c2`` → ``min(x*(c1/c2), y // c2)`` when c2 | c1: division by a
    positive constant is monotone (floor and truncating alike), so it passes into min/max."""
    rules = []
    for P in (Min, Max):
        name = f"{P.__name__.lower()}(x*c1, y) {div.__name__} c2"
        cond = lambda m, s: m.c2 > 0 and m.c1 % m.c2 == 0  # noqa: E731
        rules.append(Rule(name, div(P(Mul(x, c1), y), c2),
                          lambda m, P=P: P(Mul(m.x, m.const(m.c1 // m.c2)), div(m.y, m["c2"])), cond))
        rules.append(Rule(name + " (swapped)", div(P(y, Mul(x, c1)), c2),
                          lambda m, P=P: P(div(m.y, m["c2"]), Mul(m.x, m.const(m.c1 // m.c2))), cond))
    return rules


def _nonneg_x_c2(m, s) -> bool:
    return m.c2 >= 0 and s.bound(m.x)[0] >= 0


c3 = PConst("c3")
NESTED_DIV_RULES = {
    # floor((floor(x/c1) + c2)/c3) == floor((x + c1*c2)/(c1*c3)); truncating when nothing is negative
    FloorDiv: [
        Rule("(x // c1 + c2) // c3", FloorDiv(Add(FloorDiv(x, c1), c2), c3),
             lambda m: FloorDiv(Add(m.x, m.const(m.c1 * m.c2)), m.const(m.c1 * m.c3)), _pos("c1", "c3")),
        Rule("(x % 2 + 1) // 2", FloorDiv(Add(FloorMod(x, TWO), ONE), TWO), FloorMod(x, TWO)),
        Rule("(x - x % c1) // c1", FloorDiv(Sub(x, FloorMod(x, c1)), c1), lambda m: FloorDiv(m.x, m["c1"]),
             lambda m, s: m.c1 != 0),
    ],
    Div: [
        Rule("(x / c1 + c2) / c3", Div(Add(Div(x, c1), c2), c3),
             lambda m: Div(Add(m.x, m.const(m.c1 * m.c2)), m.const(m.c1 * m.c3)),
             lambda m, s: m.c1 > 0 and m.c3 > 0 and _nonneg_x_c2(m, s)),
    ],
}
MOD_RULES = [
    Rule("x % 1", FloorMod(x, ONE), ZERO, _int),
    Rule("x truncmod 1", Mod(x, ONE), ZERO, _int),
    Rule("x truncmod c1, c1 < 0", Mod(x, c1), lambda m: Mod(m.x, m.const(-m.c1)),
         lambda m, s: m.c1 < 0 and _int(m, s)),  # the sign of a truncated remainder is x's
    Rule("(x % c1) % c2", FloorMod(FloorMod(x, c1), c2), lambda m: FloorMod(m.x, m.const(m.c2)),
         lambda m, s: m.c1 > 0 and m.c2 > 0 and m.c1 % m.c2 == 0),
    Rule("(x * y) % y", FloorMod(Mul(x, y), y), ZERO, lambda m, s: s.bound(m.y)[0] > 0),
    Rule("(y * x) % y", FloorMod(Mul(y, x), y), ZERO, lambda m, s: s.bound(m.y)[0] > 0),
    Rule("x % x", FloorMod(x, x), ZERO, lambda m, s: s.bound(m.x)[0] > 0),
    Rule("0 % x", FloorMod(ZERO, x), ZERO, _int),
    Rule("0 truncmod x", Mod(ZERO, x), ZERO, _int),
    Rule("x % y, 0 <= x < y", FloorMod(x, y), x, _below_divisor),
    Rule("x truncmod y, 0 <= x < y", Mod(x, y), x, _below_divisor),
]


def _minmax_rules(P, Q, pick) -> list:
    """The rules of ``P`` (min or max); ``Q`` is its dual and ``pick`` the Python builtin.
    Written once for both: every rule of min mirrors to max by swapping the two."""
    p, q = P.__name__.lower(), Q.__name__.lower()
    rules = [
        Rule(f"{p}(x, x)", P(x, x), x),
        Rule(f"{p}({p}(x, y), x)", P(P(x, y), x), P(x, y)),
        Rule(f"{p}({p}(x, y), y)", P(P(x, y), y), P(x, y)),
        Rule(f"{p}(x, {p}(x, y))", P(x, P(x, y)), P(x, y)),
        Rule(f"{p}(y, {p}(x, y))", P(y, P(x, y)), P(x, y)),
        Rule(f"{p}({q}(x, y), x)", P(Q(x, y), x), x),
        Rule(f"{p}({q}(x, y), y)", P(Q(x, y), y), y),
        Rule(f"{p}(x, {q}(x, y))", P(x, Q(x, y)), x),
        Rule(f"{p}({p}(x, c1), c2)", P(P(x, c1), c2), lambda m: P(m.x, m.const(pick(m.c1, m.c2)))),
        Rule(f"{p}(x * c1, y * c1)", P(Mul(x, c1), Mul(y, c1)), lambda m: Mul(P(m.x, m.y), m["c1"]),
             _pos("c1")),
        Rule(f"{p}(x * c1, y * c1), c1 < 0", P(Mul(x, c1), Mul(y, c1)),
             lambda m: Mul(Q(m.x, m.y), m["c1"]), lambda m, s: m.c1 < 0),
        Rule(f"{p}(x * c1, c2), c1 | c2", P(Mul(x, c1), c2),
             lambda m: Mul((P if m.c1 > 0 else Q)(m.x, m.const(m.c2 // m.c1)), m["c1"]),
             lambda m, s: _int(m, s) and m.c1 != 0 and m.c2 % m.c1 == 0),
        Rule(f"{p}(c1 - x, c2)", P(Sub(c1, x), c2), lambda m: Sub(m["c1"], Q(m.x, m.const(m.c1 - m.c2))),
             _int),
    ]
    for left in (Q(x, y), Q(y, x)):
        for right in (Q(x, z), Q(z, x)):
            rules.append(Rule(f"{p}({left!r}, {right!r})", P(left, right), Q(P(y, z), x)))
    for div in (FloorDiv, Div):
        rules.append(Rule(f"{p}(x {div.__name__} c1, y {div.__name__} c1)", P(div(x, c1), div(y, c1)),
                          lambda m, div=div: div((P if m.c1 > 0 else Q)(m.x, m.y), m["c1"]),
                          lambda m, s: m.c1 != 0))
    return rules


MIN_RULES = _minmax_rules(Min, Max, min)
MAX_RULES = _minmax_rules(Max, Min, max)


MUL_MINMAX = [
    Rule("min(x, y) * max(x, y)", Mul(Min(x, y), Max(x, y)), Mul(x, y)),
    Rule("max(x, y) * min(x, y)", Mul(Max(x, y), Min(x, y)), Mul(x, y)),
]


COMPARE_RULES = {
    EQ: [Rule("x == x", EQ(x, x), T, _args_int)],
    NE: [Rule("x != x", NE(x, x), F, _args_int)],
    LE: [Rule("x <= x", LE(x, x), T, _args_int)],
    GE: [Rule("x >= x", GE(x, x), T, _args_int)],
    LT: [Rule("x < x", LT(x, x), F, _args_int)],
    GT: [Rule("x > x", GT(x, x), F, _args_int)],
}
AND_RULES = [
    Rule("x && true", And(x, T), x),
    Rule("true && x", And(T, x), x),
    Rule("x && false", And(x, F), F),
    Rule("false && x", And(F, x), F),
    Rule("x && x", And(x, x), x),
    Rule("x && !x", And(x, Not(x)), F),
    Rule("!x && x", And(Not(x), x), F),
    Rule("(x && y) && x", And(And(x, y), x), And(x, y)),
    Rule("(x && y) && y", And(And(x, y), y), And(x, y)),
    Rule("x == y && x != y", And(EQ(x, y), NE(x, y)), F),
    Rule("x != y && x == y", And(NE(x, y), EQ(x, y)), F),
    Rule("x == c1 && x != c2", And(EQ(x, c1), NE(x, c2)), EQ(x, c1), lambda m, s: m.c1 != m.c2),
    Rule("x != c2 && x == c1", And(NE(x, c2), EQ(x, c1)), EQ(x, c1), lambda m, s: m.c1 != m.c2),
    Rule("x == c1 && x == c2", And(EQ(x, c1), EQ(x, c2)), F, lambda m, s: m.c1 != m.c2),
    Rule("x && (y && z)", And(x, And(y, z)), And(And(x, y), z)),
]
OR_RULES = [
    Rule("x || false", Or(x, F), x),
    Rule("false || x", Or(F, x), x),
    Rule("x || true", Or(x, T), T),
    Rule("true || x", Or(T, x), T),
    Rule("x || x", Or(x, x), x),
    Rule("x || !x", Or(x, Not(x)), T),
    Rule("!x || x", Or(Not(x), x), T),
    Rule("(x || y) || x", Or(Or(x, y), x), Or(x, y)),
    Rule("(x || y) || y", Or(Or(x, y), y), Or(x, y)),
    Rule("x == y || x != y", Or(EQ(x, y), NE(x, y)), T),
    Rule("x != y || x == y", Or(NE(x, y), EQ(x, y)), T),
    Rule("x != c1 || x == c2", Or(NE(x, c1), EQ(x, c2)), NE(x, c1), lambda m, s: m.c1 != m.c2),
    Rule("x == c2 || x != c1", Or(EQ(x, c2), NE(x, c1)), NE(x, c1), lambda m, s: m.c1 != m.c2),
    Rule("x != c1 || x != c2", Or(NE(x, c1), NE(x, c2)), T, lambda m, s: m.c1 != m.c2),
    Rule("x || (y || z)", Or(x, Or(y, z)), Or(Or(x, y), z)),
]
NOT_RULES = [
    Rule("!!x", Not(Not(x)), x),
    Rule("!(x < y)", Not(LT(x, y)), LE(y, x), _args_int),
    Rule("!(x <= y)", Not(LE(x, y)), LT(y, x), _args_int),
    Rule("!(x > y)", Not(GT(x, y)), LE(x, y), _args_int),
    Rule("!(x >= y)", Not(GE(x, y)), LT(x, y), _args_int),
    Rule("!(x == y)", Not(EQ(x, y)), NE(x, y), _args_int),
    Rule("!(x != y)", Not(NE(x, y)), EQ(x, y), _args_int),
    Rule("!(x && y)", Not(And(x, y)), Or(Not(x), Not(y))),
    Rule("!(x || y)", Not(Or(x, y)), And(Not(x), Not(y))),
]
SELECT_RULES = [
    Rule("select(!c, x, y)", Select(Not(z), x, y), Select(z, y, x)),
]


def _apply(rules):
    return [r.apply for r in rules]


RULES: dict[type, list] = {
    Add: [fold_binary, *vector_rules(Add), *_apply(IDENTITY[:2] + FLOAT_IDENTITY[Add]), merge_selects,
          push_into_minmax, mod_two_offsets, linear_sum],
    Sub: [fold_binary, *vector_rules(Sub), *_apply(IDENTITY[2:4] + FLOAT_IDENTITY[Sub]), merge_selects,
          push_into_minmax, mod_two_offsets, linear_sum],
    Mul: [fold_binary, *vector_rules(Mul), *_apply(IDENTITY[4:] + FLOAT_IDENTITY[Mul] + MUL_MINMAX),
          mul_products, linear_sum],
    FloorDiv: [fold_binary, *vector_rules(FloorDiv),
               *_apply(DIV_RULES + NESTED_DIV_RULES[FloorDiv] + _div_of_minmax(FloorDiv)), div_by_symbol, div_linear],
    Div: [fold_binary, *vector_rules(Div),
          *_apply(DIV_RULES + FLOAT_IDENTITY[Div] + NESTED_DIV_RULES[Div] + _div_of_minmax(Div)), div_by_symbol,
          div_linear],
    FloorMod: [fold_binary, *vector_rules(FloorMod), *_apply(MOD_RULES), mod_drop_residues, div_by_symbol, mod_linear],
    Mod: [fold_binary, *vector_rules(Mod), *_apply(MOD_RULES), div_by_symbol, mod_linear],
    Min: [fold_binary, *vector_rules(Min), *_apply(MIN_RULES), minmax_absorb, merge_selects, minmax_bound],
    Max: [fold_binary, *vector_rules(Max), *_apply(MAX_RULES), minmax_absorb, merge_selects, minmax_bound],
    **{cls: [fold_binary, *vector_rules(cls), *_apply(rules), compare_product_sum, compare_linear]
       for cls, rules in COMPARE_RULES.items()},
    And: [fold_binary, *vector_rules(And), *_apply(AND_RULES), logic_entailment, and_div_mod],
    Or: [fold_binary, *vector_rules(Or), *_apply(OR_RULES), logic_entailment],
    Not: [fold_not, *_apply(NOT_RULES)],
    Select: [fold_select, *_apply(SELECT_RULES), nested_conditional],
    Cast: [fold_cast, cast_linear],
    Call: [fold_if_then_else, fold_int_intrinsic, nested_conditional],
    Ramp: vector_rules(Ramp),
    Broadcast: [],
}


def rules_for(cls) -> list:
    """The rules of ``cls`` or of its nearest listed base class (none for unknown nodes)."""
    for base in cls.__mro__:
        if base in RULES:
            RULES[cls] = RULES[base]
            return RULES[base]
    RULES[cls] = []
    return []
