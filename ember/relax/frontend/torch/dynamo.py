"""``torch.compile(model, backend="ember")``: a Dynamo backend that runs graphs on ember.

Each FX graph Dynamo hands over becomes an ``EmberGraph``: on a call it looks up the
compiled module for the inputs' signature (shapes, dtypes, non-tensor values); on a miss
it exports the graph with ``torch.export`` on those inputs, imports it
(``from_exported_program``), builds it with ``relax.build(mod, target)`` (default
legalisation, fusion and schedules) and keeps the ``VirtualMachine``.  A graph with
operators ember cannot import runs eagerly, after one warning naming them.  Tensors
cross into and out of the VM through DLPack, without copies (a non-contiguous input is
made contiguous first).  ``STATS`` counts compiles and cache hits (tests use it).
"""

from __future__ import annotations

import warnings

__all__ = ["relax_dynamo", "dynamo_backend", "dynamo_capture_subgraphs", "register_dynamo_backend", "STATS",
           "EmberGraph"]

#: process-wide counters: "compiles" (graphs built), "hits" (calls served from the cache),
#: "fallbacks" (graphs left to eager PyTorch)
STATS = {"compiles": 0, "hits": 0, "fallbacks": 0}


def _signature(args) -> tuple:
    import torch

    return tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else ("value", a) for a in args)


class EmberGraph:
    """The callable Dynamo runs in place of one FX graph (see module docstring)."""

    def __init__(self, graph_module, target: str = "llvm"):
        self.graph_module = graph_module
        self.target = target
        self.cache: dict = {}
        self._eager = False

    def __call__(self, *args):
        import torch

        if self._eager:
            return self.graph_module(*args)
        key = _signature(args)
        entry = self.cache.get(key)
        if entry is None:
            entry = self._compile(args)
            if entry is None:
                return self.graph_module(*args)
            self.cache[key] = entry
        else:
            STATS["hits"] += 1
        vm, out_spec, user_inputs = entry
        inputs = [_to_vm(a) for a, keep in zip(args, user_inputs) if keep]
        result = vm["main"](*inputs)
        flat = [torch.from_dlpack(r) for r in (result if isinstance(result, tuple | list) else [result])]
        return torch.utils._pytree.tree_unflatten(flat, out_spec)

    def _compile(self, args):
        import torch

        import ember
        from ember import relax

        from .exported_program import from_exported_program
        from .importer import UnsupportedOperatorError

        try:
            ep = torch.export.export(self.graph_module, tuple(args), strict=False)
            mod = from_exported_program(ep, entry="torch.compile(backend='ember')")
        except UnsupportedOperatorError as err:
            warnings.warn(f"{err}\nthis graph runs in eager PyTorch", stacklevel=2)
            STATS["fallbacks"] += 1
            self._eager = True
            return None
        ex = relax.build(mod, self.target)
        vm = relax.VirtualMachine(ex, ember.cpu())
        STATS["compiles"] += 1
        # tensor inputs become Relax parameters; Python values were specialised at export
        user_inputs = [isinstance(a, torch.Tensor) for a in args]
        return vm, ep.call_spec.out_spec, user_inputs


def _to_vm(t):
    t = t.detach()
    return t if t.is_contiguous() else t.contiguous()


def relax_dynamo(pipeline=None, target: str = "llvm"):
    """A Dynamo backend (``torch.compile(model, backend=relax_dynamo())``); ``pipeline`` is
    accepted for TVM compatibility (``relax.build`` applies the default one)."""

    def backend(graph_module, example_inputs):
        return EmberGraph(graph_module, target)

    return backend


dynamo_backend = relax_dynamo()


def register_dynamo_backend(name: str = "ember") -> None:
    """Make ``torch.compile(model, backend="ember")`` use ``dynamo_backend``."""
    try:
        from torch._dynamo.backends.registry import _BACKENDS, register_backend
    except ImportError:  # a PyTorch without Dynamo
        return
    if name not in _BACKENDS:
        register_backend(dynamo_backend, name=name)


def dynamo_capture_subgraphs(model, *params, **kwargs):
    """Run ``model(*params)`` under Dynamo and import every graph it captures into one
    IRModule, as functions ``subgraph_0``, ``subgraph_1``, … (TVM's helper of this name)."""
    import torch

    from ember.ir import IRModule

    from .exported_program import from_exported_program

    keep_params_as_input = kwargs.pop("keep_params_as_input", False)
    captured = IRModule({})

    def capture(graph_module, example_inputs):
        ep = torch.export.export(graph_module, tuple(example_inputs), strict=False)
        sub = from_exported_program(ep, keep_params_as_input=keep_params_as_input)
        name = f"subgraph_{len(captured.functions)}"
        captured[name] = sub["main"]
        return graph_module.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend=capture)
    with torch.no_grad():
        compiled(*params, **kwargs)
    torch._dynamo.reset()
    return captured
