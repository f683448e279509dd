"""relax.build's kernel cache (ember.relax.build_cache): a second build of the same kernels
skips scheduling, lowering and LLVM; anything that changes the code misses."""

import numpy as np
from relax_build_models import mlp_module, mlp_reference, mlp_weights

import ember
from ember import relax
from ember.relax import build_cache


def _run(exe, batch=4):
    w1, b1, w2 = mlp_weights()
    x = np.random.default_rng(batch).standard_normal((batch, 16), dtype="float32")
    out = relax.VirtualMachine(exe, ember.cpu())["main"](x, w1, b1, w2).numpy()
    np.testing.assert_allclose(out, mlp_reference(x, w1, b1, w2), rtol=1e-4, atol=1e-4)
    return out


def test_second_build_reuses_kernels():
    build_cache.clear()
    first = relax.build(mlp_module(batch=4), "llvm")
    before = build_cache.info()
    second = relax.build(mlp_module(batch=4), "llvm")  # a new, structurally equal module
    assert build_cache.info()["hits"] == before["hits"] + 1
    assert second.kernels is first.kernels
    np.testing.assert_array_equal(_run(first), _run(second))


def test_changed_kernels_target_or_config_miss():
    build_cache.clear()
    relax.build(mlp_module(batch=4), "llvm")
    hits = build_cache.info()["hits"]
    _run(relax.build(mlp_module(batch=5), "llvm"), batch=5)  # other shapes: other kernels
    with ember.transform.PassContext(config={"tir.disable_vectorize": True}):
        _run(relax.build(mlp_module(batch=4), "llvm"))
    relax.build(mlp_module(batch=4), "llvm", default_schedule=False)
    assert build_cache.info()["hits"] == hits
    assert build_cache.info()["entries"] == 4


def test_cache_can_be_turned_off(monkeypatch):
    build_cache.clear()
    monkeypatch.setenv("EMBER_BUILD_CACHE", "0")
    _run(relax.build(mlp_module(batch=4), "llvm"))
    _run(relax.build(mlp_module(batch=4), "llvm"))
    assert build_cache.info()["entries"] == 0


def test_verifying_the_ir_builds_everything_again(monkeypatch):
    build_cache.clear()
    monkeypatch.setenv("EMBER_VERIFY_IR", "1")
    _run(relax.build(mlp_module(batch=4), "llvm"))
    assert build_cache.info()["entries"] == 0


def test_module_without_kernels_is_not_cached():
    assert build_cache.make_key(ember.IRModule({}), "llvm", True) is None


def test_thread_count_is_part_of_the_key():
    """Default schedules plan for the thread count: another count must not reuse the kernels."""
    import ember.runtime
    from ember.ir import IRModule
    from ember.relax import build_cache
    from ember.tir import PrimFunc
    from ember.te import create_prim_func, compute, placeholder

    a = placeholder((4,), name="A")
    func = create_prim_func([a, compute((4,), lambda i: a[i] + 1.0, name="B")])
    mod = IRModule({"f": func})
    assert isinstance(mod["f"], PrimFunc)
    before = ember.runtime.get_num_threads()
    try:
        ember.runtime.set_num_threads(1)
        one = build_cache.make_key(mod, "llvm", True)
        ember.runtime.set_num_threads(2)
        two = build_cache.make_key(mod, "llvm", True)
    finally:
        ember.runtime.set_num_threads(before)
    assert one is not None and one != two


def test_default_rule_settings_are_part_of_the_key(monkeypatch):
    """A default rule's class-level setting changed in the process changes the schedules: a
    build after the change must not get the kernels scheduled before it."""
    from ember.dlight.cpu import Conv2DNCHWc

    mod = mlp_module(batch=4)
    before = build_cache.make_key(mod, "llvm", True)
    monkeypatch.setattr(Conv2DNCHWc, "window_tile_pixels", Conv2DNCHWc.window_tile_pixels + 7)
    after = build_cache.make_key(mod, "llvm", True)
    assert before is not None and before != after
    assert build_cache.make_key(mod, "llvm", False)[-2] == ()  # unscheduled builds: no rules
