"""Structural equality and hashing of IR, with bound variables matched by position.

Two IR trees are structurally equal when they have the same node types and equal
fields, where variables (and other *binding* nodes such as buffers, which declare
``_binding = True``) are equal when they occur in the same positions: the first time
an unmapped lhs variable meets an unmapped rhs variable they are paired, and every
later occurrence must respect the pairing.  Names of binding nodes are ignored.

``assert_structural_equal`` reports the path to the first difference and both sides.
"""

from __future__ import annotations

from ember.runtime.dtype import DataType

from .node import Node, fields_of

__all__ = [
    "structural_equal", "structural_hash", "assert_structural_equal", "StructuralMismatch",
    "get_first_structural_mismatch",
]


class StructuralMismatch(ValueError):
    """Raised by ``assert_structural_equal``; ``path`` names where the trees differ."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


def _bool_imm(x):
    if isinstance(x, bool):
        from .expr import const

        return const(x, "bool")
    return x


_SEQUENCES = (tuple, list)  # a tuple, not a union built at every call


def _plain_keys(d: dict) -> bool:
    return all(isinstance(k, str | int) for k in d)


def _ignored(cls) -> tuple:
    return getattr(cls, "_ignore_fields", ())


class _Comparer:
    def __init__(self, map_free_vars: bool = True):
        self.lhs_to_rhs: dict[int, object] = {}
        self.rhs_to_lhs: dict[int, object] = {}
        self.keep: list = []  # keep mapped objects alive so ids stay unique
        self.path: list[str] = []
        self.where: tuple | None = None
        self.map_free_vars = map_free_vars

    def fail(self, lhs, rhs) -> bool:
        if self.where is None:
            self.where = (".".join(self.path) or "<root>", lhs, rhs)
            self.where_steps = tuple(self.path)
        return False

    def eq(self, lhs, rhs) -> bool:
        if lhs is rhs and not getattr(lhs, "_binding", False):
            return True
        if isinstance(lhs, bool) != isinstance(rhs, bool):  # True in attrs is TVM's T.bool(True)
            lhs, rhs = _bool_imm(lhs), _bool_imm(rhs)
        if isinstance(lhs, Node):
            return self.eq_node(lhs, rhs)
        if isinstance(lhs, _SEQUENCES):
            if not isinstance(rhs, _SEQUENCES) or len(lhs) != len(rhs):
                return self.fail(lhs, rhs)
            for i, (x, y) in enumerate(zip(lhs, rhs)):
                self.path.append(f"[{i}]")
                ok = self.eq(x, y)
                self.path.pop()
                if not ok:
                    return False
            return True
        if isinstance(lhs, dict):
            if not isinstance(rhs, dict) or len(lhs) != len(rhs):
                return self.fail(lhs, rhs)
            if _plain_keys(lhs) and _plain_keys(rhs):  # attributes: keyed by name, order-free (as TVM)
                for k, v1 in lhs.items():
                    self.path.append(f"[{k!s}]")
                    ok = (k in rhs or self.fail(lhs, rhs)) and self.eq(v1, rhs[k])
                    self.path.pop()
                    if not ok:
                        return False
                return True
            for (k1, v1), (k2, v2) in zip(lhs.items(), rhs.items()):
                self.path.append(f"[{k1!s}]")
                ok = self.eq(k1, k2) and self.eq(v1, v2)
                self.path.pop()
                if not ok:
                    return False
            return True
        if isinstance(lhs, DataType) or isinstance(rhs, DataType):
            return lhs == rhs or self.fail(lhs, rhs)
        if isinstance(lhs, float) and isinstance(rhs, float) and lhs != lhs and rhs != rhs:
            return True  # NaN constants
        if type(lhs) is not type(rhs) or lhs != rhs:
            return self.fail(lhs, rhs)
        return True

    def eq_node(self, lhs: Node, rhs) -> bool:
        if type(lhs) is not type(rhs):
            return self.fail(lhs, rhs)
        binding = getattr(lhs, "_binding", False)
        if binding:
            mapped = self.lhs_to_rhs.get(id(lhs))
            if mapped is not None:
                return mapped is rhs or self.fail(lhs, rhs)
            if id(rhs) in self.rhs_to_lhs or (not self.map_free_vars and lhs is not rhs):
                return self.fail(lhs, rhs)
            # pair first, so self-references (a buffer's data var …) terminate
            self.lhs_to_rhs[id(lhs)] = rhs
            self.rhs_to_lhs[id(rhs)] = lhs
            self.keep.append((lhs, rhs))
        ignored = _ignored(type(lhs))
        for name in fields_of(type(lhs)):
            if name in ignored:
                continue
            self.path.append(name)
            ok = self.eq(getattr(lhs, name), getattr(rhs, name))
            self.path.pop()
            if not ok:
                if binding:
                    del self.lhs_to_rhs[id(lhs)]
                    del self.rhs_to_lhs[id(rhs)]
                return False
        return True


def structural_equal(lhs, rhs, map_free_vars: bool = True) -> bool:
    """True when ``lhs`` and ``rhs`` are the same IR up to renaming of bound variables."""
    return _Comparer(map_free_vars).eq(lhs, rhs)


def assert_structural_equal(lhs, rhs, map_free_vars: bool = True) -> None:
    """Raise ``StructuralMismatch`` naming the first difference when the trees differ."""
    cmp = _Comparer(map_free_vars)
    if cmp.eq(lhs, rhs):
        return
    path, a, b = cmp.where
    message = (
        f"IR is not structurally equal; first difference at {path}:\n"
        f"  lhs: {_short(a)}\n  rhs: {_short(b)}\n"
        f"---- lhs ----\n{_full(lhs)}\n---- rhs ----\n{_full(rhs)}"
    )
    raise StructuralMismatch(message, path)


def get_first_structural_mismatch(lhs, rhs, map_free_vars: bool = False):
    """``None`` when equal, else an ``ObjectPathPair`` locating the first difference in each
    tree (a sequence of different length: the first element the shorter side lacks)."""
    from ember.runtime.object_path import ObjectPath, ObjectPathPair

    cmp = _Comparer(map_free_vars)
    if cmp.eq(lhs, rhs):
        return None
    path = ObjectPath.root()
    for step in cmp.where_steps:
        if step.startswith("[") and step.endswith("]"):
            key = step[1:-1]
            path = path.array_index(int(key)) if key.lstrip("-").isdigit() else path.map_value(key)
        else:
            path = path.attr(step)
    _, a, b = cmp.where
    lhs_path = rhs_path = path
    if isinstance(a, tuple | list) and isinstance(b, tuple | list) and len(a) != len(b):
        n = min(len(a), len(b))
        lhs_path = path.missing_array_element(n) if len(a) < len(b) else path.array_index(n)
        rhs_path = path.missing_array_element(n) if len(b) < len(a) else path.array_index(n)
    return ObjectPathPair(lhs_path, rhs_path)


def _short(x) -> str:
    text = repr(x) if not isinstance(x, Node) else _full(x)
    text = text.strip()
    return text if len(text) < 400 else text[:400] + " …"


def _full(x) -> str:
    try:
        return x.script() if isinstance(x, Node) else repr(x)
    except Exception:  # noqa: BLE001 - the report must not fail
        return repr(x)


class _Hasher:
    def __init__(self):
        self.numbering: dict[int, int] = {}
        self.keep: list = []

    def hash(self, x) -> int:
        if isinstance(x, bool):
            x = _bool_imm(x)
        if isinstance(x, Node):
            cls = type(x)
            if getattr(x, "_binding", False):
                slot = self.numbering.get(id(x))
                if slot is not None:
                    return hash(("bound", slot))
                self.numbering[id(x)] = len(self.numbering)
                self.keep.append(x)
            ignored = _ignored(cls)
            parts = [cls.__name__]
            for name in fields_of(cls):
                if name not in ignored:
                    parts.append(self.hash(getattr(x, name)))
            return hash(tuple(parts))
        if isinstance(x, _SEQUENCES):
            return hash(("seq",) + tuple(self.hash(e) for e in x))
        if isinstance(x, dict):
            items = sorted(x.items(), key=lambda kv: str(kv[0])) if _plain_keys(x) else x.items()
            return hash(("map",) + tuple((self.hash(k), self.hash(v)) for k, v in items))
        if isinstance(x, DataType):
            return hash(str(x))
        try:
            return hash(x)
        except TypeError:
            return hash(repr(x))


def structural_hash(node, map_free_vars: bool = False) -> int:
    """A hash consistent with ``structural_equal`` (bound variables hash by position).

    Every variable hashes by the position of its first appearance, so equal trees hash
    equally with or without ``map_free_vars`` (TVM's argument, accepted for that reason).
    """
    return _Hasher().hash(node) & 0xFFFFFFFFFFFFFFFF
