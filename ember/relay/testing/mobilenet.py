"""``relay.testing.mobilenet``: MobileNet v1 (depthwise-separable convolutions)."""

from __future__ import annotations

from ember.relax import op

from .layers import Network

# (output channels, stride) of each depthwise-separable block
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1), (512, 1),
           (512, 1), (1024, 2), (1024, 1))


def _separable(net: Network, x, name: str, channels: int, stride: int, alpha: float):
    in_channels = x.struct_info.shape.values[1].value
    y = net.relu(net.batch_norm(net.conv(x, f"{name}_depthwise", in_channels, 3, stride, 1, groups=in_channels),
                                f"{name}_bn1"))
    return net.relu(net.batch_norm(net.conv(y, f"{name}_pointwise", int(channels * alpha), 1), f"{name}_bn2"))


def get_workload(batch_size: int = 1, num_classes: int = 1000, image_shape=(3, 224, 224), dtype: str = "float32",
                 alpha: float = 1.0):
    """``(mod, params)`` of MobileNet v1 with width multiplier ``alpha``."""
    with Network((batch_size, *image_shape), dtype) as net:
        x = net.relu(net.batch_norm(net.conv(net.data, "conv0", int(32 * alpha), 3, 2, 1), "bn0"))
        for i, (channels, stride) in enumerate(_BLOCKS):
            x = _separable(net, x, f"separable{i + 1}", channels, stride, alpha)
        x = net.emit(op.nn.adaptive_avg_pool2d(x, output_size=(1, 1)))
        x = net.emit(op.reshape(x, (batch_size, -1)))
        x = net.dense(x, "fc", num_classes)
        return net.finish(net.emit(op.nn.softmax(x, axis=-1)))
