"""A small network builder for the workloads: named weights become parameters of ``main``.

``Network`` wraps a ``BlockBuilder``; layer helpers create a weight ``Var`` per name,
record its initial value, and emit Relax ops.  ``finish(output)`` closes ``main`` with
``data`` first and the weights after it, in creation order.
"""

from __future__ import annotations

import numpy as np

from ember import relax
from ember.relax import op


class Network:
    def __init__(self, data_shape: tuple, dtype: str = "float32", seed: int = 0):
        self.bb = relax.BlockBuilder()
        self.dtype = dtype
        self.rng = np.random.default_rng(seed)
        self.data = relax.Var("data", relax.TensorStructInfo(data_shape, dtype))
        self.weights: list[relax.Var] = []
        self.params: dict[str, np.ndarray] = {}

    def __enter__(self):
        self._finished = False
        self._scope = self.bb.function("main")
        self._scope.__enter__()
        self._df = self.bb.dataflow()
        self._df.__enter__()
        return self

    def __exit__(self, *exc):
        if not self._finished:  # an error while building: close the builder's scopes
            self._df.__exit__(*exc)
            self._scope.__exit__(*exc)
        return False

    def weight(self, name: str, shape: tuple, init: str = "xavier") -> relax.Var:
        if init == "xavier":
            fan = max(1, int(np.prod(shape[1:])) if len(shape) > 1 else shape[0])
            value = self.rng.uniform(-1, 1, size=shape) * np.sqrt(3.0 / fan)
        elif init == "ones":
            value = np.ones(shape)
        elif init == "zeros":
            value = np.zeros(shape)
        elif init == "var":
            value = self.rng.uniform(0.5, 1.5, size=shape)
        else:
            value = self.rng.uniform(-0.1, 0.1, size=shape)
        var = relax.Var(name, relax.TensorStructInfo(shape, self.dtype))
        self.weights.append(var)
        self.params[name] = value.astype(self.dtype)
        return var

    def emit(self, expr):
        return self.bb.emit(expr)

    def conv(self, x, name: str, channels: int, kernel: int, strides=1, padding=0, groups: int = 1):
        in_channels = x.struct_info.shape.values[1].value
        w = self.weight(f"{name}_weight", (channels, in_channels // groups, kernel, kernel))
        return self.emit(op.nn.conv2d(x, w, strides=(strides, strides), padding=(padding, padding), groups=groups))

    def batch_norm(self, x, name: str, epsilon: float = 2e-5):
        channels = x.struct_info.shape.values[1].value
        gamma = self.weight(f"{name}_gamma", (channels,), "ones")
        beta = self.weight(f"{name}_beta", (channels,), "uniform")
        mean = self.weight(f"{name}_moving_mean", (channels,), "uniform")
        var = self.weight(f"{name}_moving_var", (channels,), "var")
        out = self.emit(op.nn.batch_norm(x, gamma, beta, mean, var, axis=1, epsilon=epsilon, training=False))
        return self.emit(relax.TupleGetItem(out, 0))

    def relu(self, x):
        return self.emit(op.nn.relu(x))

    def dense(self, x, name: str, units: int, bias: bool = True):
        in_units = x.struct_info.shape.values[-1].value
        w = self.weight(f"{name}_weight", (units, in_units))
        y = self.emit(op.matmul(x, self.emit(op.permute_dims(w, [1, 0]))))
        if bias:
            y = self.emit(op.add(y, self.weight(f"{name}_bias", (units,), "uniform")))
        return y

    def finish(self, output):
        out = self.bb.emit_output(output)
        self._df.__exit__(None, None, None)
        self.bb.emit_func_output(out, params=[self.data, *self.weights])
        self._scope.__exit__(None, None, None)
        self._finished = True
        return self.bb.get(), {name: value for name, value in self.params.items()}
