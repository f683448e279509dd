"""Hash-consing of expressions: one small integer per distinct expression structure.

The analyzer compares and hashes sub-expressions constantly (is this atom already in
the sum? do both sides of ``min`` agree?).  ``StructKeys.key(e)`` gives every
expression an int such that two expressions get the same int exactly when they are
the same tree — free variables compared by identity, commutative operators with their
operands in either order.  Each node is keyed once (O(1) after its children), so
comparisons never re-walk trees.  Nodes the analyzer does not know (``BufferLoad``,
``Call`` …) are keyed generically by their dataclass fields.
"""

from __future__ import annotations

from ember.ir import EQ, NE, Add, And, FloatImm, IntImm, Max, Min, Mul, Node, Or, Var, fields_of
from ember.ir.expr import BinaryOp
from ember.runtime.dtype import DataType

__all__ = ["StructKeys", "COMMUTATIVE"]

COMMUTATIVE = (Add, Mul, Min, Max, EQ, NE, And, Or)


class StructKeys:
    """Maps expressions to ints; equal ints mean structurally equal expressions."""

    __slots__ = ("_by_id", "_table", "_nodes")

    def __init__(self):
        self._by_id: dict[int, tuple] = {}  # id(node) -> (node, key); holds the node alive
        self._table: dict[tuple, int] = {}
        self._nodes: list = []  # key -> the first node seen with it

    def __len__(self) -> int:
        return len(self._by_id)

    def key(self, e) -> int:
        hit = self._by_id.get(id(e))
        if hit is not None:
            return hit[1]
        if isinstance(e, BinaryOp):
            spine = []
            cur = e.a
            while isinstance(cur, BinaryOp) and id(cur) not in self._by_id:
                spine.append(cur)
                cur = cur.a
            for node in reversed(spine[1:]):  # deepest first: no deep recursion
                self.key(node)
        k = self._intern(self._shape(e))
        self._by_id[id(e)] = (e, k)
        if k == len(self._nodes):
            self._nodes.append(e)
        return k

    def node_of(self, key: int):
        """The first expression keyed ``key`` (None if unknown)."""
        return self._nodes[key] if 0 <= key < len(self._nodes) else None

    def lookup(self, shape: tuple) -> int | None:
        """The key of an expression with this shape, if one was ever keyed (no new entry)."""
        return self._table.get(shape)

    def shape_of(self, cls, *children) -> tuple:
        """The shape tuple a ``cls(*children)`` node would have (for ``lookup``)."""
        keys = [self.key(c) for c in children]
        if cls in COMMUTATIVE:
            keys.sort()
        return (cls, *keys)

    def _intern(self, shape: tuple) -> int:
        k = self._table.get(shape)
        if k is None:
            k = len(self._table)
            self._table[shape] = k
        return k

    def _shape(self, e) -> tuple:
        cls = type(e)
        if not isinstance(e, Node):
            return ("py", self._field(e))
        if cls is IntImm or cls is FloatImm:
            return (cls, e.dtype, e.value)
        if isinstance(e, Var):
            return (Var, id(e))
        if getattr(e, "_binding", False):
            return ("binding", id(e))
        if cls in COMMUTATIVE:
            ka, kb = self.key(e.a), self.key(e.b)
            return (cls, ka, kb) if ka <= kb else (cls, kb, ka)
        parts: list = [cls]
        for name in fields_of(cls):
            parts.append(self._field(getattr(e, name)))
        return tuple(parts)

    def _field(self, value):
        if isinstance(value, Node):
            return self.key(value)
        if isinstance(value, tuple | list):
            return ("seq", *(self._field(v) for v in value))
        if isinstance(value, DataType | str | int | float | bool) or value is None:
            return value
        try:
            hash(value)
        except TypeError:
            return ("id", id(value))
        return value
