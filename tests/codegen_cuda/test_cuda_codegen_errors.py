"""CUDA build and runtime error paths: unbound loops, too many threads, no GPU, wrong device."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import te, tir
from ember.runtime import ArgumentError
from ember.tir.analysis import GPUConstraintError, UnboundGPULoopError, verify_gpu_code, verify_memory

from cuda_helpers import vector_add_schedule


def _unbound():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    return te.create_prim_func([A, B])


def test_unbound_loop_is_reported_with_fix():
    with pytest.raises(UnboundGPULoopError) as info:
        ember.build(_unbound(), target="cuda")
    message = str(info.value)
    assert "'B'" in message and "loop 'i'" in message
    assert 'sch.bind(loop, "threadIdx.x")' in message


def test_verify_memory_names_the_block_before_lowering():
    with pytest.raises(UnboundGPULoopError, match="in block 'B'"):
        verify_memory(_unbound())


def test_partly_bound_loop_is_reported():
    sch = tir.Schedule(_unbound())
    (i,) = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, [None, 32])
    sch.bind(ii, "threadIdx.x")  # the outer loop stays on the host: fine, threads touch the memory
    ember.build(sch.mod, target="cuda")


def _threads(n: int):
    s, args = vector_add_schedule(n=4096, factor=n)
    return s.to_prim_func(args, name="vadd")


def test_too_many_threads():
    with pytest.raises(GPUConstraintError) as info:
        ember.build(_threads(2048), target="cuda")
    assert "2048 threads per block" in str(info.value)
    assert "max_threads_per_block=1024" in str(info.value)


def test_verify_gpu_code_constraints():
    func = ember.lower(_threads(256))["vadd"]
    assert verify_gpu_code(func, {"max_threads_per_block": 256})
    assert not verify_gpu_code(func, {"max_threads_per_block": 128})
    assert not verify_gpu_code(func, {"max_thread_x": 64})
    with pytest.raises(TypeError, match="constraints must be a dict"):
        verify_gpu_code(func, [("max_threads_per_block", 1)])


def test_shared_memory_limit():
    from test_cuda_codegen_matmul import shared_tile_schedule

    func = ember.lower(shared_tile_schedule().mod)["main"]
    assert verify_gpu_code(func, {"max_shared_memory_per_block": 4096})
    assert not verify_gpu_code(func, {"max_shared_memory_per_block": 16})


@pytest.mark.skipif(ember.cuda().exist, reason="checks the no-GPU error")
def test_no_gpu_allocation_error():
    assert ember.cuda().exist is False
    with pytest.raises(RuntimeError, match="cuda\\(0\\) does not exist.*no CUDA GPU"):
        ember.nd.array(np.zeros(4, "float32"), device=ember.cuda())


def test_cpu_argument_is_refused():
    s, args = vector_add_schedule()
    mod = ember.build(s, args, target="cuda")
    a = ember.nd.array(np.zeros(1024, "float32"))
    wrong_device = "argument 'A' \\(#1\\): expected an array on a cuda device, got one on cpu"
    with pytest.raises(ArgumentError, match=wrong_device):
        mod(a, a, a)
    with pytest.raises(ArgumentError, match="expected 3 arguments, got 2"):
        mod(a, a)
    with pytest.raises(ArgumentError, match="main: argument 'A' \\(#1\\): expected an array on a cuda device"):
        mod(np.zeros(1024, "float32"), a, a)
    with pytest.raises(TypeError, match="argument 'A' \\(#1\\): expected a cuda array"):
        mod([0.0] * 1024, a, a)
