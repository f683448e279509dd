"""The building blocks of ``relax.frontend.nn``: ``Tensor``, ``Parameter``, ``Module``,
``ModuleList`` and ``Sequential``.

A ``Tensor`` wraps a Relax expression while a method is traced by ``export_tvm``; its
Python operators emit Relax ops through the BlockBuilder being used (see ``op.py``).
A ``Parameter`` is a tensor whose value lives outside the graph: it has a declared shape
(ints or symbolic names) and dtype, optional data, and is bound to a function parameter
only while a method is traced.  A ``Module`` finds its parameters and submodules among its
attributes in declaration order, as TVM's ``nn.Module`` does (no ``__setattr__`` hook).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ember.ir import DataType, IntImm, PrimExpr
from ember.relax.expr import Expr
from ember.relax.struct_info import TensorStructInfo, shape_values

__all__ = ["Tensor", "Parameter", "Module", "ModuleList", "Sequential", "get_default_dtype"]

_DEFAULT_DTYPE = "float32"


def get_default_dtype() -> str:
    """The dtype modules use when none is given (TVM's default: float32)."""
    return _DEFAULT_DTYPE


class Tensor:
    """A traced tensor: a Relax expression with ``shape``, ``dtype``, ``ndim`` and operators."""

    def __init__(self, *, _expr: Expr):
        if not isinstance(_expr, Expr):
            raise TypeError(f"nn.Tensor: _expr must be a relax expression, got {type(_expr).__name__}")
        sinfo = _expr.struct_info_or_none()
        if sinfo is not None and not isinstance(sinfo, TensorStructInfo):
            raise TypeError(f"nn.Tensor: _expr must have tensor struct info, got {sinfo}")
        self._expr = _expr

    # -- construction ----------------------------------------------------------------
    @staticmethod
    def from_const(data: Any) -> Tensor:
        """A constant tensor holding ``data`` (numpy array, NDArray or nested lists)."""
        from ember.relax.expr import const

        return Tensor(_expr=const(_as_numpy(data)))

    @staticmethod
    def from_scalar(data: int | float, dtype: str) -> Tensor:
        """A 0-d constant tensor of ``dtype``."""
        from ember.relax.expr import const

        return Tensor(_expr=const(data, dtype))

    @staticmethod
    def placeholder(shape: Sequence[int | str | PrimExpr], dtype: str, name: str = "tensor") -> Tensor:
        """A tensor standing for a free variable named ``name`` (string dims become tir.Vars)."""
        from ember.relax.expr import Var

        from .spec import SymbolTable

        return Tensor(_expr=Var(name, TensorStructInfo(SymbolTable().shape(shape), dtype)))

    # -- properties ------------------------------------------------------------------
    @property
    def struct_info(self) -> TensorStructInfo:
        return self._expr.struct_info

    @property
    def shape(self) -> list[int | PrimExpr]:
        """Each dimension as an int when static, else a PrimExpr."""
        values = shape_values(self.struct_info)
        if values is None:
            raise ValueError(f"nn.Tensor.shape: the shape of {self._expr} is unknown")
        return [int(v.value) if isinstance(v, IntImm) else v for v in values]

    @property
    def ndim(self) -> int:
        return self.struct_info.ndim

    @property
    def dtype(self) -> str:
        return str(self.struct_info.dtype)

    def __repr__(self) -> str:
        return f'Tensor({self.shape}, "{self.dtype}")'

    # -- operators (each emits a Relax op through nn.op) --------------------------------
    def _bin(self, name: str, other, reverse: bool = False) -> Tensor:
        from . import op

        fn = getattr(op, name)
        return fn(other, self) if reverse else fn(self, other)

    def __add__(self, other) -> Tensor:
        return self._bin("add", other)

    def __radd__(self, other) -> Tensor:
        return self._bin("add", other, reverse=True)

    def __sub__(self, other) -> Tensor:
        return self._bin("subtract", other)

    def __rsub__(self, other) -> Tensor:
        return self._bin("subtract", other, reverse=True)

    def __mul__(self, other) -> Tensor:
        return self._bin("multiply", other)

    def __rmul__(self, other) -> Tensor:
        return self._bin("multiply", other, reverse=True)

    def __truediv__(self, other) -> Tensor:
        return self._bin("divide", other)

    def __rtruediv__(self, other) -> Tensor:
        return self._bin("divide", other, reverse=True)

    def __matmul__(self, other) -> Tensor:
        return self._bin("matmul", other)

    def __rmatmul__(self, other) -> Tensor:
        return self._bin("matmul", other, reverse=True)

    def __lt__(self, other) -> Tensor:
        return self._bin("less", other)

    def __le__(self, other) -> Tensor:
        return self._bin("less_equal", other)

    def __gt__(self, other) -> Tensor:
        return self._bin("greater", other)

    def __ge__(self, other) -> Tensor:
        return self._bin("greater_equal", other)

    def __neg__(self) -> Tensor:
        from . import op

        return op.negative(self)

    # == stays identity (Tensors are used as dict keys); use nn.op.equal for the elementwise test.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def astype(self, dtype: str) -> Tensor:
        from . import op

        return op.astype(self, dtype)

    def reshape(self, *shape) -> Tensor:
        from . import op

        if len(shape) == 1 and isinstance(shape[0], list | tuple):
            shape = shape[0]
        return op.reshape(self, shape)

    def permute_dims(self, *axes) -> Tensor:
        from . import op

        if len(axes) == 1 and isinstance(axes[0], list | tuple):
            axes = axes[0]
        return op.permute_dims(self, list(axes) or None)


class Parameter(Tensor):
    """A model weight: declared ``shape`` (ints or symbolic names) and ``dtype``, optional ``data``.

    Inside ``export_tvm`` it stands for the exported function's parameter of the same name.
    """

    def __init__(self, shape: Sequence[int | str | PrimExpr], dtype: str | None = None):
        from .spec import Tensor as TensorSpec

        spec = TensorSpec(shape, dtype or get_default_dtype())  # validates the dims
        self._shape, self._dtype = spec.shape, spec.dtype
        self._expr = None
        self._data = None

    @property
    def shape(self) -> list[int | PrimExpr | str]:
        if self._expr is not None:
            return super().shape
        return list(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def dtype(self) -> str:
        return self._dtype

    @property
    def data(self):
        """The bound value (an ``ember`` NDArray) or None."""
        return self._data

    @data.setter
    def data(self, value) -> None:
        if value is None:
            self._data = None
            return
        arr = _as_numpy(value)
        if str(DataType(str(arr.dtype))) != self._dtype:
            raise TypeError(f"Parameter.data: expected dtype {self._dtype}, got {arr.dtype}")
        if arr.ndim != len(self._shape) or any(
            isinstance(d, int) and d != s for d, s in zip(self._shape, arr.shape)
        ):
            raise ValueError(f"Parameter.data: expected shape {tuple(self._shape)}, got {arr.shape}")
        import ember

        self._data = value if _is_ndarray(value) else ember.nd.array(np.array(arr, order="C", copy=True))

    def numpy(self) -> np.ndarray:
        """The bound data as a numpy array."""
        if self._data is None:
            raise ValueError("Parameter.numpy: the parameter has no data; set .data or use load_state_dict")
        return self._data.numpy()

    def to(self, dtype: str | None = None) -> Parameter:
        """Change the dtype (in place); bound data is converted with numpy."""
        if dtype is None:
            return self
        dtype = str(DataType(dtype))
        if dtype != self._dtype:
            data = None if self._data is None else self._data.numpy().astype(dtype)
            self._dtype, self._data = dtype, None
            self.data = data
        return self

    @property
    def struct_info(self) -> TensorStructInfo:
        if self._expr is None:
            raise RuntimeError(
                f"Parameter({tuple(self._shape)}, {self._dtype!r}) is used outside Module.export_tvm; "
                "parameters stand for function inputs only while a method is traced"
            )
        return self._expr.struct_info

    def __repr__(self) -> str:
        return f'Parameter({self.shape}, "{self.dtype}")'


class Module:
    """Base class of models: parameters and submodules are found among the attributes."""

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def _children(self) -> Iterator[tuple[str, Parameter | Module]]:
        """(attribute name, Parameter or Module) in declaration order."""
        for name, item in vars(self).items():
            if isinstance(item, Parameter | Module):
                yield name, item

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every submodule with its dotted name ("" for this one)."""
        yield prefix, self
        for name, item in self._children():
            if isinstance(item, Module):
                yield from item.named_modules(f"{prefix}{name}" if not prefix else f"{prefix}.{name}")

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name, in declaration order (shared ones once)."""
        seen: set[int] = set()
        for name, param in self._walk_parameters(prefix):
            if id(param) not in seen:
                seen.add(id(param))
                yield name, param

    def _walk_parameters(self, prefix: str) -> Iterator[tuple[str, Parameter]]:
        for name, item in self._children():
            full = f"{prefix}.{name}" if prefix else name
            if isinstance(item, Parameter):
                yield full, item
            else:
                yield from item._walk_parameters(full)

    def parameters(self) -> Iterator[Parameter]:
        for _, param in self.named_parameters():
            yield param

    def state_dict(self, *, prefix: str = "", destination: dict | None = None) -> dict[str, Parameter]:
        """Dotted name → Parameter (its ``.data`` / ``.numpy()`` give the values)."""
        out = {} if destination is None else destination
        for name, param in self.named_parameters(prefix):
            out[name] = param
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> tuple[list[str], list[str]]:
        """Set parameters' data from numpy arrays, NDArrays, torch tensors or Parameters; returns
        ``(missing_keys, unexpected_keys)`` and raises on either when ``strict``."""
        own = self.state_dict()
        unexpected = [k for k in state_dict if k not in own]
        missing = [k for k in own if k not in state_dict]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        for key, value in state_dict.items():
            if key not in own:
                continue
            if isinstance(value, Parameter):
                value = value.data
            if value is None:
                raise ValueError(f"load_state_dict: the value for {key!r} is None")
            try:
                own[key].data = value
            except (TypeError, ValueError) as err:
                raise type(err)(f"load_state_dict: {key!r}: {err}") from None
        return missing, unexpected

    def to(self, dtype: str | None = None) -> Module:
        """Convert every parameter (and a ``dtype`` attribute, if any) to ``dtype``; returns self."""
        for _, item in self._children():
            item.to(dtype)
        if dtype is not None and isinstance(getattr(self, "dtype", None), str):
            self.dtype = str(DataType(dtype))
        return self

    def export_tvm(self, spec: dict, debug: bool = False, allow_extern: bool = False):
        """Trace the methods in ``spec`` into Relax functions: ``(IRModule, param_spec)``."""
        from .exporter import export

        if allow_extern:
            raise NotImplementedError("export_tvm(allow_extern=True): extern modules are not supported yet")
        return export(self, spec, debug=debug)

    def jit(self, spec: dict, device: Any = "cpu", pipeline: Any = "zero", out_format: str = "torch",
            debug: bool = False):
        """Export, compile and wrap the methods in ``spec`` for PyTorch callers (see ``jit.py``)."""
        from .jit import jit

        return jit(self, spec, device=device, pipeline=pipeline, out_format=out_format, debug=debug)


class ModuleList(Module):
    """A list of modules named "0", "1", …; calling it applies them in turn."""

    def __init__(self, modules: Sequence[Module] = ()):
        self.modules: list[Module] = []
        for m in modules:
            self.append(m)

    def append(self, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"{type(self).__name__}.append: expected an nn.Module, got {type(module).__name__}")
        self.modules.append(module)

    def _children(self):
        for i, m in enumerate(self.modules):
            yield str(i), m

    def __iter__(self) -> Iterator[Module]:
        return iter(self.modules)

    def __getitem__(self, idx: int) -> Module:
        return self.modules[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        if not isinstance(module, Module):
            raise TypeError(f"{type(self).__name__}[{idx}]: expected an nn.Module, got {type(module).__name__}")
        self.modules[idx] = module

    def __len__(self) -> int:
        return len(self.modules)

    def forward(self, x):
        for m in self.modules:
            x = m(x)
        return x


class Sequential(ModuleList):
    """``Sequential(m1, m2, …)``: applies the modules in order."""

    def __init__(self, *modules: Module):
        super().__init__(modules)


def _is_ndarray(value) -> bool:
    from ember.runtime.ndarray import NDArray

    return isinstance(value, NDArray)


def _as_numpy(value) -> np.ndarray:
    if _is_ndarray(value):
        return value.numpy()
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch.Tensor (possibly requiring grad)
        value = value.detach().cpu()
    if hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray):
        return np.from_dlpack(value)
    return np.asarray(value)
