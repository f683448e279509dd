"""Ops that ONNX defines as functions: expand a node into the nodes of its function body.

An operator without a converter is still importable when its schema carries a function
body (``schema.has_function``) or builds one from the node's attributes and input types
(``schema.has_context_dependent_function``).  ``expand_node`` returns the body with the
formal inputs/outputs bound to the node's value names, attribute references resolved and
internal values renamed apart, plus the opsets the body is written against.
"""

from __future__ import annotations

import itertools

import onnx
from onnx import defs

__all__ = ["function_schema", "expand_node"]

_counter = itertools.count()


def function_schema(domain: str, op_type: str, opset: int):
    """The op's schema at ``opset`` if it can be expanded as a function, else ``None``."""
    try:
        schema = defs.get_schema(op_type, opset, domain)
    except Exception:  # noqa: BLE001 - unknown op or version
        return None
    if schema.has_function or schema.has_context_dependent_function:
        return schema
    return None


def _body(schema, node: onnx.NodeProto, opset: int, input_types) -> onnx.FunctionProto | None:
    if schema.has_function:
        versions = [v for v in schema.function_opset_versions if v <= opset]
        body = (schema.get_function_with_opset_version(max(versions)) if versions
                else schema.function_body)
        if isinstance(body, bytes):
            fn = onnx.FunctionProto()
            fn.ParseFromString(body)
            return fn
        return body
    if schema.has_context_dependent_function:
        versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
        types = [t.SerializeToString() for t in input_types]
        try:
            if versions:
                raw = schema.get_context_dependent_function_with_opset_version(
                    max(versions), node.SerializeToString(), types)
            else:
                raw = schema.get_context_dependent_function(node.SerializeToString(), types)
        except Exception:  # noqa: BLE001 - the schema refuses these input types
            return None
        fn = onnx.FunctionProto()
        fn.ParseFromString(raw)
        return fn
    return None


def _rename_outer_refs(graph: onnx.GraphProto, names: dict[str, str]) -> None:
    """Rename, in a subgraph of the body, the references to values of the enclosing body."""
    local = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name and name not in local and name in names:
                node.input[i] = names[name]
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                _rename_outer_refs(attr.g, {k: v for k, v in names.items() if k not in local})
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    _rename_outer_refs(g, {k: v for k, v in names.items() if k not in local})
        local.update(node.output)
    for out in graph.output:
        if out.name not in local and out.name in names:
            out.name = names[out.name]


def expand_node(schema, node: onnx.NodeProto, opset: int, input_types):
    """``(body nodes, {domain: opset})`` replacing ``node``, or ``None`` if not expandable."""
    fn = _body(schema, node, opset, input_types)
    if fn is None or not fn.node:
        return None
    prefix = f"_fn{next(_counter)}_{node.op_type}_"
    names: dict[str, str] = {"": ""}
    for formal, actual in zip(fn.input, node.input, strict=False):
        names[formal] = actual
    for formal in fn.input[len(node.input):]:
        names[formal] = ""
    for formal, actual in zip(fn.output, node.output, strict=False):
        names[formal] = actual
    given = {a.name: a for a in node.attribute}
    defaults = {a.name: a for a in fn.attribute_proto}
    for name, attr in schema.attributes.items():
        if name not in defaults and attr.default_value.name:
            defaults[name] = attr.default_value

    def rename(name: str) -> str:
        if name not in names:
            names[name] = prefix + name
        return names[name]

    body = []
    for inner in fn.node:
        new = onnx.NodeProto()
        new.CopyFrom(inner)
        del new.input[:]
        new.input.extend(rename(n) for n in inner.input)
        del new.output[:]
        new.output.extend(rename(n) for n in inner.output)
        new.name = prefix + (inner.name or inner.op_type)
        del new.attribute[:]
        for attr in inner.attribute:
            if attr.ref_attr_name:
                source = given.get(attr.ref_attr_name) or defaults.get(attr.ref_attr_name)
                if source is None:
                    continue
                resolved = onnx.AttributeProto()
                resolved.CopyFrom(source)
                resolved.name = attr.name
                new.attribute.append(resolved)
            elif attr.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                resolved = onnx.AttributeProto()
                resolved.CopyFrom(attr)
                for graph in ([resolved.g] if attr.type == onnx.AttributeProto.GRAPH else resolved.graphs):
                    _rename_outer_refs(graph, names)
                new.attribute.append(resolved)
            else:
                new.attribute.append(attr)
        body.append(new)
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in fn.opset_import}
    return body, opsets
