"""Structural equality and hashing of IR, with bound variables matched by position.

Two IR trees are structurally equal when they have the same node types and equal
fields, where variables (and other *binding* nodes such as buffers, which declare
``_binding = True``) are equal when they occur in the same positions: the first time
an unmapped lhs variable meets an unmapped rhs variable they are paired, and every
later occurrence must respect the pairing.  Names of binding nodes are ignored.

With ``map_free_vars=False`` (TVM's default) only variables met where they are *defined*
may be paired: a node class lists its defining fields in ``_def_fields`` (``Let.var``,
``For.loop_var``, ``PrimFunc.params`` and ``buffer_map``, a defined Buffer's data and
shape, …); a free variable must be the very same object on both sides, and hashes by
identity.  Floats hash NaN as one value; NDArrays compare by dtype, shape and contents.

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


def _same_global_var(key, rhs: dict):
    """The GlobalVar of ``rhs`` named like ``key`` (None when ``key`` is no GlobalVar)."""
    from .module import GlobalVar

    if not isinstance(key, GlobalVar):
        return None
    return next((k for k in rhs if isinstance(k, GlobalVar) and k.name_hint == key.name_hint), None)


def _ignored(cls) -> tuple:
    return getattr(cls, "_ignore_fields", ())


def _order(cls) -> tuple:
    """The fields in comparison order: a class may list definitions before uses in
    ``_structural_order`` (a PrimFunc's buffer_map before its body), as TVM compares them."""
    return getattr(cls, "_structural_order", None) or fields_of(cls)


def _defining(cls, name: str, current: bool) -> bool:
    """Whether the field ``name`` of a ``cls`` node is a definition site: a node class with
    ``_def_fields`` decides for each of its fields, any other class keeps its parent's answer."""
    defs = getattr(cls, "_def_fields", None)
    return current if defs is None else name in defs


def _zero_none(cls, name: str, value):
    """A field a class declares ``_zero_when_none`` (Buffer.elem_offset: None means 0, TVM's
    default) compares a None with any integer 0; returns the value to compare or hash."""
    if name in getattr(cls, "_zero_when_none", ()):
        if value is None:
            return _ZERO
        if getattr(value, "value", None) == 0 and type(value).__name__ == "IntImm":
            return _ZERO
    return value


class _Zero:
    __slots__ = ()

    def __repr__(self) -> str:
        return "0"


_ZERO = _Zero()


def _is_ndarray(x) -> bool:
    return type(x).__name__ == "NDArray" and hasattr(x, "numpy")


def _ndarray_equal(a, b) -> bool:
    import numpy as np

    x, y = a.numpy(), b.numpy()
    return x.dtype == y.dtype and x.shape == y.shape and bool(np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"))


def _is_free_var(x) -> bool:
    from .expr import Var

    return isinstance(x, Var)


class _Comparer:
    def __init__(self, map_free_vars: bool = True):
        self.lhs_to_rhs: dict[int, object] = {}
        self.rhs_to_lhs: dict[int, object] = {}
        self.keep: list = []  # keep mapped objects alive so ids stay unique
        self.path: list[tuple] = []  # steps: ("attr", name) | ("index", i) | ("key", k)
        self.key_pairs: dict[int, object] = {}  # id(lhs map key) -> the rhs key it was paired with
        self.where: tuple | None = None
        self.map_free_vars = map_free_vars
        self.defining = False  # inside a field that defines the variables it holds
        self.missing: tuple | None = None  # (lhs_missing, rhs_missing) step of a length mismatch

    def fail(self, lhs, rhs, missing: tuple | None = None) -> bool:
        if self.where is None:
            self.where = (_dotted(self.path) or "<root>", lhs, rhs)
            self.where_steps = tuple(self.path)
            self.missing = missing
        return False

    def eq(self, lhs, rhs) -> bool:
        if lhs is rhs and not getattr(lhs, "_binding", False):
            return True
        if isinstance(lhs, bool) != isinstance(rhs, bool):  # True in attrs is TVM's T.bool(True)
            lhs, rhs = _bool_imm(lhs), _bool_imm(rhs)
        if isinstance(lhs, Node):
            return self.eq_node(lhs, rhs)
        if isinstance(lhs, _SEQUENCES):
            if not isinstance(rhs, _SEQUENCES):
                return self.fail(lhs, rhs)
            for i, (x, y) in enumerate(zip(lhs, rhs)):  # a difference inside comes first
                self.path.append(("index", i))
                ok = self.eq(x, y)
                self.path.pop()
                if not ok:
                    return False
            if len(lhs) != len(rhs):
                n = min(len(lhs), len(rhs))
                missing = ("missing_index", n)
                return self.fail(lhs, rhs, (missing if len(lhs) < len(rhs) else ("index", n),
                                            missing if len(rhs) < len(lhs) else ("index", n)))
            return True
        if isinstance(lhs, dict):
            if not isinstance(rhs, dict):
                return self.fail(lhs, rhs)
            if _plain_keys(lhs) and _plain_keys(rhs):
                if len(lhs) != len(rhs):
                    return self.fail(lhs, rhs)  # attributes: keyed by name, order-free (as TVM)
                for k, v1 in lhs.items():
                    self.path.append(("key", k))
                    ok = (k in rhs or self.fail(lhs, rhs)) and self.eq(v1, rhs[k])
                    self.path.pop()
                    if not ok:
                        return False
                return True
            return self.eq_node_keyed(lhs, rhs)
        if isinstance(lhs, DataType) or isinstance(rhs, DataType):
            return lhs == rhs or self.fail(lhs, rhs)
        if isinstance(lhs, float) and isinstance(rhs, float) and lhs != lhs and rhs != rhs:
            return True  # NaN constants
        if _is_ndarray(lhs) or _is_ndarray(rhs):
            return (_is_ndarray(lhs) and _is_ndarray(rhs) and _ndarray_equal(lhs, rhs)) or self.fail(lhs, rhs)
        if type(lhs) is not type(rhs) or lhs != rhs:
            return self.fail(lhs, rhs)
        return True

    def eq_node_keyed(self, lhs: dict, rhs: dict) -> bool:
        """Maps keyed by nodes (``buffer_map``, a module's functions): a key pairs with the rhs
        key it is mapped to (or itself, or by position when neither side maps it)."""
        rhs_keys = list(rhs)
        used = set()
        for pos, (k1, v1) in enumerate(lhs.items()):
            k2 = self.lhs_to_rhs.get(id(k1))
            if k2 is None:
                k2 = k1 if k1 in rhs else _same_global_var(k1, rhs)
            if k2 is None:  # a module's functions pair by name, as TVM's IRModule compares them
                k2 = rhs_keys[pos] if pos < len(rhs_keys) else None
            if k2 is None or k2 not in rhs:
                return self.fail(lhs, rhs, (("key", k1), ("missing_entry",)))
            used.add(id(k2))
            self.key_pairs[id(k1)] = k2
            self.path.append(("key", k1))
            ok = self.eq(k1, k2) and self.eq(v1, rhs[k2])
            self.path.pop()
            if not ok:
                return False
        for k2 in rhs_keys:
            if id(k2) not in used:
                return self.fail(lhs, rhs, (("missing_entry",), ("key", k2)))
        return True

    def eq_node(self, lhs: Node, rhs) -> bool:
        if type(lhs) is not type(rhs):
            return self.fail(lhs, rhs)
        binding = getattr(lhs, "_binding", False)
        if binding:
            mapped = self.lhs_to_rhs.get(id(lhs))
            if mapped is not None:
                return mapped is rhs or self.fail(lhs, rhs)
            if id(rhs) in self.rhs_to_lhs or (not self.map_free_vars and not self.defining and lhs is not rhs):
                return self.fail(lhs, rhs)
            # pair first, so self-references (a buffer's data var …) terminate
            self.lhs_to_rhs[id(lhs)] = rhs
            self.rhs_to_lhs[id(rhs)] = lhs
            self.keep.append((lhs, rhs))
        cls = type(lhs)
        ignored = _ignored(cls)
        outer = self.defining
        for name in _order(cls):
            if name in ignored:
                continue
            self.path.append(("attr", name))
            self.defining = _defining(cls, name, outer)
            a, b = getattr(lhs, name), getattr(rhs, name)
            if (a is None) != (b is None) and _zero_none(cls, name, a) is _zero_none(cls, name, b):
                a = b = None
            ok = self.eq(a, b)
            self.defining = outer
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
    from ember.runtime.object_path import ObjectPath

    lhs_path = _object_path(ObjectPath.root(), cmp.where_steps)
    rhs_steps = [(kind, *(cmp.key_pairs.get(id(x), x) if kind == "key" else x for x in args))
                 for kind, *args in cmp.where_steps]  # a map key of the rhs is the rhs's own object
    rhs_path = _object_path(ObjectPath.root(), rhs_steps)
    message = (
        f"IR is not structurally equal; first difference at {lhs_path}:\n"
        f"  lhs: {_short(a)}\n  rhs: {_short(b)}\n"
        f"ValueError: StructuralEqual check failed, caused by lhs at {lhs_path}:\n"
        f"{_full(lhs, lhs_path)}\nand rhs at {rhs_path}:\n{_full(rhs, rhs_path)}"
    )
    raise StructuralMismatch(message, path)


def get_first_structural_mismatch(lhs, rhs, map_free_vars: bool = False):
    """``None`` when equal, else an ``ObjectPathPair`` locating the first difference in each
    tree (a sequence of different length: the first element the shorter side lacks)."""
    from ember.runtime.object_path import ObjectPath, ObjectPathPair

    cmp = _Comparer(map_free_vars)
    if cmp.eq(lhs, rhs):
        return None
    path = _object_path(ObjectPath.root(), cmp.where_steps)
    lhs_path = rhs_path = path
    if cmp.missing is not None:
        lhs_path, rhs_path = (_object_path(path, [step]) for step in cmp.missing)
    return ObjectPathPair(lhs_path, rhs_path)


def _object_path(path, steps):
    for kind, *arg in steps:
        if kind == "attr":
            path = path.attr(arg[0])
        elif kind == "index":
            path = path.array_index(arg[0])
        elif kind == "missing_index":
            path = path.missing_array_element(arg[0])
        elif kind == "key":
            path = path.map_value(arg[0])
        else:
            path = path.missing_map_entry()
    return path


def _dotted(steps) -> str:
    """The old-style path string (``body.seq.[2]``), kept as ``StructuralMismatch.path``."""
    return ".".join(arg[0] if kind == "attr" else f"[{arg[0]!s}]" for kind, *arg in steps)


def _short(x) -> str:
    text = repr(x) if not isinstance(x, Node) else _full(x)
    text = text.strip()
    return text if len(text) < 400 else text[:400] + " …"


def _full(x, underline=None) -> str:
    """The script of ``x``, the object at the path ``underline`` marked with ``^``."""
    try:
        if isinstance(x, Node) and underline is not None:
            return x.script(path_to_underline=[underline])
        return x.script() if isinstance(x, Node) else repr(x)
    except Exception:  # noqa: BLE001 - the report must not fail
        return repr(x)


class _Hasher:
    def __init__(self, map_free_vars: bool = False):
        self.numbering: dict[int, int] = {}
        self.keep: list = []
        self.map_free_vars = map_free_vars
        self.defining = False

    def hash(self, x) -> int:
        if isinstance(x, bool):
            x = _bool_imm(x)
        if isinstance(x, Node):
            cls = type(x)
            if getattr(x, "_binding", False):
                slot = self.numbering.get(id(x))
                if slot is not None:
                    return hash(("bound", slot))
                if not self.map_free_vars and not self.defining and _is_free_var(x):
                    return hash(("free", id(x)))  # a free variable is itself (TVM)
                self.numbering[id(x)] = len(self.numbering)
                self.keep.append(x)
            ignored = _ignored(cls)
            parts = [cls.__name__]
            outer = self.defining
            for name in _order(cls):
                if name not in ignored:
                    self.defining = _defining(cls, name, outer)
                    value = _zero_none(cls, name, getattr(x, name))
                    parts.append(hash("zero") if value is _ZERO else self.hash(value))
            self.defining = outer
            return hash(tuple(parts))
        if isinstance(x, _SEQUENCES):
            return hash(("seq",) + tuple(self.hash(e) for e in x))
        if isinstance(x, dict):
            items = sorted(x.items(), key=lambda kv: str(kv[0])) if _plain_keys(x) else x.items()
            if items and all(type(k).__name__ == "GlobalVar" for k in x):  # functions: order-free, by name
                items = sorted(x.items(), key=lambda kv: kv[0].name_hint)
            return hash(("map",) + tuple((self.hash(k), self.hash(v)) for k, v in items))
        if isinstance(x, DataType):
            return hash(str(x))
        if isinstance(x, float) and x != x:
            return hash("nan")  # every NaN is one value, as in structural_equal
        if _is_ndarray(x):
            a = x.numpy()
            return hash(("ndarray", str(a.dtype), a.shape, a.tobytes()))
        try:
            return hash(x)
        except TypeError:
            return hash(repr(x))


def structural_hash(node, map_free_vars: bool = False) -> int:
    """A hash consistent with ``structural_equal`` (bound variables hash by position).

    A variable hashes by the position of its first appearance where it is defined (or
    anywhere with ``map_free_vars``); a free variable otherwise hashes by identity, as in TVM.
    """
    return _Hasher(map_free_vars).hash(node) & 0xFFFFFFFFFFFFFFFF
