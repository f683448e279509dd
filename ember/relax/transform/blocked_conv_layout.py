"""BlockedConvLayout: the CPU pipeline's layout step — activations channel-blocked
(``NCHW{b}c``) from one convolution to the next.

Runs ``ConvertLayout`` with a block chosen per convolution: ``B`` = float32 lanes of the
target's vector registers (16 with AVX-512, 8 with AVX2) when the channel count allows, else
``B/2`` (MobileNetV2's 24 and 40 channels), else the convolution stays NCHW (PackConvWeights then
packs its weight).  A first layer's few input channels (RGB) are read as ``NCHW1c``, so its
output is blocked at once.  A convolution reads its input in
the block it already has (``NCHW8c`` data, ``OIHW16o`` weight, ``NCHW16c`` output is one
kernel), so a change of block costs no transform.  Depthwise convolutions read and write the
same block.  ``dlight.cpu.Conv2DNCHWc`` / ``DepthwiseConv2DNCHWc`` schedule the kernels.

Off with PassContext config ``relax.transform.blocked_conv_layout=False`` or the environment
variable ``EMBER_BLOCKED_LAYOUT=0``; only for CPU (llvm, c) targets and float32 convolutions
with static shapes, groups 1 or depthwise.
"""

from __future__ import annotations

import os

from ember.ir import IRModule
from ember.transform import Pass, module_pass

from ..struct_info import TensorStructInfo, shape_values
from .convert_layout import convert_layout

__all__ = ["BlockedConvLayout", "choose_blocks"]


def static_float32_dims(expr) -> tuple | None:
    """``expr``'s shape as ints when it is a float32 tensor of static shape, else None."""
    sinfo = expr.struct_info_or_none()
    if not isinstance(sinfo, TensorStructInfo) or str(sinfo.dtype) != "float32":
        return None
    dims = shape_values(sinfo)
    if dims is None or not all(hasattr(d, "value") for d in dims):
        return None
    return tuple(int(d.value) for d in dims)


_FEW_CHANNELS = 8


def choose_blocks(lanes: int):
    """The ``choose`` hook of ``convert_layout``: (data, kernel, out) layouts of one conv2d."""
    half = lanes // 2

    def block(n: int) -> int | None:
        if n % lanes == 0:
            return lanes
        return half if half >= 4 and n % half == 0 else None

    def choose(call, current):
        a = call.attrs
        if (a.data_layout, a.kernel_layout, a.out_layout) != ("NCHW", "OIHW", "NCHW"):
            return None
        dims, wdims = static_float32_dims(call.args[0]), static_float32_dims(call.args[1])
        if dims is None or wdims is None or static_float32_dims(call) is None:
            return None
        c, (o, i) = dims[1], wdims[:2]
        ob = block(o)
        depthwise = a.groups == c == o and i == 1
        if ob is None or (a.groups != 1 and not depthwise):
            return None
        b = current.factor_of("C") if current is not None else -1
        ib = ob if depthwise else (b if b > 0 and c % b == 0 else block(c))
        if ib is None and not depthwise and c < _FEW_CHANNELS:
            ib = 1  # a first layer (RGB): NCHW read as NCHW1c, the output blocked at once
        if ib is None:
            return None
        return f"NCHW{ib}c", f"OIHW{ob}o", f"NCHW{ob}c"

    return choose


def BlockedConvLayout(target=None) -> Pass:  # noqa: N802 - named like the other passes
    """Channel-blocked activations for ``target`` (default: the current target, else the host)."""

    def run(mod: IRModule, ctx) -> IRModule:
        from ember.target import Target
        from ember.transform import PassContext

        default = os.environ.get("EMBER_BLOCKED_LAYOUT", "1") != "0"
        if not PassContext.current().config.get("relax.transform.blocked_conv_layout", default):
            return mod
        t = target if target is not None else (Target.current() or Target("llvm"))
        t = Target(t) if isinstance(t, str) else t
        if t.kind.name not in ("llvm", "c"):
            return mod
        lanes = max(4, t.vector_width_bits // 32)
        desired = {"relax.nn.conv2d": [f"NCHW{lanes}c", f"OIHW{lanes}o"]}
        # constants first: an importer's reshape(bias, (C, 1, 1)) must be a constant to follow
        # the convolution into its layout (a lower-rank operand that is not one sends the add back)
        from .fold_constant import FoldConstant

        # int64 index maps, as the shapes are: int32 maps mixed into fused int64 kernels (an LRN's
        # padding next to a transform, Inception v1) reached LLVM as i64/i32 compares
        return convert_layout(FoldConstant()(mod), desired, choose=choose_blocks(lanes), index_dtype="int64")

    return module_pass(run, opt_level=0, name="BlockedConvLayout")
