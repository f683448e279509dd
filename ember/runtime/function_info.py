"""Metadata of a compiled function, filled in by code generators.

``FunctionInfo`` lists the parameters in ABI order and the static message of every
native argument check: a native function that returns k >= 1 failed ``checks[k-1]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ParamKind = Literal["buffer", "int", "float", "handle"]
_KINDS = ("buffer", "int", "float", "handle")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class ParamInfo:
    """One parameter.  ``shape`` entries are ints (fixed) or strings: a symbolic dim name
    such as ``"n"`` or an arithmetic expression over such names (``"n * 2 + 1"``).
    ``data_alignment`` is the byte alignment the code assumes for the data (0 = none).
    ``strides`` (in elements, same entry forms as ``shape``) is set only for buffers
    declared with explicit strides; None means the array must be compact.  ``written``
    says the function stores into the buffer: a read-only array is refused for it."""

    name: str
    kind: ParamKind
    dtype: str
    shape: tuple[int | str, ...] = ()
    device_type: int = 1
    data_alignment: int = 0
    strides: tuple[int | str, ...] | None = None
    written: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"ParamInfo {self.name!r}: kind must be one of {_KINDS}, got {self.kind!r}")
        if self.kind != "buffer" and self.shape:
            raise ValueError(
                f"ParamInfo {self.name!r}: only buffer parameters have a shape, got {self.shape!r}"
            )
        object.__setattr__(self, "shape", tuple(self.shape))
        if self.strides is not None:
            if len(self.strides) != len(self.shape):
                raise ValueError(
                    f"ParamInfo {self.name!r}: strides {self.strides!r} and shape {self.shape!r} differ in length"
                )
            object.__setattr__(self, "strides", tuple(self.strides))

    @property
    def is_buffer(self) -> bool:
        return self.kind == "buffer"


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """A compiled function's name, parameters (ABI order) and native check messages."""

    name: str
    params: tuple[ParamInfo, ...]
    checks: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(self.params))
        object.__setattr__(self, "checks", tuple(self.checks))

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def signature(self) -> str:
        """``"add_one(A, B)"``"""
        return f"{self.name}({', '.join(self.param_names)})"


def is_symbol(dim: int | str) -> bool:
    """Whether a shape entry is a bare symbolic name (as opposed to an int or expression)."""
    return isinstance(dim, str) and bool(_IDENT.match(dim))
