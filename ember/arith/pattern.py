"""Patterns for rewrite rules, written as ordinary IR with wildcard variables.

``PVar("x")`` matches any expression (the same name twice must match equal
expressions); ``PConst("c1")`` matches an integer constant.  A ``Rule`` pairs a pattern
with a replacement — another pattern, or a function of the ``Match`` — and an optional
side condition ``cond(match, simplifier)``.  Wildcards ignore dtypes: constants in a
replacement take the dtype of the expression being rewritten.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ember.ir import FloatImm, IntImm, Node, PrimExpr, Var, fields_of
from ember.runtime.dtype import DataType

__all__ = ["PVar", "PConst", "Rule", "Match", "match", "instantiate"]


class PVar(Var):
    """A wildcard matching any expression."""

    __slots__ = ()

    def __init__(self, name: str, dtype="int32"):
        super().__init__(name, dtype)


class PConst(Var):
    """A wildcard matching an integer (or bool) constant."""

    __slots__ = ()

    def __init__(self, name: str, dtype="int32"):
        super().__init__(name, dtype)


class Match(dict):
    """Bindings of a successful match; ``m.x`` is an expression, ``m.c1`` an int value."""

    dtype: DataType

    def __getattr__(self, name):
        try:
            value = self[name]
        except KeyError:
            raise AttributeError(name) from None
        return value.value if isinstance(value, IntImm) and name in self.consts else value

    @property
    def consts(self) -> set:
        return self.__dict__.setdefault("_consts", set())

    def const(self, value) -> PrimExpr:
        """A constant in the dtype of the matched expression."""
        return IntImm(self.dtype, int(value))


@dataclass(frozen=True)
class Rule:
    """``lhs`` → ``rhs`` when ``cond(match, simplifier)`` holds."""

    name: str
    lhs: PrimExpr
    rhs: PrimExpr | Callable
    cond: Callable | None = None
    guard: tuple = ()  # (field, required type) of the pattern's direct children: a cheap pre-check

    def __post_init__(self):
        guard = []
        for name in fields_of(type(self.lhs)):
            child = getattr(self.lhs, name)
            if isinstance(child, PConst):
                guard.append((name, IntImm))
            elif isinstance(child, Node) and not isinstance(child, Var):
                guard.append((name, type(child)))
        object.__setattr__(self, "guard", tuple(guard))

    def apply(self, s, e: PrimExpr):
        for name, cls in self.guard:
            if type(getattr(e, name)) is not cls:
                return None
        m = Match()
        m.dtype = e.dtype
        if not match(self.lhs, e, m, s.keys):
            return None
        if self.cond is not None and not self.cond(m, s):
            return None
        if callable(self.rhs) and not isinstance(self.rhs, PrimExpr):
            return self.rhs(m)
        return instantiate(self.rhs, m, e.dtype)


def match(pat, e, m: Match, keys) -> bool:
    """Match ``e`` against ``pat``, extending the bindings ``m``."""
    cls = type(pat)
    if cls is PVar:
        bound = m.get(pat.name)
        if bound is None:
            m[pat.name] = e
            return True
        return bound is e or keys.key(bound) == keys.key(e)
    if cls is PConst:
        if type(e) is not IntImm:
            return False
        bound = m.get(pat.name)
        if bound is None:
            m[pat.name] = e
            m.consts.add(pat.name)
            return True
        return bound.value == e.value
    if cls is IntImm or cls is FloatImm:
        return type(e) is cls and e.value == pat.value
    if type(e) is not cls:
        return False
    for name in fields_of(cls):
        p, v = getattr(pat, name), getattr(e, name)
        if isinstance(p, Node):
            if not match(p, v, m, keys):
                return False
        elif isinstance(p, DataType):
            continue  # wildcards are dtype-agnostic
        elif p != v:
            return False
    return True


def instantiate(tmpl, m: Match, dtype: DataType):
    """Build ``tmpl`` with wildcards replaced by their bindings; constants take ``dtype``."""
    cls = type(tmpl)
    if cls is PVar or cls is PConst:
        return m[tmpl.name]
    if cls is IntImm:
        return IntImm(dtype if not tmpl.dtype.is_bool else tmpl.dtype, tmpl.value)
    if not isinstance(tmpl, Node):
        return tmpl
    values = {}
    for name in fields_of(cls):
        v = getattr(tmpl, name)
        values[name] = instantiate(v, m, dtype) if isinstance(v, Node) else v
    return cls(**values)
