"""``tvm.ir.EnvFunc`` and ``tvm.ir.make_node``: IR values that name things outside the IR.

``EnvFunc.get(name)`` refers to a function registered with ``register_func`` by its name
(two references to one name are structurally equal); calling it calls the function.
``make_node(type_key, **fields)`` builds a generic attribute node: a type key and named
fields, compared structurally field by field (TVM builds registered attrs classes this way).
"""

from __future__ import annotations

from .node import Node, node

__all__ = ["EnvFunc", "AttrsNode", "make_node"]


@node
class EnvFunc(Node):
    """A registered global function, by name."""

    name: str

    @staticmethod
    def get(name: str) -> EnvFunc:
        from ember.runtime.registry import get_global_func

        get_global_func(name)  # raises when nothing is registered under the name
        return EnvFunc(name)

    @property
    def func(self):
        from ember.runtime.registry import get_global_func

        return get_global_func(self.name)

    def __call__(self, *args):
        return self.func(*args)

    def __repr__(self) -> str:
        return f"EnvFunc({self.name!r})"


@node
class AttrsNode(Node):
    """An attribute object of kind ``type_key`` with the given ``fields``."""

    type_key: str
    fields: dict

    def __getattr__(self, name: str):
        fields = object.__getattribute__(self, "fields")
        if name in fields:
            return fields[name]
        raise AttributeError(f"{object.__getattribute__(self, 'type_key')} has no field {name!r}")

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"{self.type_key}({body})"


def make_node(type_key: str, **fields) -> AttrsNode:
    """A node of kind ``type_key`` holding ``fields`` (numbers become constants)."""
    from ember.runtime.convert import convert

    return AttrsNode(type_key, {k: convert(v) for k, v in fields.items()})
