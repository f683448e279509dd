"""``relax.frontend.nn``: write models the PyTorch way and export them to Relax.

``Module`` subclasses declare ``Parameter``s and submodules as attributes and compute in
``forward`` with ``nn.op`` functions or ``Tensor`` operators; ``module.export_tvm(spec=…)``
traces the methods named in the spec into an IRModule (see ``exporter.py``).
"""

from . import op, spec
from .core import Module, ModuleList, Parameter, Sequential, Tensor, get_default_dtype
from .modules import GELU, Conv1D, Conv2D, Embedding, GroupNorm, LayerNorm, Linear, ReLU, RMSNorm, SiLU
from .extra_modules import Conv3D, ConvTranspose1D, ConvTranspose2D, Dropout, Identity
from .op import *  # noqa: F403 - TVM exposes the functional ops at nn.*

__all__ = [
    "op", "spec", "Module", "ModuleList", "Parameter", "Sequential", "Tensor", "get_default_dtype",
    "Conv3D", "ConvTranspose1D", "ConvTranspose2D", "Dropout", "Identity",
    "Linear", "Conv1D", "Conv2D", "LayerNorm", "RMSNorm", "GroupNorm", "Embedding", "ReLU", "GELU", "SiLU",
    *op.__all__,
]
