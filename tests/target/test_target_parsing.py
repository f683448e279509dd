"""Target parsing, round-tripping, scopes, derived CPU/GPU facts and errors."""

import re

import pytest

from ember.target import Target
from ember.target import host as host_facts


@pytest.mark.parametrize("text", [
    "llvm",
    "llvm -mcpu=skylake-avx512",
    "llvm -mtriple=x86_64-linux-gnu -mattr=+avx2,+fma",
    "llvm -num-cores=4",
    "c",
    "cuda",
    "cuda -arch=sm_80",
    "llvm -keys=arm_cpu,cpu -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu",
])
def test_string_round_trips(text):
    t = Target(text)
    assert Target(str(t)) == t
    assert str(Target(str(t))) == str(t)


def test_kind_attrs_keys():
    t = Target("llvm -mcpu=skylake-avx512 -num-cores=4")
    assert t.kind.name == "llvm"
    assert t.attrs["mcpu"] == "skylake-avx512"
    assert t.attrs["num-cores"] == 4
    assert t.keys == ("cpu",)
    assert t.num_cores == 4
    assert t.vector_width_bits == 512
    assert Target("cuda").keys == ("cuda", "gpu")


def test_mattr_list_and_vector_width():
    t = Target("llvm -mtriple=x86_64-linux-gnu -mattr=+avx2,+fma")
    assert t.attrs["mattr"] == ("+avx2", "+fma")
    assert t.mattr == ("+avx2", "+fma")
    assert t.vector_width_bits == 256
    assert Target("llvm -mcpu=haswell").vector_width_bits == 256
    assert Target("llvm -mcpu=x86-64").vector_width_bits == 128
    assert Target("llvm -mcpu=skylake-avx512 -mattr=-avx512f").vector_width_bits == 256


def test_host_llvm_uses_host_cpu():
    t = Target("llvm")
    assert t.mcpu == host_facts.host_cpu_name()
    assert set(host_facts.host_cpu_features()) <= set(t.mattr)
    assert t.vector_width_bits in (128, 256, 512)


def test_num_cores_from_environment(monkeypatch):
    monkeypatch.setenv("EMBER_NUM_THREADS", "3")
    assert Target("llvm").num_cores == 3
    monkeypatch.delenv("EMBER_NUM_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    assert Target("llvm").num_cores == 5
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert Target("llvm").num_cores >= 1
    assert Target("llvm -num-cores=7").num_cores == 7


def test_cuda_facts():
    t = Target("cuda -arch=sm_80")
    assert t.arch == "sm_80"
    assert t.max_num_threads == 1024
    assert t.thread_warp_size == 32
    assert t.max_shared_memory_per_block == 49152
    assert Target("cuda -max_num_threads=512").max_num_threads == 512


def test_host_and_dict_forms():
    t = Target("cuda", host="llvm -mcpu=znver3")
    assert t.host.kind.name == "llvm" and t.host.attrs["mcpu"] == "znver3"
    assert Target(target="cuda", host="llvm") == Target({"kind": "cuda", "host": "llvm"})
    d = Target({"kind": "llvm", "mcpu": "skylake-avx512", "num-cores": 2})
    assert str(d) == "llvm -mcpu=skylake-avx512 -num-cores=2"
    assert Target(d) == d
    assert Target(t.export()) == t
    assert "host='llvm'" in repr(Target("cuda", host="llvm"))


def test_current_and_with_scopes():
    assert Target.current() is None
    outer, inner = Target("llvm"), Target("cuda")
    with outer:
        assert Target.current() is outer
        with inner:
            assert Target.current() is inner
        assert Target.current() is outer
    assert Target.current() is None
    with pytest.raises(ValueError, match="no target is in scope"):
        Target.current(allow_none=False)


def test_unknown_kind_lists_valid_ones():
    with pytest.raises(ValueError, match=re.escape("unknown target kind 'llvmx': expected one of c, cuda, llvm")):
        Target("llvmx")


def test_unknown_option_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown option -mcpuu for target kind 'llvm': valid options are .*-mcpu"):
        Target("llvm -mcpuu=x")


def test_bad_values_and_forms():
    with pytest.raises(ValueError, match="-num-cores of 'llvm': expected an integer, got 'many'"):
        Target("llvm -num-cores=many")
    with pytest.raises(ValueError, match="target string is empty"):
        Target("  ")
    with pytest.raises(ValueError, match="option 'mcpu=x' must look like -name=value"):
        Target("llvm mcpu=x")
    with pytest.raises(ValueError, match="target dict needs a 'kind' key"):
        Target({"mcpu": "x"})
    with pytest.raises(TypeError, match="expects a str, dict or Target, got int"):
        Target(3)
    with pytest.raises(ValueError, match="must be a CPU target"):
        Target("llvm", host="cuda")
    with pytest.raises(AttributeError, match="has no attribute 'nonexistent'"):
        Target("llvm").nonexistent  # noqa: B018


def test_flags_and_hash():
    t = Target("llvm -fast-math")
    assert t.attrs["fast-math"] is True
    assert Target("llvm -fast-math=false").attrs["fast-math"] is False
    assert len({Target("llvm"), Target("llvm"), Target("c")}) == 2


def test_tags():
    t = Target("nvidia/nvidia-a100")
    assert t.kind.name == "cuda" and t.arch == "sm_80" and t.tag == "nvidia/nvidia-a100"
    assert Target(str(t)) == t
    assert "nvidia/geforce-rtx-4090" in Target.list_tags()
    assert Target("nvidia/geforce-rtx-3090 -max_num_threads=512").max_num_threads == 512
    with pytest.raises(ValueError, match="or a tag such as 'nvidia/nvidia-a100'"):
        Target("nvidia/unknown-gpu")


def test_pickle_and_deepcopy():
    import copy
    import pickle

    t = Target("cuda -arch=sm_80", host="llvm -num-cores=4")
    assert pickle.loads(pickle.dumps(t)) == t
    assert copy.deepcopy(t).host.num_cores == 4
