"""``from_fx``: a ``torch.fx.GraphModule`` (e.g. from ``torch.fx.symbolic_trace``) → IRModule.

The graph's ``call_module`` / ``call_function`` / ``call_method`` nodes are lowered to ATen by
re-tracing the GraphModule with ``torch.export`` on example inputs made from ``input_info``;
the ATen graph then goes through the same converter table as ``from_exported_program``, so
each operator is converted once for both entry points.  ``input_info`` is a list of
``(shape, dtype)``; a dim given as a string or a ``tir.Var`` is dynamic (a symbolic var of
that name).  As in TVM, ``main`` returns what the graph returns: one tensor bare, several
(or a tuple the graph builds itself) as a tuple.
"""

from __future__ import annotations

__all__ = ["from_fx"]

_EXAMPLE_DYNAMIC_SIZE = 4


def from_fx(graph_module, input_info, keep_params_as_input: bool = False, unwrap_unit_return_tuple: bool = False,
            no_bind_return_tuple: bool = False, custom_convert_map: dict | None = None):
    """See module docstring; the options follow TVM's ``from_fx``."""
    import torch

    from .exported_program import from_exported_program

    if not isinstance(graph_module, torch.nn.Module):
        raise TypeError(f"from_fx: graph_module must be a torch.fx.GraphModule, got {type(graph_module).__name__}")
    if not isinstance(input_info, list | tuple) or not all(
            isinstance(i, list | tuple) and len(i) == 2 and isinstance(i[0], list | tuple) for i in input_info):
        raise TypeError("from_fx: input_info must be a list of (shape, dtype) pairs, "
                        f"got {input_info!r}")
    args, dynamic = [], []
    dims: dict = {}
    for shape, dtype in input_info:
        concrete, spec = [], {}
        for axis, d in enumerate(shape):
            if isinstance(d, int):
                concrete.append(d)
                continue
            name = str(getattr(d, "name", d))
            if name not in dims:
                dims[name] = torch.export.Dim(name)
            spec[axis] = dims[name]
            concrete.append(_EXAMPLE_DYNAMIC_SIZE)
        torch_dtype = getattr(torch, str(dtype))
        args.append(torch.zeros(concrete, dtype=torch_dtype) if not torch_dtype.is_floating_point
                    else torch.randn(concrete, dtype=torch_dtype))
        dynamic.append(spec or None)
    was_training = graph_module.training
    graph_module.eval()
    try:
        ep = torch.export.export(graph_module, tuple(args),
                                 dynamic_shapes=tuple(dynamic) if dims else None, strict=False)
    finally:
        graph_module.train(was_training)
    single = _returns_one_value(graph_module)
    return from_exported_program(ep, keep_params_as_input, unwrap_unit_return_tuple or single, no_bind_return_tuple,
                                 custom_convert_map, run_ep_decomposition=True, entry="from_fx")


def _returns_one_value(graph_module) -> bool:
    """Whether the fx graph's output is a single value rather than a tuple/list of them."""
    graph = getattr(graph_module, "graph", None)
    for node in reversed(list(graph.nodes) if graph is not None else []):
        if node.op == "output":
            return not isinstance(node.args[0], list | tuple)
    return False
