"""``ObjectPath``: where inside an IR tree something is (``<root>.body.seq[2].value``),
as structural-equality mismatches and the printer's underlines report it (TVM's
``runtime.ObjectPath``). Paths are immutable values: equal when their steps are equal."""

from __future__ import annotations

__all__ = [
    "ObjectPath", "ObjectPathPair", "RootPath", "AttributeAccessPath", "UnknownAttributeAccessPath",
    "ArrayIndexPath", "MissingArrayElementPath", "MapValuePath", "MissingMapEntryPath",
]


class ObjectPath:
    """One step from ``parent`` (``None`` for the root)."""

    __slots__ = ("parent", "_length")

    def __init__(self, parent: ObjectPath | None):
        self.parent = parent
        self._length = 1 if parent is None else len(parent) + 1

    # construction
    @staticmethod
    def root(root_name: str | None = None) -> ObjectPath:
        return RootPath(root_name)

    def attr(self, attr_key: str | None) -> ObjectPath:
        return UnknownAttributeAccessPath(self) if attr_key is None else AttributeAccessPath(self, attr_key)

    def array_index(self, index: int) -> ObjectPath:
        return ArrayIndexPath(self, int(index))

    def missing_array_element(self, index: int) -> ObjectPath:
        return MissingArrayElementPath(self, int(index))

    def map_value(self, key) -> ObjectPath:
        return MapValuePath(self, key)

    def missing_map_entry(self) -> ObjectPath:
        return MissingMapEntryPath(self)

    # queries
    def __len__(self) -> int:
        return self._length

    def get_prefix(self, length: int) -> ObjectPath:
        if not 1 <= length <= len(self):
            raise IndexError(f"ObjectPath.get_prefix: length must be in [1, {len(self)}], got {length}")
        node = self
        while len(node) > length:
            node = node.parent
        return node

    def is_prefix_of(self, other: ObjectPath) -> bool:
        return len(self) <= len(other) and other.get_prefix(len(self)) == self

    def _step(self) -> tuple:
        return ()

    def _steps(self) -> tuple:
        return (self.parent._steps() if self.parent is not None else ()) + ((type(self), *self._step()),)

    def __eq__(self, other) -> bool:
        return isinstance(other, ObjectPath) and self._steps() == other._steps()

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._steps())

    def _render(self) -> str:
        return ""

    def __str__(self) -> str:
        return (str(self.parent) if self.parent is not None else "") + self._render()

    def __repr__(self) -> str:
        return f"ObjectPath({self})"


class RootPath(ObjectPath):
    __slots__ = ("name",)

    def __init__(self, name: str | None = None):
        super().__init__(None)
        self.name = name

    def _step(self):
        return (self.name,)

    def _render(self):
        return self.name or "<root>"


class AttributeAccessPath(ObjectPath):
    __slots__ = ("attr_key",)

    def __init__(self, parent, attr_key: str):
        super().__init__(parent)
        self.attr_key = attr_key

    def _step(self):
        return (self.attr_key,)

    def _render(self):
        return f".{self.attr_key}"


class UnknownAttributeAccessPath(ObjectPath):
    __slots__ = ()

    def _render(self):
        return ".<unknown attribute>"


class ArrayIndexPath(ObjectPath):
    __slots__ = ("index",)

    def __init__(self, parent, index: int):
        super().__init__(parent)
        self.index = index

    def _step(self):
        return (self.index,)

    def _render(self):
        return f"[{self.index}]"


class MissingArrayElementPath(ArrayIndexPath):
    __slots__ = ()

    def _render(self):
        return f"[<missing element #{self.index}>]"


class MapValuePath(ObjectPath):
    __slots__ = ("key",)

    def __init__(self, parent, key):
        super().__init__(parent)
        self.key = key

    def _step(self):
        return (repr(self.key),)

    def _render(self):
        return f"[{self.key!r}]"


class MissingMapEntryPath(ObjectPath):
    __slots__ = ()

    def _render(self):
        return "[<missing entry>]"


class ObjectPathPair:
    """The paths of a mismatch in the left and the right tree."""

    __slots__ = ("lhs_path", "rhs_path")

    def __init__(self, lhs_path: ObjectPath, rhs_path: ObjectPath):
        self.lhs_path, self.rhs_path = lhs_path, rhs_path

    def __eq__(self, other) -> bool:
        return isinstance(other, ObjectPathPair) and (self.lhs_path, self.rhs_path) == (other.lhs_path, other.rhs_path)

    def __getitem__(self, i: int) -> ObjectPath:  # TVM's Python API hands back a (lhs, rhs) tuple
        return (self.lhs_path, self.rhs_path)[i]

    def __iter__(self):
        return iter((self.lhs_path, self.rhs_path))

    def __len__(self) -> int:
        return 2

    def __hash__(self) -> int:
        return hash((self.lhs_path, self.rhs_path))

    def __repr__(self) -> str:
        return f"ObjectPathPair({self.lhs_path}, {self.rhs_path})"
