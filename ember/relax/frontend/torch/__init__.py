"""``relax.frontend.torch``: PyTorch models into Relax.

- ``from_exported_program(ep, …)`` imports a ``torch.export.ExportedProgram``;
- ``from_fx(graph_module, input_info, …)`` imports a ``torch.fx`` graph (symbolic_trace);
- ``relax_dynamo()`` / ``dynamo_backend`` compile ``torch.compile`` graphs with ember; the
  backend is registered with Dynamo under the name ``"ember"`` on import.

Converters live in one table keyed by ATen overload (``registry.CONVERTERS``), one file
per op family (``ops_*.py``); unsupported operators are reported all at once, with the
model source line of each (``UnsupportedOperatorError``).
"""

from .exported_program import from_exported_program
from .fx_translator import from_fx
from .importer import UnsupportedOperatorError
from .dynamo import dynamo_backend, dynamo_capture_subgraphs, relax_dynamo, register_dynamo_backend

register_dynamo_backend()

__all__ = ["from_exported_program", "from_fx", "relax_dynamo", "dynamo_backend", "dynamo_capture_subgraphs",
           "UnsupportedOperatorError"]
