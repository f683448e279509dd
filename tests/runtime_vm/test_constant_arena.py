"""Huge-page memory (runtime/huge_pages.py) and the executable's constants moved into one
arena in program order (runtime/vm/constant_arena.py): same results, the layout asked for."""

import numpy as np
import pytest

import ember.runtime as rt
from ember.runtime import huge_pages
from ember.runtime.vm import Arg, Call, Executable, PooledAllocator, Ret, VirtualMachine, VMFunction


@rt.register_func("test.arena.add", override=True)
def _add(a, b, out):
    out.copyfrom(a.numpy() + b.numpy())


def test_large_arrays_start_on_a_huge_page_and_small_ones_are_aligned():
    big, small = huge_pages.empty(3 << 20), huge_pages.empty(1000)
    assert big.nbytes == 3 << 20 and small.nbytes == 1000
    assert big.ctypes.data % huge_pages.HUGE_PAGE == 0
    assert small.ctypes.data % 64 == 0


def test_huge_pages_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("EMBER_HUGE_PAGES", "0")
    assert not huge_pages.enabled()
    assert huge_pages.empty(3 << 20).ctypes.data % 64 == 0


N = 1 << 18  # 1 MiB of float32: two of them fill an arena on huge pages


def _two_adds(constants):
    """main(x) = (x + C1) + C0: constant 1 is used first, 2 (small) never moved."""
    instrs = (
        Call(1, "vm.builtin.alloc_output", (Arg("vm", None), Arg("imm", (N,)), Arg("imm", "float32"))),
        Call(None, "test.arena.add", (Arg("reg", 0), Arg("const", 1), Arg("reg", 1))),
        Call(2, "vm.builtin.alloc_output", (Arg("vm", None), Arg("imm", (N,)), Arg("imm", "float32"))),
        Call(None, "test.arena.add", (Arg("reg", 1), Arg("const", 0), Arg("reg", 2))),
        Ret(2),
    )
    return Executable({"main": VMFunction("main", ("x",), instrs, 3)}, constants=constants)


def test_constants_move_into_one_arena_in_first_use_order():
    c0, c1 = np.full(N, 1, "float32"), np.full(N, 10, "float32")
    small = rt.array(np.ones(4, "float32"))
    exe = _two_adds([rt.array(c0), rt.array(c1), small])
    vm = VirtualMachine(exe, rt.cpu(), allocator=PooledAllocator())
    first, second = exe.constants[1].data_ptr, exe.constants[0].data_ptr
    assert first % huge_pages.HUGE_PAGE == 0 and second == first + N * 4  # used first, placed first
    assert exe.constants[2] is small  # under MIN_BYTES: left where it was
    x = np.arange(N, dtype="float32")
    np.testing.assert_array_equal(vm["main"](x).numpy(), x + 11)
    VirtualMachine(exe, rt.cpu())  # a second VM over the same executable moves nothing again
    assert exe.constants[1].data_ptr == first
    np.testing.assert_array_equal(exe.constants[0].numpy(), c0)


def test_no_arena_when_huge_pages_are_off(monkeypatch):
    monkeypatch.setenv("EMBER_HUGE_PAGES", "0")
    c0 = rt.array(np.zeros(N, "float32"))
    exe = _two_adds([c0, rt.array(np.zeros(N, "float32")), rt.array(np.ones(4, "float32"))])
    VirtualMachine(exe, rt.cpu())
    assert exe.constants[0] is c0


@pytest.mark.parametrize("nbytes", [100, 2 << 20])
def test_pooled_storages_of_any_size_are_reused(nbytes):
    pool = PooledAllocator()
    storage = pool.alloc(nbytes)
    address = storage.alloc_tensor(0, (nbytes // 4,), "float32").data_ptr
    del storage
    again = pool.alloc(nbytes)
    assert again.alloc_tensor(0, (nbytes // 4,), "float32").data_ptr == address
    assert (pool.stats.fresh_allocations, pool.stats.reused) == (1, 1)


def test_weights_larger_than_a_quarter_of_free_memory_stay_where_they_are(monkeypatch):
    from ember.runtime.vm import constant_arena

    monkeypatch.setattr(constant_arena, "_available_bytes", lambda: 4 * N * 4)  # one constant's worth
    c0 = rt.array(np.zeros(N, "float32"))
    exe = _two_adds([c0, rt.array(np.zeros(N, "float32")), rt.array(np.ones(4, "float32"))])
    VirtualMachine(exe, rt.cpu())
    assert exe.constants[0] is c0
