"""Shared helpers of the ONNX importer tests: build a one-node model, run it through
``from_onnx`` + ``relax.build`` and compare with ONNX Runtime."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

import ember
from ember import relax
from ember.relax.frontend.onnx import from_onnx


def _value_info(name, elem_type, shape):
    """A tensor value info; ``shape=None`` writes a placeholder 1-d shape (the checker needs one;
    neither ONNX Runtime nor the importer reads graph output shapes)."""
    if shape is not None:
        return helper.make_tensor_value_info(name, elem_type, shape)
    vi = helper.make_tensor_value_info(name, elem_type, [])
    vi.type.tensor_type.ClearField("shape")
    vi.type.tensor_type.shape.dim.add().dim_param = "?"
    return vi


def make_model(nodes, inputs, outputs, initializers=(), opset=17):
    """A model from nodes and ``(name, elem_type, shape)`` triples for inputs/outputs."""
    graph = helper.make_graph(
        nodes if isinstance(nodes, list) else [nodes], "test",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def run_ember(model, feeds: dict, **kwargs) -> list[np.ndarray]:
    """Import, build and run ``model``; outputs as a list of numpy arrays."""
    mod = from_onnx(model, **kwargs)
    mod, params = relax.frontend.detach_params(mod)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, ember.cpu())
    args = [ember.nd.array(feeds[p.name_hint]) for p in mod["main"].params if p.name_hint in feeds]
    args += params.get("main", [])
    out = vm["main"](*args)
    outs = list(out) if isinstance(out, tuple | list) else [out]
    return [o.numpy() for o in outs]


def run_ort(model, feeds: dict) -> list[np.ndarray]:
    import onnxruntime as ort

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def check_against_ort(model, feeds: dict, rtol=1e-5, atol=1e-5, **kwargs) -> None:
    onnx.checker.check_model(model)
    expected = run_ort(model, feeds)
    got = run_ember(model, feeds, **kwargs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
