"""relax.analysis.suggest_layout_transforms: output layouts propagated to blocks and inputs."""

import numpy as np
import pytest

from ember import relax, tir
from ember.error import TVMError
from ember.script import tir as T
from ember.tir.interpreter import run


@T.prim_func(private=True)
def add_broadcast(a: T.Buffer((2, 8, 3), "float32"), b: T.Buffer((8, 3), "float32"),
                  out: T.Buffer((2, 8, 3), "float32")):
    for i, j, k in T.grid(2, 8, 3):
        with T.block("add"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            out[vi, vj, vk] = a[vi, vj, vk] + b[vj, vk]


@T.prim_func(private=True)
def row_sum(a: T.Buffer((4, 6, 8), "float32"), out: T.Buffer((4, 8), "float32")):
    for i, r, j in T.grid(4, 6, 8):
        with T.block("sum"):
            vi, vr, vj = T.axis.remap("SRS", [i, r, j])
            with T.init():
                out[vi, vj] = T.float32(0)
            out[vi, vj] = out[vi, vj] + a[vi, vr, vj]


@T.prim_func(private=True)
def transpose(a: T.Buffer((4, 8), "float32"), out: T.Buffer((8, 4), "float32")):
    for i, j in T.grid(8, 4):
        with T.block("t"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = a[vj, vi]


@T.prim_func(private=True)
def flatten(a: T.Buffer((4, 4), "float32"), out: T.Buffer((16,), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("flat"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi * 4 + vj] = a[vi, vj]


def _apply(func, suggestions):
    sch = tir.Schedule(func)
    for block, per_block in suggestions.items():
        rv = sch.get_block(block.name_hint)
        for obj, imap in per_block.items():
            if isinstance(obj, tir.Block):
                sch.transform_block_layout(rv, imap)
            else:
                sch.transform_layout(rv, obj, imap)
    return sch.mod["main"]


def _shapes(func):
    return [[int(d) for d in func.buffer_map[p].shape] for p in func.params]


def _relayout(imap, array):
    return imap.map_ndarray(array) if imap is not None else array


def test_broadcast_input_follows_the_tiled_channel_axis():
    found = relax.analysis.suggest_layout_transforms(add_broadcast, [lambda n, c, w: (n, c // 4, w, c % 4)])
    (block, per_block), = found.items()
    assert block.name_hint == "add"
    after = _apply(add_broadcast, found)
    assert _shapes(after) == [[2, 2, 3, 4], [2, 3, 4], [2, 2, 3, 4]]
    # the transformed function computes the relayouted result from the relayouted inputs
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 8, 3)).astype("float32"), rng.standard_normal((8, 3)).astype("float32")
    maps = {buf.name: imap for buf, imap in per_block.items() if isinstance(buf, tir.Buffer)}
    out = np.zeros((2, 2, 3, 4), "float32")
    run(after, _relayout(maps["a"], a), _relayout(maps["b"], b), out)
    np.testing.assert_allclose(out, _relayout(maps["out"], a + b))


def test_reduction_keeps_reduction_iterators_in_place():
    found = relax.analysis.suggest_layout_transforms(row_sum, [lambda i, j: (i, j // 4, j % 4)])
    after = _apply(row_sum, found)
    assert _shapes(after) == [[4, 6, 2, 4], [4, 2, 4]]
    sch = tir.Schedule(after)
    block = sch.get(sch.get_block("sum"))
    kinds = [iv.iter_type for iv in block.iter_vars]
    assert kinds == [tir.IterVarType.DataPar, tir.IterVarType.CommReduce, tir.IterVarType.DataPar,
                     tir.IterVarType.DataPar]


def test_transposed_read_keeps_its_layout():
    found = relax.analysis.suggest_layout_transforms(transpose, [lambda i, j: (j, i)])
    (per_block,) = found.values()
    assert [type(k).__name__ for k in per_block] == ["Block", "Buffer"]
    assert _shapes(_apply(transpose, found)) == [[4, 8], [4, 8]]


def test_no_suggestion_for_unsupported_writes_or_non_bijective_maps():
    assert relax.analysis.suggest_layout_transforms(flatten, [lambda a: (a // 4, a % 4)]) == {}
    assert relax.analysis.suggest_layout_transforms(add_broadcast, [lambda n, c, w: (n, c // 3, w, c % 3)]) == {}
    assert relax.analysis.suggest_layout_transforms(add_broadcast, []) == {}


def test_errors():
    with pytest.raises(TVMError, match="Incompatible PrimFunc and write_transformations"):
        relax.analysis.suggest_layout_transforms(transpose, [lambda i, j: (j, i)] * 3)
    with pytest.raises(TVMError, match="Mismatch between output buffer shape and index map"):
        relax.analysis.suggest_layout_transforms(transpose, [lambda i: (i,)])
    with pytest.raises(AssertionError):
        relax.analysis.suggest_layout_transforms(transpose, [2])
