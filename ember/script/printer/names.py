"""Printable, unique Python names for IR objects (Vars, Buffers, GlobalVars).

Two distinct objects that share a name hint get distinct names (``i``, ``i_1``), names
are made valid identifiers, and names that would shadow the script namespaces
(``T``, ``I``, ``R``) or the parser's built-ins are avoided.
"""

from __future__ import annotations

import keyword
import re

__all__ = ["Namer", "RESERVED", "sanitize"]

RESERVED = frozenset({"T", "I", "R", "cls", "range", "True", "False", "None"})
_BAD_CHARS = re.compile(r"[^0-9A-Za-z_]")


def sanitize(hint: str) -> str:
    """A valid Python identifier close to ``hint``."""
    name = _BAD_CHARS.sub("_", hint or "v") or "v"
    if name[0].isdigit():
        name = "v_" + name
    if keyword.iskeyword(name):
        name = name + "_"
    return name


class Namer:
    """Assigns each object (by identity) one name, unique within this namer."""

    def __init__(self, show_address: bool = False):
        self.show_address = show_address  # suffix each name with the object's id (_0x7f…)
        self._names: dict[int, str] = {}
        self._used: set[str] = set(RESERVED)
        self._keep: list = []  # keep named objects alive so their ids stay unique

    def has(self, obj) -> bool:
        return id(obj) in self._names

    def get(self, obj) -> str | None:
        return self._names.get(id(obj))

    def name(self, obj, hint: str) -> str:
        """The name of ``obj``, choosing a fresh one from ``hint`` on first sight."""
        found = self._names.get(id(obj))
        if found is not None:
            return found
        base = sanitize(hint)
        if self.show_address:
            base = f"{base}_0x{id(obj):x}"
        name, k = base, 0
        while name in self._used:
            k += 1
            name = f"{base}_{k}"
        self.bind(obj, name)
        return name

    def bind(self, obj, text: str) -> None:
        """Give ``obj`` exactly ``text`` (e.g. ``A.data``), without uniquifying."""
        self._names[id(obj)] = text
        self._used.add(text)
        self._keep.append(obj)

    def release(self, obj) -> None:
        """``obj``'s scope has ended: its name may be given to another object (a later loop's
        ``i``), as TVM reuses the names of finished scopes. ``obj`` keeps printing as before."""
        name = self._names.get(id(obj))
        if name is not None and name not in RESERVED:
            self._used.discard(name)
