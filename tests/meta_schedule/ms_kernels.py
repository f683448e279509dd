"""TVMScript kernels and fast tuning settings shared by the meta_schedule tests."""

import numpy as np

from ember import meta_schedule as ms
from ember.script import tir as T


@T.prim_func
def matmul_64(a: T.handle, b: T.handle, c: T.handle) -> None:
    A = T.match_buffer(a, [64, 64])
    B = T.match_buffer(b, [64, 64])
    C = T.match_buffer(c, [64, 64])
    for i, j, k in T.grid(64, 64, 64):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0.0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func
def add_relu_256(a: T.Buffer((256, 256), "float32"), c: T.Buffer((256, 256), "float32")) -> None:
    B = T.alloc_buffer((256, 256))
    for i, j in T.grid(256, 256):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = a[vi, vj] + 1.0
    for i, j in T.grid(256, 256):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            c[vi, vj] = T.max(B[vi, vj], 0.0)


TARGET = "llvm -num-cores=2"


_SHARED: dict = {}


def fast_runner(**kwargs):
    """A runner timing each candidate once; without kwargs one warm worker shared by the tests."""
    if kwargs:
        return ms.LocalRunner(evaluator_config=ms.EvaluatorConfig(number=1, repeat=1, min_repeat_ms=1), **kwargs)
    if "runner" not in _SHARED:
        _SHARED["runner"] = fast_runner(timeout_sec=60)
    return _SHARED["runner"]


def shared_builder():
    """One LocalBuilder whose workers stay warm across tests (a cold worker costs seconds)."""
    if "builder" not in _SHARED:
        _SHARED["builder"] = ms.LocalBuilder(max_workers=1, timeout_sec=120)
    return _SHARED["builder"]


def run_matmul(lib, n=64):
    import ember

    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (n, n)).astype("float32")
    b = rng.uniform(-1, 1, (n, n)).astype("float32")
    c = ember.nd.array(np.zeros((n, n), "float32"))
    lib[lib.function_names[0]](ember.nd.array(a), ember.nd.array(b), c)
    return c.numpy(), a @ b.T


def small_search():
    """An evolutionary search small enough for tests (seconds per round); no round time limit,
    so a loaded machine draws the same population as an idle one."""
    return ms.EvolutionarySearch(population_size=6, init_min_unmeasured=4, genetic_num_iters=1,
                                 round_time_limit=1e9)
