"""The linear facts an analyzer assumes: forms ``F`` known to satisfy ``F <= 0``.

Facts come from symbolic loop ranges (``bind(i, Range(0, n))`` gives ``-i <= 0`` and
``i - n + 1 <= 0``) and from constraint scopes.  They are indexed by the atoms they
mention, so a proof only looks at the facts that share an atom with its question.
"""

from __future__ import annotations

from collections.abc import Iterator

from .linear import Linear

__all__ = ["FactSet"]


class FactSet:
    """Linear facts ``F <= 0``, indexed by atom key."""

    __slots__ = ("_facts", "_by_atom")

    def __init__(self):
        self._facts: list[Linear] = []
        self._by_atom: dict[int, list[Linear]] = {}

    def __len__(self) -> int:
        return len(self._facts)

    def __iter__(self) -> Iterator[Linear]:
        return iter(self._facts)

    def add(self, fact: Linear) -> None:
        self._facts.append(fact)
        for key in fact.terms:
            self._by_atom.setdefault(key, []).append(fact)

    def remove(self, ids: set) -> None:
        """Drop the facts whose ``id`` is in ``ids``."""
        if not ids:
            return
        self._facts = [f for f in self._facts if id(f) not in ids]
        for key, facts in list(self._by_atom.items()):
            kept = [f for f in facts if id(f) not in ids]
            if kept:
                self._by_atom[key] = kept
            else:
                del self._by_atom[key]

    def sharing(self, lin: Linear) -> Iterator[Linear]:
        """The facts that mention at least one atom of ``lin`` (each once)."""
        if not self._by_atom:
            return
        seen: set[int] = set()
        for key in lin.terms:
            for fact in self._by_atom.get(key, ()):
                if id(fact) not in seen:
                    seen.add(id(fact))
                    yield fact
