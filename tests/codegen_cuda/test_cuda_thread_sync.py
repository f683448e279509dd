"""ThreadSync: where barriers go (own-element reuse, hand-over, loops, thread-dependent branches)."""

from __future__ import annotations

import ember
from ember.ir import IRModule
from ember.script import tir as T
from ember.tir.transform import ThreadSync


def _syncs(func) -> str:
    text = ThreadSync("shared")(IRModule({"main": func}))["main"].script()
    return text


@T.prim_func
def own_element(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([64], "float32", "shared")
    S_1 = T.Buffer((64,), data=S, scope="shared")
    S_1[tx] = A[tx]
    B[tx] = S_1[tx] * T.float32(2)


@T.prim_func
def hand_over(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([64], "float32", "shared")
    S_1 = T.Buffer((64,), data=S, scope="shared")
    S_1[tx] = A[tx]
    B[tx] = S_1[63 - tx]


@T.prim_func
def refill_in_loop(A: T.Buffer((256,), "float32"), B: T.Buffer((64,), "float32")):
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([64], "float32", "shared")
    S_1 = T.Buffer((64,), data=S, scope="shared")
    for k in range(4):
        S_1[tx] = A[k * 64 + tx]
        B[tx] = B[tx] + S_1[(tx + 1) % 64]


@T.prim_func
def guarded_writer(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    tx = T.launch_thread("threadIdx.x", 64)
    S = T.allocate([1], "float32", "shared")
    S_1 = T.Buffer((1,), data=S, scope="shared")
    if tx < 1:
        S_1[0] = A[0]
    B[tx] = S_1[0]


def test_own_element_needs_no_barrier():
    assert "tvm_storage_sync" not in _syncs(own_element)


def test_hand_over_gets_a_barrier():
    text = _syncs(hand_over)
    assert text.count('tvm_storage_sync') == 1
    assert text.index("tvm_storage_sync") < text.index("B[tx] = ")


def test_loop_refill_gets_barriers_for_both_directions():
    text = _syncs(refill_in_loop)
    assert text.count('tvm_storage_sync') == 2  # after the fill, and before the next fill


def test_barrier_outside_a_thread_dependent_branch():
    text = _syncs(guarded_writer)
    assert text.count('tvm_storage_sync') == 1
    branch, sync = text.index("if tx < 1"), text.index("tvm_storage_sync")
    assert branch < sync  # after the whole `if`, where every thread arrives
    ember.build(guarded_writer, target="cuda")  # and the CUDA build places __syncthreads the same way
