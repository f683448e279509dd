"""Input specifications for ``Module.export_tvm``: what each exported method takes.

``spec.Tensor((..., "batch"), dtype)`` describes a tensor argument; a string dimension
names a symbolic size, turned into one ``tir.Var`` (int64) per name and shared by every
argument and parameter of the exported function.  ``spec.Int()`` is an int64 scalar the
method receives as a ``tir.Var``.  ``ModuleSpec.from_raw`` checks a user's
``{"method": {"arg": spec}}`` dict against the module's methods.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field

from ember.ir import DataType, PrimExpr
from ember.tir import Var as TirVar

__all__ = ["Tensor", "Int", "MethodSpec", "ModuleSpec", "SymbolTable"]

_MODES = {"param_mode": ("plain", "packed", "none")}


class Tensor:
    """A tensor argument: ``shape`` (ints, symbolic names or ``tir`` expressions) and ``dtype``."""

    def __init__(self, shape: Sequence[int | str | PrimExpr], dtype: str = "float32"):
        if isinstance(shape, int | str) or not isinstance(shape, Sequence):
            raise TypeError(f"spec.Tensor: shape must be a sequence of ints, names or PrimExprs, got {shape!r}")
        for dim in shape:
            if isinstance(dim, bool) or not isinstance(dim, int | str | PrimExpr):
                raise TypeError(
                    f"spec.Tensor: each dimension must be an int, a name (str) or a PrimExpr, got {dim!r} in {shape!r}"
                )
            if isinstance(dim, int) and dim < 0:
                raise ValueError(f"spec.Tensor: dimensions must be >= 0, got {dim} in {tuple(shape)!r}")
        self.shape = list(shape)
        self.dtype = str(DataType(dtype))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __eq__(self, other) -> bool:
        return isinstance(other, Tensor) and (self.shape, self.dtype) == (other.shape, other.dtype)

    __hash__ = None

    def __repr__(self) -> str:
        return f"spec.Tensor({tuple(self.shape)!r}, {self.dtype!r})"


class Int:
    """An int64 scalar argument; the traced method receives it as a ``tir.Var``."""

    dtype = "int64"

    def __eq__(self, other) -> bool:
        return isinstance(other, Int)

    __hash__ = None

    def __repr__(self) -> str:
        return "spec.Int()"


ArgSpec = Tensor | Int


class SymbolTable:
    """Symbolic dimension names → the one ``tir.Var`` standing for each, per exported function."""

    def __init__(self):
        self.vars: dict[str, TirVar] = {}

    def dim(self, value: int | str | PrimExpr) -> int | PrimExpr:
        if isinstance(value, str):
            if value not in self.vars:
                self.vars[value] = TirVar(value, "int64")
            return self.vars[value]
        return value

    def shape(self, shape: Sequence) -> list:
        return [self.dim(d) for d in shape]


@dataclass
class MethodSpec:
    """One method to export: its name, argument names and specs, and export options."""

    method_name: str
    arg_names: list[str]
    arg_specs: list[ArgSpec]
    param_mode: str = "plain"

    @staticmethod
    def from_raw(method_name: str, spec: dict, method) -> MethodSpec:
        if not isinstance(spec, dict):
            raise TypeError(f"export_tvm: spec[{method_name!r}] must be a dict of argument name → spec, got {spec!r}")
        spec = dict(spec)
        options = spec.pop("$", {})
        for key, value in options.items():
            if key not in _MODES:
                raise ValueError(f"export_tvm: spec[{method_name!r}]['$'] has unknown option {key!r}; known: {list(_MODES)}")
            if value not in _MODES[key]:
                raise ValueError(f"export_tvm: {key} must be one of {_MODES[key]}, got {value!r}")
        expected = _positional_names(method)
        given = list(spec)
        if given != expected:
            raise ValueError(
                f"export_tvm: spec[{method_name!r}] names arguments {given}, but the method takes {expected}"
            )
        for name, arg in spec.items():
            if not isinstance(arg, Tensor | Int):
                raise TypeError(
                    f"export_tvm: spec[{method_name!r}][{name!r}] must be nn.spec.Tensor or nn.spec.Int, "
                    f"got {type(arg).__name__}"
                )
        return MethodSpec(method_name, given, list(spec.values()), options.get("param_mode", "plain"))


@dataclass
class ModuleSpec:
    """The methods of a module to export, in the order the user gave them."""

    module: object
    methods: list[MethodSpec] = field(default_factory=list)

    @staticmethod
    def from_raw(spec: dict, module) -> ModuleSpec:
        if not isinstance(spec, dict) or not spec:
            raise TypeError(f"export_tvm: spec must be a non-empty dict of method name → argument specs, got {spec!r}")
        methods = []
        for name, method_spec in spec.items():
            method = getattr(module, name, None)
            if not callable(method):
                raise ValueError(f"export_tvm: {type(module).__name__} has no method {name!r}")
            methods.append(MethodSpec.from_raw(name, method_spec, method))
        return ModuleSpec(module, methods)


def _positional_names(method) -> list[str]:
    params = inspect.signature(method).parameters.values()
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
