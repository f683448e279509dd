"""``relay.testing.mlp``: a 3-layer perceptron (128 → 64 → classes) with softmax."""

from __future__ import annotations

from ember.relax import op

from .layers import Network


def get_workload(batch_size: int = 1, num_classes: int = 10, image_shape=(1, 28, 28), dtype: str = "float32"):
    """``(mod, params)`` of the MLP for ``batch_size`` images of ``image_shape``."""
    with Network((batch_size, *image_shape), dtype) as net:
        x = net.emit(op.reshape(net.data, (batch_size, -1)))
        x = net.relu(net.dense(x, "fc1", 128))
        x = net.relu(net.dense(x, "fc2", 64))
        x = net.dense(x, "fc3", num_classes)
        return net.finish(net.emit(op.nn.softmax(x, axis=-1)))
