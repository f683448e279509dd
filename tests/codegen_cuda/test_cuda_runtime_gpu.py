"""CUDA runtime on a GPU: device arrays, copies, launches, DLPack with PyTorch, timing.

Every test here is marked ``gpu`` and skips cleanly on machines without one.
"""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.runtime import ArgumentError

from cuda_helpers import needs_gpu, vector_add_schedule


@needs_gpu
def test_device_array_round_trip_and_copyto():
    dev = ember.cuda(0)
    x = np.arange(12, dtype="float32").reshape(3, 4)
    a = ember.nd.array(x, device=dev)
    assert a.device == dev and a.shape == (3, 4)
    np.testing.assert_array_equal(a.numpy(), x)
    b = a.copyto(dev)
    np.testing.assert_array_equal(b.numpy(), x)
    np.testing.assert_array_equal(a.copyto(ember.cpu()).numpy(), x)


@needs_gpu
def test_vector_add_numeric_and_timing():
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda")
    dev = ember.cuda(0)
    a, b = np.random.rand(1024).astype("float32"), np.random.rand(1024).astype("float32")
    c = ember.nd.empty((1024,), "float32", dev)
    mod(ember.nd.array(a, dev), ember.nd.array(b, dev), c)
    np.testing.assert_allclose(c.numpy(), a + b)
    result = mod.time_evaluator(mod.entry_name, dev, number=5, repeat=2)(ember.nd.array(a, dev),
                                                                          ember.nd.array(b, dev), c)
    assert len(result.results) == 2 and result.mean > 0


@needs_gpu
def test_wrong_shape_on_gpu_is_refused():
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda")
    dev = ember.cuda(0)
    a = ember.nd.empty((1024,), "float32", dev)
    with pytest.raises(ArgumentError, match="argument 'C' \\(#3\\): expected shape\\[0\\] == 1024, got 8"):
        mod(a, a, ember.nd.empty((8,), "float32", dev))


@needs_gpu
def test_torch_cuda_tensors_via_dlpack():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this PyTorch build has no CUDA")
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda")
    a = torch.rand(1024, device="cuda")
    b = torch.rand(1024, device="cuda")
    c = torch.empty(1024, device="cuda")
    mod(a, b, c)
    torch.cuda.synchronize()
    assert torch.allclose(c, a + b)
    back = torch.from_dlpack(ember.nd.array(a.cpu().numpy(), ember.cuda(0)))
    assert back.device.type == "cuda" and torch.equal(back, a)
