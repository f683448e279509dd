"""``Module.jit``: export, compile and wrap a module so PyTorch code can call it directly.

The returned ``TorchModule`` runs each exported method on the Relax VM with the module's
parameter data (bound at jit time), taking torch tensors (or numpy arrays) and returning
torch tensors; arrays cross in both directions through DLPack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["jit", "TorchModule"]


class TorchModule:
    """Exported methods as attributes: ``m.forward(x)`` or ``m["forward"](x)``."""

    def __init__(self, vm, method_names: list[str], params: list, out_format: str):
        self._vm, self._params, self._out_format = vm, params, out_format
        self._methods = {name: self._make(name) for name in method_names}

    def _make(self, name: str):
        def call(*args):
            import ember

            inputs = [a if isinstance(a, int) else ember.nd.from_dlpack(_contiguous(a)) for a in args]
            return _convert(self._vm[name](*inputs, *self._params), self._out_format)

        call.__name__ = name
        return call

    def __getitem__(self, name: str):
        try:
            return self._methods[name]
        except KeyError:
            raise KeyError(f"TorchModule: no method {name!r}; exported: {list(self._methods)}") from None

    def __getattr__(self, name: str):
        methods = self.__dict__.get("_methods", {})
        if name in methods:
            return methods[name]
        raise AttributeError(f"TorchModule has no attribute {name!r}; exported methods: {list(methods)}")


def jit(module, spec: dict, device: Any = "cpu", pipeline: Any = "zero", out_format: str = "torch",
        debug: bool = False) -> TorchModule:
    """Export ``module`` with ``spec``, run ``pipeline`` ("zero" by default), build for the CPU."""
    import ember
    from ember import relax

    if out_format != "torch":
        raise ValueError(f"Module.jit: out_format must be 'torch', got {out_format!r}")
    if str(device) not in ("cpu", "cpu(0)", "llvm"):
        raise NotImplementedError(f"Module.jit: only the CPU is supported for now, got device {device!r}")
    mod, param_spec = module.export_tvm(spec, debug=debug)
    state = module.state_dict()
    missing = [name for name, _ in param_spec if state[name].data is None]
    if missing:
        raise ValueError(f"Module.jit: parameters without data: {missing}; set them with load_state_dict first")
    if pipeline is not None:
        mod = (relax.get_pipeline(pipeline) if isinstance(pipeline, str) else pipeline)(mod)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), ember.cpu())
    names = list(spec)
    return TorchModule(vm, names, [state[name].data for name, _ in param_spec], out_format)


def _contiguous(x):
    if hasattr(x, "contiguous") and hasattr(x, "detach"):  # torch.Tensor
        return x.detach().contiguous()
    import numpy as np

    return np.ascontiguousarray(x)


def _convert(value, out_format: str):
    if isinstance(value, tuple | list):
        return tuple(_convert(v, out_format) for v in value)
    if value is None or isinstance(value, int | float):
        return value
    import torch

    return torch.from_dlpack(value)
