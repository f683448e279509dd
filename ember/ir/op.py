"""The operator registry: named ``Op`` objects with per-op attributes.

Intrinsics (``tir.exp``, ``tir.if_then_else`` …) and later graph operators
(``relax.add`` …) are ``Op`` instances, interned by name.  Attributes are set per
op under a key (``Op.get("tir.exp").set_attr("TCallEffectKind", "pure")``) and read
back with ``get_attr`` — the same registry serves every layer.
"""

from __future__ import annotations

from .node import Node, node

__all__ = ["Op", "register_op", "register_op_attr"]

_REGISTRY: dict[str, Op] = {}


@node
class Op(Node):
    name: str

    @staticmethod
    def get(name: str) -> Op:
        """The registered op called ``name``; raises KeyError naming close matches."""
        try:
            return _REGISTRY[name]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"operator {name!r} is not registered{hint}") from None

    @staticmethod
    def is_registered(name: str) -> bool:
        return name in _REGISTRY

    @staticmethod
    def list_names(prefix: str = "") -> list[str]:
        return sorted(n for n in _REGISTRY if n.startswith(prefix))

    def set_attr(self, key: str, value, override: bool = False) -> Op:
        attrs = _ATTRS.setdefault(self.name, {})
        if key in attrs and not override:
            raise ValueError(f"attribute {key!r} of operator {self.name!r} is already set")
        attrs[key] = value
        return self

    def get_attr(self, key: str, default=None):
        return _ATTRS.get(self.name, {}).get(key, default)

    def has_attr(self, key: str) -> bool:
        return key in _ATTRS.get(self.name, {})

    def reset_attr(self, key: str) -> None:
        """Remove attribute ``key`` of this op (TVM's ``Op.reset_attr``); no-op when unset."""
        _ATTRS.get(self.name, {}).pop(key, None)

    def __repr__(self) -> str:
        return f"Op({self.name})"


_ATTRS: dict[str, dict] = {}


def register_op(name: str, **attrs) -> Op:
    """Register (or fetch) the op ``name`` and set the given attributes on it."""
    op = _REGISTRY.get(name)
    if op is None:
        op = Op(name)
        _REGISTRY[name] = op
    for key, value in attrs.items():
        op.set_attr(key, value, override=True)
    return op


def register_op_attr(op_name: str, attr_key: str, value=None, level: int = 10):
    """TVM's ``tvm.ir.register_op_attr``: set ``attr_key`` of the op ``op_name`` (registered
    if new) to ``value``; without a value, a decorator that sets it to the decorated function
    and returns that function unchanged."""

    def register(v):
        register_op(op_name).set_attr(attr_key, v, override=True)
        return v

    return register if value is None else register(value)
