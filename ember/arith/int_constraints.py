"""Systems of integer constraints and changes of variables between them.

``IntConstraints(variables, ranges, relations)`` is a system over integer variables:
each variable may have a ``Range`` and every relation (a boolean PrimExpr) must hold.
``IntConstraintsTransform(src, dst, src_to_dst, dst_to_src)`` says that two systems have
the same solutions under the substitutions ``src_to_dst`` (each source variable as an
expression of the destination variables) and ``dst_to_src`` (the other way).  The
solvers (``solve_linear_equations``, ``solve_linear_inequalities``) return these, as
TVM's ``tvm.arith`` does.
"""

from __future__ import annotations

from ember.ir import Node, node

__all__ = ["IntConstraints", "IntConstraintsTransform"]


@node
class IntConstraints(Node):
    """Integer ``variables`` with optional ``ranges`` (Var → Range) under ``relations``."""

    variables: tuple
    ranges: dict
    relations: tuple

    def __post_init__(self):
        object.__setattr__(self, "variables", tuple(self.variables or ()))
        object.__setattr__(self, "ranges", dict(self.ranges or {}))
        object.__setattr__(self, "relations", tuple(self.relations or ()))

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.variables)
        return f"IntConstraints([{names}], ranges={self.ranges!r}, relations={list(self.relations)!r})"


@node
class IntConstraintsTransform(Node):
    """``src`` and ``dst`` have the same solutions under the two substitution maps."""

    src: IntConstraints
    dst: IntConstraints
    src_to_dst: dict
    dst_to_src: dict

    def __post_init__(self):
        object.__setattr__(self, "src_to_dst", dict(self.src_to_dst or {}))
        object.__setattr__(self, "dst_to_src", dict(self.dst_to_src or {}))

    def __repr__(self) -> str:
        return (f"IntConstraintsTransform(src={self.src!r}, dst={self.dst!r}, "
                f"src_to_dst={self.src_to_dst!r}, dst_to_src={self.dst_to_src!r})")
