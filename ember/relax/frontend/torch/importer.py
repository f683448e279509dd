"""The graph walker shared by the PyTorch importers: fx nodes in, Relax bindings out.

``GraphImporter`` keeps the map from fx nodes to Relax values (``env``), binds each
``call_function`` node's arguments to its ATen schema (defaults filled in), calls the
converter from ``registry.CONVERTERS`` and emits the result.  Before converting anything
it lists every operator without a converter at once (``UnsupportedOperatorError``), each
with the line of model source it comes from.  After each node it casts the result to the
dtype PyTorch recorded for it (``node.meta["val"]``), so converters need not repeat
PyTorch's type-promotion rules.  Converters use the helpers below (``emit``, ``dtype``,
``shape``, ``const``, ``out_dtype`` …) through the ``ctx`` argument.
"""

from __future__ import annotations

import numpy as np

from ember.ir import PrimExpr
from ember.relax import op as R
from ember.relax.block_builder import BlockBuilder
from ember.relax.expr import Constant, Expr, Tuple, TupleGetItem, Var, const
from ember.relax.struct_info import TensorStructInfo, TupleStructInfo

from . import registry

__all__ = ["GraphImporter", "UnsupportedOperatorError", "torch_dtype", "to_prim"]

#: nodes that only assert facts about symbolic sizes: nothing to compute
_IGNORED = {
    "aten._assert_scalar.default", "aten.sym_constrain_range_for_size.default",
    "aten.sym_constrain_range.default", "aten._assert_tensor_metadata.default",
    "aten._assert_async.msg", "aten._assert_async.default", "_operator.getitem_noop",
}


class UnsupportedOperatorError(NotImplementedError):
    """Raised before conversion starts; ``.ops`` maps each missing op to its source lines."""

    def __init__(self, message: str, ops: dict[str, list[str]]):
        super().__init__(message)
        self.ops = ops


_DTYPES = {
    "float32": "float32", "float64": "float64", "float16": "float16", "bfloat16": "bfloat16",
    "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8",
    "bool": "bool",
}


def torch_dtype(dtype) -> str:
    """``torch.float32`` → ``"float32"``; raises for dtypes Relax has no name for."""
    name = str(dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(f"PyTorch dtype {dtype} has no Relax equivalent (supported: {', '.join(_DTYPES)})")
    return _DTYPES[name]


def to_prim(expr, symbols: dict):
    """A sympy expression of torch's symbolic sizes → an int64 PrimExpr over ``symbols``."""
    import sympy

    from ember import tir

    if isinstance(expr, sympy.Integer | int):
        return int(expr)
    if isinstance(expr, sympy.Symbol):
        name = str(expr)
        if name not in symbols:
            symbols[name] = tir.Var(name, "int64")
        return symbols[name]
    args = [to_prim(a, symbols) for a in expr.args]
    if isinstance(expr, sympy.Add):
        out = args[0]
        for a in args[1:]:
            out = out + a
        return out
    if isinstance(expr, sympy.Mul):
        out = args[0]
        for a in args[1:]:
            out = out * a
        return out
    fname = type(expr).__name__
    if fname in ("FloorDiv", "floor") and len(args) == 2:
        return args[0] // args[1]
    if fname in ("Mod", "PythonMod") and len(args) == 2:
        return args[0] % args[1]
    raise NotImplementedError(f"symbolic size {expr} ({fname}) cannot be expressed in Relax")


def source_line(node) -> str:
    """``file.py:12: y = torch.foo(x)`` from the node's recorded stack trace ('' if none)."""
    trace = node.meta.get("stack_trace") or ""
    lines = [ln for ln in trace.strip().splitlines() if ln.strip()]
    for i in range(len(lines) - 1, -1, -1):
        text = lines[i].strip()
        if text.startswith("File "):
            parts = text.split('"')
            where = parts[1].rsplit("/", 1)[-1] if len(parts) > 1 else "?"
            lineno = text.split("line ")[-1].split(",")[0] if "line " in text else "?"
            code = lines[i + 1].strip() if i + 1 < len(lines) and not lines[i + 1].strip().startswith("File ") else ""
            return f"{where}:{lineno}: {code}".rstrip(": ")
    return ""


class GraphImporter:
    """Converts the nodes of one fx graph inside a BlockBuilder function's dataflow block."""

    def __init__(self, custom_convert_map: dict | None = None, entry: str = "from_exported_program"):
        self.block_builder = self.bb = BlockBuilder()
        self.env: dict = {}
        self.entry = entry
        self.node = None
        self.custom = {}
        for key, fn in (custom_convert_map or {}).items():
            key = registry.target_key(key) if not isinstance(key, str) else key
            self.custom[key if key.startswith(("aten.", "_operator.")) else "aten." + key] = fn

    # -- checks ------------------------------------------------------------------------
    def check_supported(self, nodes) -> None:
        missing: dict[str, list[str]] = {}
        for node in nodes:
            if node.op != "call_function":
                continue
            key = registry.target_key(node.target)
            if key in _IGNORED or key in self.custom or registry.lookup(key) is not None:
                continue
            missing.setdefault(key, [])
            line = source_line(node)
            if line and line not in missing[key]:
                missing[key].append(line)
        if missing:
            rows = []
            for key, lines in missing.items():
                rows.append(f"  {key}" + (f"  (from {lines[0]})" if lines else ""))
                rows += [f"      also from {ln}" for ln in lines[1:3]]
            raise UnsupportedOperatorError(
                f"{self.entry}: {len(missing)} PyTorch operator(s) have no converter; "
                "pass custom_convert_map to add them:\n" + "\n".join(rows), missing)

    # -- conversion --------------------------------------------------------------------
    def convert_node(self, node) -> None:
        self.node = node
        key = registry.target_key(node.target)
        if key in _IGNORED:
            self.env[node] = None
            return
        if key in self.custom:
            result = self.custom[key](node, self)
        else:
            fn = registry.lookup(key)
            try:
                result = fn(self, *self.bind_args(node))
            except (TypeError, ValueError, NotImplementedError, KeyError, IndexError) as err:
                where = source_line(node)
                raise type(err)(f"{self.entry}: converting {key} (node {node.name}"
                                + (f", from {where}" if where else "") + f"): {err}") from err
        self.env[node] = self._finish(result, node.meta.get("val"))

    def bind_args(self, node) -> list:
        """The node's arguments in its ATen schema's order, defaults filled in, fx nodes
        replaced by their Relax values."""
        schema = getattr(node.target, "_schema", None)
        if schema is None:  # Python operators: positional only
            return [self.retrieve(a) for a in node.args]
        out = []
        positional = list(node.args)
        for i, arg in enumerate(schema.arguments):
            if arg.is_out:
                continue
            if not arg.kwarg_only and i < len(positional):
                value = positional[i]
            elif arg.name in node.kwargs:
                value = node.kwargs[arg.name]
            elif arg.has_default_value():
                value = arg.default_value
            else:
                value = None
            out.append(self.retrieve(value))
        return out

    def retrieve(self, value):
        import torch

        if isinstance(value, torch.fx.Node):
            return self.env[value]
        if isinstance(value, list | tuple):
            return type(value)(self.retrieve(v) for v in value)
        return value

    def retrieve_args(self, node) -> list:
        """TVM's name: the node's positional arguments with fx nodes replaced."""
        return self.retrieve(list(node.args))

    def _finish(self, result, val):
        import torch

        if isinstance(result, list | tuple):
            vals = val if isinstance(val, list | tuple) else [None] * len(result)
            return [self._finish(r, v) for r, v in zip(result, vals)]
        if isinstance(result, Expr):
            if not isinstance(result, Var | Constant):
                result = self.bb.emit(result)
            if isinstance(val, torch.Tensor):
                want = torch_dtype(val.dtype)
                sinfo = result.struct_info
                if isinstance(sinfo, TensorStructInfo) and sinfo.dtype is not None and str(sinfo.dtype) != want:
                    result = self.bb.emit(R.astype(result, want))
        return result

    # -- helpers for converters ---------------------------------------------------------
    def emit(self, expr: Expr) -> Expr:
        return expr if isinstance(expr, Var | Constant) else self.bb.emit(expr)

    def sinfo(self, x: Expr):
        return x.struct_info

    def dtype(self, x) -> str:
        if isinstance(x, Expr):
            sinfo = x.struct_info
            if isinstance(sinfo, TensorStructInfo):
                return str(sinfo.dtype)
        if isinstance(x, bool):
            return "bool"
        if isinstance(x, int):
            return "int64"
        return "float32"

    def ndim(self, x: Expr) -> int:
        return x.struct_info.ndim

    def shape(self, x: Expr) -> list:
        """Dims as ints where static, PrimExprs where symbolic."""
        from ember.relax.struct_info import shape_values

        dims = shape_values(x.struct_info)
        if dims is None:
            raise ValueError(f"the shape of {x} is unknown")
        return [int(d.value) if hasattr(d, "value") and isinstance(d.value, int) else d for d in dims]

    def out_val(self):
        return self.node.meta.get("val") if self.node is not None else None

    def out_dtype(self, default: str = "float32") -> str:
        import torch

        val = self.out_val()
        if isinstance(val, list | tuple) and val:
            val = val[0]
        return torch_dtype(val.dtype) if isinstance(val, torch.Tensor) else default

    def const(self, value, dtype: str) -> Constant:
        return const(np.asarray(value).astype(dtype), dtype)

    def operand(self, x, dtype: str) -> Expr:
        """A tensor operand of ``dtype``: scalars become constants, tensors are cast."""
        if isinstance(x, Expr):
            return x if self.dtype(x) == dtype else self.emit(R.astype(x, dtype))
        if isinstance(x, PrimExpr):
            from ember.relax.expr import PrimValue

            own = str(x.dtype)  # int64 sizes, float64 (true division), bool (comparisons)
            value = self.emit(R.full((), PrimValue(x), own))
            return value if own == dtype else self.emit(R.astype(value, dtype))
        return self.const(x, dtype)

    def norm_axis(self, axis: int, ndim: int) -> int:
        return axis + ndim if axis < 0 else axis

    def tuple_item(self, x, i: int):
        if isinstance(x, list | tuple):
            return x[i]
        if isinstance(x, Expr) and isinstance(x.struct_info, TupleStructInfo):
            return self.emit(TupleGetItem(x, i))
        if isinstance(x, Tuple):
            return x.fields[i]
        raise TypeError(f"cannot index {type(x).__name__} with [{i}]")

