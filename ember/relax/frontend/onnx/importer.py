"""``from_onnx``: an ONNX model → an IRModule whose ``main`` takes the graph inputs and
returns its outputs.

The importer validates the model, lists every unsupported operator at once, then walks
the graph in order.  Each node is converted by the converter the registry picks for the
node's domain opset; a node whose inputs are all known constants is evaluated at import
time with ONNX's reference evaluator (so shape subgraphs fold away); an op without a
converter whose schema has a function body is expanded into that body.
"""

from __future__ import annotations

import os
import re

import numpy as np
import onnx

from ember import tir
from ember.ir import IntImm, IRModule

from ...block_builder import BlockBuilder
from ...expr import Constant, Expr, PrimValue, ShapeExpr, Tuple, TupleGetItem, Var, const
from ...struct_info import TensorStructInfo, TupleStructInfo
from .common import ONNXImportError, OpNotImplemented, decode_attrs, onnx_dtype, tensor_to_numpy
from .functions import expand_node, function_schema
from .lowbit import is_lowbit, storage_dtype, to_storage
from .registry import find_converter
from .shape_values import SHAPE_AWARE, as_tensor

__all__ = ["from_onnx", "ConvertContext"]

# ops never evaluated at import time (random, stateful, or holding subgraphs)
_NO_FOLD = frozenset({
    "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
    "Bernoulli", "If", "Loop", "Scan", "SequenceConstruct", "SequenceEmpty", "SequenceInsert",
    "SequenceAt", "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
    "Optional", "OptionalGetElement", "OptionalHasElement", "SequenceMap",
})
_FOLD_MAX_ELEMENTS = 1 << 20
_CONTROL_FLOW = frozenset({"If", "Loop", "Scan"})


def _sanitize(name: str) -> str:
    name = re.sub(r"\W", "_", name).strip("_") or "v"
    return "v" + name if name[0].isdigit() else name


class ConvertContext:
    """What a converter sees of the import (see ``registry`` for the contract)."""

    def __init__(self, importer: _Importer):
        self._imp = importer
        self.bb: BlockBuilder = importer.bb
        self.opset: int = 0
        self.opsets: dict[str, int] = importer.opsets
        self.node: onnx.NodeProto | None = None
        self.in_dataflow: bool = importer.use_dataflow

    @property
    def node_name(self) -> str:
        node = self.node
        return (node.name or node.op_type) if node is not None else ""

    def const_value(self, expr: Expr | None) -> np.ndarray | None:
        """The numpy value of ``expr`` if known at import time, else ``None``."""
        if expr is None:
            return None
        if isinstance(expr, Constant):
            return expr.numpy()
        if isinstance(expr, Var):
            if id(expr) in self._imp.param_values:
                return self._imp.param_values[id(expr)][1]
            bound = self.bb.lookup_binding(expr)
            if isinstance(bound, Constant):
                return bound.numpy()
        if isinstance(expr, PrimValue) and isinstance(expr.value, IntImm):
            return np.array(int(expr.value.value), dtype="int64")
        if isinstance(expr, ShapeExpr):
            if all(isinstance(v, IntImm) for v in expr.values):
                return np.array([int(v.value) for v in expr.values], dtype="int64")
        return None

    def emit(self, expr, name_hint: str = "") -> Expr:
        """Bind ``expr`` in the current block (leaves and constants stay as they are)."""
        if isinstance(expr, Constant | Var | ShapeExpr):
            return expr
        return self.bb.emit(expr, name_hint)

    def error(self, message: str) -> ONNXImportError:
        """An import error naming the node being converted."""
        node = self.node
        where = f"node {self.node_name!r} ({node.op_type})" if node is not None else "from_onnx"
        return ONNXImportError(f"{where}: {message}")

    def value(self, name: str) -> Expr:
        """The Relax expression of ONNX value ``name``."""
        return self._imp.lookup(name)

    def elem_type(self, name: str) -> int | None:
        """ONNX's element type of value ``name`` (declared or inferred), or ``None``."""
        return self._imp.elem_types.get(name) if name else None

    def declared_shape(self, name: str) -> list[int] | None:
        """The static shape the model declares (or shape inference finds) for ``name``."""
        return self._imp.static_shapes.get(name) if name else None

    def input_lowbit(self, index: int) -> int | None:
        """The low-bit ONNX element type (see ``lowbit``) of the node's input ``index``
        (held as its storage dtype), or ``None``."""
        node = self.node
        if node is None or index >= len(node.input):
            return None
        elem = self.elem_type(node.input[index])
        return elem if is_lowbit(elem) else None

    def convert_subgraph(self, graph: onnx.GraphProto, bound: dict[str, Expr]) -> list[Expr]:
        """Convert ``graph``'s nodes into the current block with ``bound`` (its inputs by
        name) plus every outer value visible; return its outputs."""
        return self._imp.convert_subgraph(graph, bound)

    def expand_function(self, node: onnx.NodeProto, inputs) -> list[Expr | None]:
        """Convert ``node`` through its ONNX function body instead (for converters that
        handle only some attribute combinations natively); its outputs, one per output."""
        saved = (self.node, self.opset)
        domain = "" if node.domain == "ai.onnx" else node.domain
        try:
            self._imp._expand(node, list(inputs), domain, self.opset, {**self.opsets, domain: self.opset})
        finally:
            self.node, self.opset = saved
        return [self.value(name) if name else None for name in node.output]


class _Importer:
    def __init__(self, model: onnx.ModelProto, shape_dict, dtype_dict, opset, keep_params, base_dir,
                 sanitize: bool = True):
        self.sanitize = sanitize
        self.param_names: set[str] = set()
        self.model = model
        self.graph = model.graph
        self.opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
        if opset is not None:
            self.opsets[""] = int(opset)
        self.opsets.setdefault("", 1)
        self.shape_dict = dict(shape_dict or {})
        self.dtype_dict = dtype_dict
        self.keep_params = keep_params
        self.base_dir = base_dir
        self.bb = BlockBuilder()
        self.scopes: list[dict[str, Expr]] = [{}]
        self.param_values: dict[int, tuple[Var, np.ndarray]] = {}
        self.sym_vars: dict[str, tir.Var] = {}
        self.use_dataflow = not _has_control_flow(self.graph)
        self.elem_types, self.static_shapes = _value_types(model)
        self.ctx = ConvertContext(self)

    # -- values -------------------------------------------------------------------------
    def lookup(self, name: str) -> Expr:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise KeyError(name)

    def bind(self, name: str, expr: Expr) -> None:
        self.scopes[-1][name] = expr

    # -- inputs -------------------------------------------------------------------------
    def _dim(self, dim, input_name: str, axis: int):
        if dim.HasField("dim_value") and dim.dim_value >= 0 and not dim.HasField("dim_param"):
            return int(dim.dim_value)
        name = dim.dim_param if dim.HasField("dim_param") else ""
        if not re.search(r"\w", name):  # "" or a placeholder such as "?": a dim of its own
            name = f"{input_name}_dim{axis}"
        name = _sanitize(name)
        if name not in self.sym_vars:
            self.sym_vars[name] = tir.Var(name, "int64")
        return self.sym_vars[name]

    def _input_dtype(self, name: str, elem_type: int) -> str:
        if isinstance(self.dtype_dict, str):
            return self.dtype_dict
        if isinstance(self.dtype_dict, dict) and name in self.dtype_dict:
            return str(self.dtype_dict[name])
        if is_lowbit(elem_type):
            return storage_dtype(elem_type)
        return onnx_dtype(elem_type)

    def _input_var(self, vi: onnx.ValueInfoProto) -> Var:
        kind = vi.type.WhichOneof("value")
        if kind != "tensor_type":
            raise ONNXImportError(f"graph input {vi.name!r}: {kind} inputs are not supported")
        tt = vi.type.tensor_type
        dtype = self._input_dtype(vi.name, tt.elem_type)
        if vi.name in self.shape_dict:
            shape = [int(d) if isinstance(d, int | np.integer) else self._named_dim(d)
                     for d in self.shape_dict[vi.name]]
            return Var(self._param_name(vi.name), TensorStructInfo(shape, dtype))
        if not tt.HasField("shape"):
            return Var(self._param_name(vi.name), TensorStructInfo(None, dtype, ndim=-1))
        shape = [self._dim(d, vi.name, i) for i, d in enumerate(tt.shape.dim)]
        return Var(self._param_name(vi.name), TensorStructInfo(shape, dtype))

    def _param_name(self, name: str) -> str:
        """The parameter's name: as in the model, or (``sanitize_input_names``) a valid
        identifier made unique — TVM's rule: other characters become ``_``, a leading digit
        gets ``input_``, a repeated name ``_1``, ``_2``, …"""
        if not self.sanitize:
            return name
        clean = re.sub(r"[^0-9a-zA-Z_]", "_", name)
        if clean[:1].isdigit():
            clean = "input_" + clean
        base, k = clean, 0
        while clean in self.param_names:
            k += 1
            clean = f"{base}_{k}"
        self.param_names.add(clean)
        return clean

    def _named_dim(self, d):
        if isinstance(d, tir.Var):
            return d
        name = _sanitize(str(d))
        return self.sym_vars.setdefault(name, tir.Var(name, "int64"))

    # -- the walk -----------------------------------------------------------------------
    def run(self) -> IRModule:
        initializers = {t.name: t for t in self.graph.initializer}
        graph_inputs = [vi for vi in self.graph.input if vi.name not in initializers]
        inputs = [self._input_var(vi) for vi in graph_inputs]
        params: list[Var] = []
        for name, tensor in initializers.items():
            value = to_storage(tensor_to_numpy(tensor, self.base_dir))
            if self.keep_params:
                var = Var(name, TensorStructInfo(list(value.shape), str(value.dtype)
                                                 if value.dtype.name != "bfloat16" else "bfloat16"))
                self.param_values[id(var)] = (var, value)
                params.append(var)
                self.bind(name, var)
            else:
                self.bind(name, const(value))
        for vi, var in zip(graph_inputs, inputs, strict=True):
            self.bind(vi.name, var)
        bb = self.bb
        with bb.function("main", inputs + params):
            if self.use_dataflow:
                bb.begin_dataflow_block()
            else:
                bb.begin_binding_block()
            self.convert_nodes(self.graph.node, self.opsets)
            outputs = [as_tensor(self.ctx, self._graph_output(o.name)) for o in self.graph.output]
            out = outputs[0] if len(outputs) == 1 else Tuple(outputs)
            if self.use_dataflow:
                out = bb.emit_output(out)
                bb._close_block()
                bb._is_dataflow = False
            bb.emit_func_output(out)
        mod = bb.get()
        func = mod["main"]
        from ...analysis.vars import free_vars

        free = {id(v) for v in free_vars(func.body)} if params else set()
        used = [p for p in params if id(p) in free]
        if params:
            func = type(func)(list(inputs) + used, func.body, func.ret_struct_info, func.is_pure, func.attrs)
        func = func.with_attr("num_input", len(inputs))
        if self.keep_params:
            from ember.runtime.ndarray import array

            func = func.with_attr("params", [array(self.param_values[id(p)][1]) for p in used])
        mod["main"] = func
        return mod

    def _graph_output(self, name: str) -> Expr:
        try:
            return self.lookup(name)
        except KeyError:
            raise ONNXImportError(f"graph output {name!r} is not produced by any node or input") from None

    def convert_subgraph(self, graph: onnx.GraphProto, bound: dict[str, Expr]) -> list[Expr]:
        self.scopes.append(dict(bound))
        for t in graph.initializer:
            self.bind(t.name, const(to_storage(tensor_to_numpy(t, self.base_dir))))
        saved = self.ctx.node, self.ctx.opset
        try:
            self.convert_nodes(graph.node, self.opsets)
            return [self.lookup(o.name) for o in graph.output]
        finally:
            self.ctx.node, self.ctx.opset = saved
            self.scopes.pop()

    def convert_nodes(self, nodes, opsets: dict[str, int]) -> None:
        for node in nodes:
            self._convert_node(node, opsets)

    def _node_inputs(self, node: onnx.NodeProto) -> list[Expr | None]:
        inputs = []
        for name in node.input:
            if not name:
                inputs.append(None)
                continue
            try:
                inputs.append(self.lookup(name))
            except KeyError:
                raise ONNXImportError(
                    f"node {node.name or node.op_type!r} ({node.op_type}): input {name!r} is not "
                    "produced by any earlier node, initializer or graph input (is the graph "
                    "topologically sorted?)") from None
        return inputs

    def _convert_node(self, node: onnx.NodeProto, opsets: dict[str, int]) -> None:
        domain = "" if node.domain == "ai.onnx" else node.domain
        opset = opsets.get(domain, self.opsets.get(domain, 1))
        inputs = self._node_inputs(node)
        ctx = self.ctx
        ctx.node, ctx.opset = node, opset
        if self._try_fold(node, inputs, opset, domain):
            return
        fn = find_converter(domain, node.op_type, opset)
        if fn is None:
            self._expand(node, inputs, domain, opset, opsets)
            return
        attrs = decode_attrs(node)
        if node.op_type not in SHAPE_AWARE:
            inputs = [as_tensor(ctx, x) for x in inputs]
        try:
            result = fn(ctx, node, inputs, attrs)
            self._bind_outputs(node, result)
        except (OpNotImplemented, ONNXImportError):
            raise
        except Exception as err:  # noqa: BLE001 - name the node in any converter failure
            raise ONNXImportError(
                f"node {node.name or node.op_type!r} ({node.op_type}, opset {opset}): "
                f"{type(err).__name__}: {err}") from err

    def _bind_outputs(self, node: onnx.NodeProto, result) -> None:
        outputs = list(node.output)
        if isinstance(result, list | tuple):
            values = list(result)
        elif len(outputs) > 1:
            expr = self.ctx.emit(result)
            if isinstance(expr, Tuple):
                values = list(expr.fields)
            elif isinstance(expr.struct_info, TupleStructInfo):
                values = [self.bb.emit(TupleGetItem(expr, i)) for i in range(len(expr.struct_info.fields))]
            else:
                values = [expr]
        else:
            values = [result]
        for i, name in enumerate(outputs):
            if not name:
                continue
            if i >= len(values) or values[i] is None:
                if i == 0:
                    raise ONNXImportError(
                        f"node {node.name or node.op_type!r} ({node.op_type}): the converter gave no value")
                continue
            value = values[i]
            if not isinstance(value, Constant | Var | ShapeExpr | PrimValue):
                value = self.bb.emit(value, _sanitize(name))
            self.bind(name, value)

    # -- constant folding ---------------------------------------------------------------
    def _known(self, expr: Expr) -> np.ndarray | None:
        if isinstance(expr, Constant):
            return expr.numpy()
        if isinstance(expr, Var) and id(expr) in self.param_values:
            value = self.param_values[id(expr)][1]
            return value if value.dtype.kind in "iub" else None
        return None

    def _try_fold(self, node, inputs, opset: int, domain: str) -> bool:
        if node.op_type in _NO_FOLD or domain not in ("",):
            return False
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            return False
        if node.op_type == "Constant":
            pass
        elif not inputs or any(x is not None and self._known(x) is None for x in inputs):
            return False
        values = [None if x is None else self._known(x) for x in inputs]
        if sum(v.size for v in values if v is not None) > _FOLD_MAX_ELEMENTS:
            return False
        if any(v is not None and v.dtype.name == "bfloat16" for v in values):
            return False
        if any(is_lowbit(self.elem_types.get(name)) for name in node.input):
            return False  # held as storage: the reference evaluator would misread it
        try:
            results = _evaluate(node, values, opset)
        except Exception:  # noqa: BLE001 - fall back to converting the node
            return False
        for name, value in zip(node.output, results, strict=False):
            if name:
                if not isinstance(value, np.ndarray):
                    return False
        for name, value in zip(node.output, results, strict=False):
            if name:
                self.bind(name, const(to_storage(np.asarray(value))))
        return True

    # -- function expansion -------------------------------------------------------------
    def _expand(self, node, inputs, domain: str, opset: int, opsets) -> None:
        schema = function_schema(domain, node.op_type, opset)
        expanded = None
        if schema is not None:
            types = [_type_proto(x) for x in inputs]
            expanded = expand_node(schema, node, opset, types)
        if expanded is None:
            raise OpNotImplemented(
                f"from_onnx: no converter for {domain or 'ai.onnx'}.{node.op_type} at opset {opset} "
                f"(node {node.name or node.op_type!r})")
        body, body_opsets = expanded
        self.convert_nodes(body, {**opsets, **body_opsets})


def _evaluate(node: onnx.NodeProto, values, opset: int):
    from onnx.reference import ReferenceEvaluator

    names = [n for n in node.input]
    fn = onnx.helper.make_function("ember.fold", "fold", [n for n in names if n],
                                   [n for n in node.output if n], [node],
                                   [onnx.helper.make_opsetid("", opset)])
    feeds = {n: v for n, v in zip(names, values, strict=False) if n}
    return ReferenceEvaluator(fn).run(None, feeds, attributes={})


def _type_proto(expr: Expr | None) -> onnx.TypeProto:
    tp = onnx.TypeProto()
    if expr is None:
        return tp
    s = expr.struct_info
    if isinstance(s, TensorStructInfo) and s.dtype is not None:
        from onnx import helper

        dtype = str(s.dtype)
        elem = (onnx.TensorProto.BFLOAT16 if dtype == "bfloat16"
                else helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))
        tp.tensor_type.elem_type = elem
        if s.ndim >= 0:
            dims = s.shape.values if s.shape is not None and hasattr(s.shape, "values") else [None] * s.ndim
            for d in dims:
                dim = tp.tensor_type.shape.dim.add()
                if d is not None and hasattr(d, "value"):
                    dim.dim_value = int(d.value)
    return tp


def _value_types(model: onnx.ModelProto) -> tuple[dict[str, int], dict[str, list[int]]]:
    """Every value's ONNX element type, and static shape where all dims are known, that
    the model declares or shape inference finds (subgraphs included)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - inference is a help, not a requirement
        inferred = model
    out: dict[str, int] = {}
    shapes: dict[str, list[int]] = {}

    def walk(graph):
        for t in graph.initializer:
            out[t.name] = t.data_type
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            tt = vi.type.tensor_type if vi.type.WhichOneof("value") == "tensor_type" else None
            if tt is not None and tt.elem_type:
                out.setdefault(vi.name, tt.elem_type)
            if tt is not None and tt.HasField("shape") and all(
                    d.HasField("dim_value") for d in tt.shape.dim):
                shapes.setdefault(vi.name, [int(d.dim_value) for d in tt.shape.dim])
        for node in graph.node:
            if node.op_type == "Constant":
                for attr in node.attribute:
                    if attr.type == onnx.AttributeProto.TENSOR and node.output:
                        out.setdefault(node.output[0], attr.t.data_type)
            for sub in _subgraphs(node):
                walk(sub)

    walk(inferred.graph)
    if inferred is not model:
        walk(model.graph)
    return out, shapes


def _has_control_flow(graph: onnx.GraphProto) -> bool:
    for node in graph.node:
        if node.op_type in _CONTROL_FLOW:
            return True
    return False


# -- unsupported-op listing ---------------------------------------------------------------

def _subgraphs(node: onnx.NodeProto):
    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            yield from attr.graphs


def unsupported_ops(graph: onnx.GraphProto, opsets: dict[str, int]) -> dict[tuple[str, str, int], list[str]]:
    """``{(domain, op_type, opset): [node names]}`` for every node no converter or function
    body covers (subgraphs included)."""
    missing: dict[tuple[str, str, int], list[str]] = {}

    def walk(nodes, opsets):
        for node in nodes:
            domain = "" if node.domain == "ai.onnx" else node.domain
            opset = opsets.get(domain, 1)
            for sub in _subgraphs(node):
                walk(sub.node, opsets)
            if find_converter(domain, node.op_type, opset) is not None:
                continue
            schema = function_schema(domain, node.op_type, opset)
            if schema is not None and schema.has_context_dependent_function:
                continue
            if schema is not None:
                expanded = expand_node(schema, node, opset, [])
                if expanded is not None:
                    walk(expanded[0], {**opsets, **expanded[1]})
                    continue
            missing.setdefault((domain or "ai.onnx", node.op_type, opset), []).append(
                node.name or f"<unnamed {node.op_type}>")

    walk(graph.node, opsets)
    return missing


def _missing_message(missing) -> str:
    lines = [f"from_onnx: {len(missing)} operator(s) are not supported:"]
    for (domain, op, opset), names in sorted(missing.items()):
        shown = ", ".join(repr(n) for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        lines.append(f"  {domain}.{op} (opset {opset}): nodes {shown}")
    return "\n".join(lines)


# -- entry point --------------------------------------------------------------------------

def _load(model) -> tuple[onnx.ModelProto, str | None]:
    if isinstance(model, onnx.ModelProto):
        return model, None
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        if not os.path.exists(path):
            raise FileNotFoundError(f"from_onnx: model file {path!r} does not exist")
        return onnx.load(path), os.path.dirname(os.path.abspath(path))
    raise TypeError(f"from_onnx: model must be an onnx.ModelProto or a path, got {type(model).__name__}")


_DOMAIN_MISSING = re.compile(r"No opset import for domain '([^']*)'")


def _check(model: onnx.ModelProto) -> onnx.ModelProto:
    """Validate ``model``; the model to import.  Two omissions ONNX's checker rejects but
    the importer can read are accepted: a value info without a shape (its rank is then
    unknown) and a node domain missing from ``opset_import`` (read as version 1, added to
    a copy)."""
    for _ in range(8):
        try:
            onnx.checker.check_model(model)
            return model
        except onnx.checker.ValidationError as err:
            text = str(err).strip()
            first = text.splitlines()[0] if text else "invalid model"
            missing = _DOMAIN_MISSING.search(text)
            if missing:
                amended = onnx.ModelProto()
                amended.CopyFrom(model)
                amended.opset_import.append(onnx.helper.make_opsetid(missing.group(1), 1))
                model = amended
                continue
            if "Field 'shape' of 'type' is required but missing" in text:
                return model
            raise ONNXImportError(f"from_onnx: the model is not valid ONNX: {first}") from None
    return model


def from_onnx(model, shape_dict: dict | None = None, dtype_dict=None, opset: int | None = None,
              keep_params_in_input: bool = False, sanitize_input_names: bool = True) -> IRModule:
    """Convert an ONNX model (a ``ModelProto`` or a path) into an IRModule (see module docs).

    ``shape_dict`` overrides input shapes (ints or dim names), ``dtype_dict`` input dtypes
    (one dtype for all, or a dict by input name); ``opset`` overrides the default-domain
    opset; ``keep_params_in_input`` turns initializers into trailing parameters whose
    values are in ``mod["main"].attrs["params"]``.
    """
    model, base_dir = _load(model)
    model = _check(model)
    if model.functions:
        from onnx import inliner

        model = inliner.inline_local_functions(model)
    importer = _Importer(model, shape_dict, dtype_dict, opset, keep_params_in_input, base_dir,
                         sanitize_input_names)
    missing = unsupported_ops(model.graph, importer.opsets)
    if missing:
        raise OpNotImplemented(_missing_message(missing))
    return importer.run()
