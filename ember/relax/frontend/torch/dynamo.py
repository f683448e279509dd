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
        if entry is not None and not entry.weights_unchanged(args):
            entry = None  # a weight was changed in place: bake the new values
        if entry is None:
            entry = self._compile(args)
            if entry is None:
                return self.graph_module(*args)
            self.cache[key] = entry
        else:
            STATS["hits"] += 1
        inputs = [_to_vm(args[i]) for i in entry.runtime_inputs]
        result = entry.vm["main"](*inputs)
        flat = [torch.from_dlpack(r) for r in (result if isinstance(result, tuple | list) else [result])]
        return torch.utils._pytree.tree_unflatten(flat, entry.out_spec)

    def _weight_positions(self, args) -> list[int]:
        """Inputs that are the model's parameters or buffers (Dynamo passes them as graph
        inputs): they are baked into the module as constants instead of crossing every call."""
        import torch

        names = [n.name for n in self.graph_module.graph.nodes if n.op == "placeholder"]
        out = []
        for i, a in enumerate(args):
            name = names[i] if i < len(names) else ""
            if isinstance(a, torch.nn.Parameter) or "_buffers_" in name or "_parameters_" in name:
                out.append(i)
        return out

    def _compile(self, args):
        import torch

        import ember
        from ember import relax

        from .exported_program import from_exported_program
        from .importer import UnsupportedOperatorError

        weights = [i for i in self._weight_positions(args) if isinstance(args[i], torch.Tensor)]
        runtime = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and i not in weights]
        bound = _BoundWeights(self.graph_module, args, weights, runtime)
        try:
            ep = torch.export.export(bound, tuple(args[i] for i in runtime), strict=False)
            mod = from_exported_program(ep, entry="torch.compile(backend='ember')")
        except UnsupportedOperatorError as err:
            warnings.warn(f"{err}\nthis graph runs in eager PyTorch", stacklevel=2)
            STATS["fallbacks"] += 1
            self._eager = True
            return None
        ex = relax.build(mod, self.target)
        STATS["compiles"] += 1
        versions = [(i, args[i]._version) for i in weights]
        return _Compiled(relax.VirtualMachine(ex, ember.cpu()), ep.call_spec.out_spec, runtime, versions)


class _Compiled:
    """One compiled graph: its VM, how to rebuild the output structure, which call
    arguments it takes, and the versions of the weights baked into it."""

    def __init__(self, vm, out_spec, runtime_inputs: list[int], versions: list[tuple[int, int]]):
        self.vm, self.out_spec, self.runtime_inputs, self.versions = vm, out_spec, runtime_inputs, versions

    def weights_unchanged(self, args) -> bool:
        return all(args[i]._version == v for i, v in self.versions)


def _bound_weights_module():
    import torch

    class BoundWeights(torch.nn.Module):
        """The graph with its weight inputs held as buffers (exported as constants)."""

        def __init__(self, graph_module, args, weights, runtime):
            super().__init__()
            self.graph_module, self.n = graph_module, len(args)
            self.weights, self.runtime = weights, runtime
            self.others = {i: a for i, a in enumerate(args) if i not in weights and i not in runtime}
            for k, i in enumerate(weights):
                self.register_buffer(f"w{k}", args[i].detach())

        def forward(self, *inputs):
            full = [None] * self.n
            for k, i in enumerate(self.weights):
                full[i] = getattr(self, f"w{k}")
            for i, v in zip(self.runtime, inputs):
                full[i] = v
            for i, v in self.others.items():
                full[i] = v
            return self.graph_module(*full)

    return BoundWeights


def _BoundWeights(graph_module, args, weights, runtime):  # noqa: N802 - builds a module
    return _bound_weights_module()(graph_module, args, weights, runtime)


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
