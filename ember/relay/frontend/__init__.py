"""``relay.frontend``: the classic importers, returning ``(mod, params)`` over Relax importers.

``from_onnx(model, shape)`` keeps the ONNX initializers as parameters of ``main`` (named
as in the model) and returns them in ``params``, as Relay did, so the classic
``relay.build(mod, target, params=params)`` binds them again.  ``from_pytorch`` takes a
``torch.nn.Module`` (traced with ``torch.export``) and example input shapes.
"""

from __future__ import annotations

from ember.runtime.ndarray import NDArray

__all__ = ["from_onnx", "from_pytorch"]


def _split_params(mod) -> tuple[object, dict[str, NDArray]]:
    from ember.relax.frontend import detach_params

    mod, detached = detach_params(mod)
    values = detached.get("main", [])
    main = mod["main"]
    num_input = int(main.attrs.get("num_input", len(main.params) - len(values)))
    names = [p.name_hint for p in main.params[num_input:]]
    return mod, dict(zip(names, values))


def from_onnx(model, shape: dict | None = None, dtype="float32", opset: int | None = None,
              freeze_params: bool = False, **kwargs):
    """``(mod, params)`` from an ONNX model (a ``ModelProto`` or a path)."""
    from ember.relax.frontend.onnx import from_onnx as relax_from_onnx

    mod = relax_from_onnx(model, shape_dict=shape, dtype_dict=dtype, opset=opset,
                          keep_params_in_input=not freeze_params)
    if freeze_params:
        return mod, {}
    return _split_params(mod)


def from_pytorch(module, input_infos, **kwargs):
    """``(mod, params)`` from a ``torch.nn.Module``; ``input_infos`` is a list of
    ``(name, shape)`` or ``(name, (shape, dtype))``, as Relay's ``from_pytorch`` took."""
    import torch

    from ember.relax.frontend.torch import from_exported_program

    examples = []
    for _, info in input_infos:
        shape, dtype = info if isinstance(info, tuple) and len(info) == 2 and isinstance(info[1], str) else (info, "float32")
        examples.append(torch.zeros(tuple(shape), dtype=getattr(torch, dtype)))
    program = torch.export.export(module.eval(), tuple(examples))
    mod = from_exported_program(program, keep_params_as_input=True)
    return _split_params(mod)
