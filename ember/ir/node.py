"""The base of every IR node: immutable dataclasses compared by identity.

``node`` is the class decorator every IR node uses (frozen, slotted, identity ``==``
and ``hash``), so a node's fields are declared exactly once.  Structural comparison
lives in ``structural.py``; copying with changes is ``replace`` from here, which
returns the very same object when nothing changed.
"""

from __future__ import annotations

import dataclasses

__all__ = ["node", "Node", "replace", "fields_of"]


def node(cls):
    """Make ``cls`` an immutable IR node class (frozen, slots, identity eq/hash)."""
    return dataclasses.dataclass(frozen=True, slots=True, eq=False, repr=False)(cls)


class Node:
    """Base of IR nodes.  Subclasses are declared with ``@node``."""

    __slots__ = ()

    def __repr__(self) -> str:
        try:
            from ember.script.printer import to_script  # printing is a higher layer

            return to_script(self)
        except Exception:  # noqa: BLE001 - repr must never fail
            return f"{type(self).__name__}(...)"

    def same_as(self, other) -> bool:
        return self is other

    def script(self, **kwargs) -> str:
        from ember.script.printer import to_script

        return to_script(self, **kwargs)

    def show(self, style: str | None = None, black_format: bool = False, **kwargs) -> None:
        from ember.script.highlight import cprint

        cprint(self.script(**kwargs), style=style, black_format=black_format)


_FIELDS_CACHE: dict = {}


def fields_of(cls) -> tuple[str, ...]:
    """Names of the dataclass fields of a node class, cached."""
    names = _FIELDS_CACHE.get(cls)
    if names is None:
        names = getattr(cls, "_structural_fields", None)
        if names is None:
            names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELDS_CACHE[cls] = names
    return names


def replace(obj, **changes):
    """Copy ``obj`` with ``changes``; return ``obj`` itself when every change is a no-op."""
    if all(getattr(obj, k) is v for k, v in changes.items()):
        return obj
    return dataclasses.replace(obj, **changes)
