"""``relay.testing.resnet``: ResNet-18/34/50/101/152 (v1 layout: conv → batch norm → relu)."""

from __future__ import annotations

from ember.relax import op

from .layers import Network

# num_layers → (bottleneck?, units per stage)
_UNITS = {18: (False, (2, 2, 2, 2)), 34: (False, (3, 4, 6, 3)), 50: (True, (3, 4, 6, 3)),
          101: (True, (3, 4, 23, 3)), 152: (True, (3, 8, 36, 3))}


def _unit(net: Network, x, name: str, channels: int, stride: int, bottleneck: bool, project: bool):
    if bottleneck:
        y = net.relu(net.batch_norm(net.conv(x, f"{name}_conv1", channels // 4, 1), f"{name}_bn1"))
        y = net.relu(net.batch_norm(net.conv(y, f"{name}_conv2", channels // 4, 3, stride, 1), f"{name}_bn2"))
        y = net.batch_norm(net.conv(y, f"{name}_conv3", channels, 1), f"{name}_bn3")
    else:
        y = net.relu(net.batch_norm(net.conv(x, f"{name}_conv1", channels, 3, stride, 1), f"{name}_bn1"))
        y = net.batch_norm(net.conv(y, f"{name}_conv2", channels, 3, 1, 1), f"{name}_bn2")
    shortcut = net.batch_norm(net.conv(x, f"{name}_sc", channels, 1, stride), f"{name}_sc_bn") if project else x
    return net.relu(net.emit(op.add(y, shortcut)))


def get_workload(batch_size: int = 1, num_classes: int = 1000, num_layers: int = 18,
                 image_shape=(3, 224, 224), dtype: str = "float32"):
    """``(mod, params)`` of a ResNet with ``num_layers`` layers."""
    if num_layers not in _UNITS:
        raise ValueError(f"resnet.get_workload: num_layers must be one of {sorted(_UNITS)}, got {num_layers}")
    bottleneck, units = _UNITS[num_layers]
    widths = (256, 512, 1024, 2048) if bottleneck else (64, 128, 256, 512)
    with Network((batch_size, *image_shape), dtype) as net:
        x = net.relu(net.batch_norm(net.conv(net.data, "conv0", 64, 7, 2, 3), "bn0"))
        x = net.emit(op.nn.max_pool2d(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1)))
        for stage, (count, width) in enumerate(zip(units, widths)):
            for i in range(count):
                stride = 2 if i == 0 and stage > 0 else 1
                project = i == 0 and (stage > 0 or bottleneck)
                x = _unit(net, x, f"stage{stage + 1}_unit{i + 1}", width, stride, bottleneck, project)
        x = net.emit(op.nn.adaptive_avg_pool2d(x, output_size=(1, 1)))
        x = net.emit(op.reshape(x, (batch_size, -1)))
        x = net.dense(x, "fc1", num_classes)
        return net.finish(net.emit(op.nn.softmax(x, axis=-1)))
