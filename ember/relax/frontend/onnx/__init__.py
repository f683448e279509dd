"""``relax.frontend.onnx``: import ONNX models as Relax IRModules (``from_onnx``).

``importer`` walks the graph; ``registry`` holds the converter table that the op-family
modules (``ops_*``, listed in ``registry.FAMILY_MODULES``) fill.
"""

from . import packed_reduce  # noqa: F401 - registers ember.onnx.reduce for built modules
from .common import ONNXImportError, OpNotImplemented
from .importer import ConvertContext, from_onnx, unsupported_ops

__all__ = ["from_onnx", "ConvertContext", "OpNotImplemented", "ONNXImportError", "unsupported_ops"]
