"""get_tensorize_loop_mapping / tile_with_tensor_intrin / is_output_block: which loops of a
block a tensor intrinsic covers, and tiling them for tensorize."""

import numpy as np

import ember
from ember import te, tir
from ember.meta_schedule.testing import te_workload
from ember.tir.schedule.analysis import (TensorizeInfo, get_auto_tensorize_mapping_info,
                                         get_tensorize_loop_mapping, is_output_block, suggest_index_map)
from ember.tir.schedule.transform import tile_with_tensor_intrin
from ember.tir.tensor_intrin.x86 import VNNI_DOT_16x4_INTRIN, dot_product_16x4_u8i8i32_desc


def _dense(n=64, m=64, k=64):
    X = te.placeholder((n, k), name="X", dtype="uint8")
    W = te.placeholder((m // 16, k // 4, 16, 4), name="W", dtype="int8")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(
        X[i, r].astype("int32") * W[j // 16, r // 4, j % 16, r % 4].astype("int32"), axis=r), name="compute")
    return te.create_prim_func([X, W, C])


def _desc_loops(desc):
    found = []
    tir.stmt_functor.pre_order_visit(desc.body, lambda n: found.append(n) if isinstance(n, tir.For) else True)
    return found


def test_dense_maps_j_and_k_onto_the_16x4_loops():
    sch = tir.Schedule(_dense())
    block = sch.get_block("compute")
    info = get_tensorize_loop_mapping(sch, block, dot_product_16x4_u8i8i32_desc)
    assert isinstance(info, TensorizeInfo) and info.block_iter_paddings is None
    by_desc = {d: s for s, d in info.loop_map.items()}
    d_i, d_k = _desc_loops(dot_product_16x4_u8i8i32_desc)
    _, j, k = sch.get_loops(block)
    assert sch.get(by_desc[d_i]) == sch.get(j) and sch.get(by_desc[d_k]) == sch.get(k)


def test_mapping_follows_iterators_not_positions():
    desc = tir.TensorIntrin.get("wmma_sync_16x16x16_f16f16f32_trans").desc  # C[i, j] += A[i, k] * B[j, k]
    sch = tir.Schedule(te.create_prim_func(te_workload.matmul(64, 64, 64, "float16", "float32")))  # B[k, j]
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    sch.reorder(k, i, j)
    info = get_tensorize_loop_mapping(sch, block, desc)
    got = [sch.get(s).loop_var.name for s in sorted(info.loop_map, key=lambda s: info.desc_loop_indexer[info.loop_map[s]])]
    assert got == ["i", "j", "k"]


def test_extents_not_multiples_need_padding():
    desc = tir.TensorIntrin.get("wmma_sync_16x16x16_f16f16f32_trans").desc
    sch = tir.Schedule(te.create_prim_func(te_workload.matmul(127, 256, 65, "float16", "float32")))
    block = sch.get_block("C")
    assert get_tensorize_loop_mapping(sch, block, desc) is None
    assert get_tensorize_loop_mapping(sch, block, desc, allow_padding=True).block_iter_paddings == [16, 1, 16]


def test_a_block_of_another_shape_does_not_map():
    A = te.placeholder((64, 64), name="A", dtype="uint8")
    B = te.compute((64, 64), lambda i, j: A[i, j].astype("int32") + 1, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    assert get_tensorize_loop_mapping(sch, sch.get_block("B"), dot_product_16x4_u8i8i32_desc) is None


def test_tile_with_tensor_intrin_moves_the_tiles_innermost_and_stays_correct():
    func = _dense()
    sch = tir.Schedule(func)
    block = sch.get_block("compute")
    tile = tile_with_tensor_intrin(sch, block, VNNI_DOT_16x4_INTRIN)
    loops = sch.get_loops(block)
    assert [sch.get(lp).loop_var.name for lp in loops] == ["i", "j_0", "k_0", "j_1", "k_1"]
    assert sch.get(tile) == sch.get(loops[3])
    assert [int(sch.get(lp).extent) for lp in loops[3:]] == [16, 4]
    rng = np.random.default_rng(0)
    x = rng.integers(0, 16, (64, 64)).astype("uint8")
    w = rng.integers(-8, 8, (4, 16, 16, 4)).astype("int8")
    outs = []
    for f in (func, sch.mod["main"]):
        c = ember.nd.array(np.zeros((64, 64), "int32"))
        ember.build(f, target="llvm")(ember.nd.array(x), ember.nd.array(w), c)
        outs.append(c.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_tile_with_tensor_intrin_returns_none_when_nothing_maps():
    A = te.placeholder((64, 64), name="A", dtype="uint8")
    B = te.compute((64, 64), lambda i, j: A[i, j].astype("int32") + 1, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    assert tile_with_tensor_intrin(sch, sch.get_block("B"), VNNI_DOT_16x4_INTRIN) is None


def test_is_output_block():
    sch = tir.Schedule(te.create_prim_func(te_workload.matmul_relu(16, 16, 16)))
    assert is_output_block(sch, sch.get_block("D"))
    assert not is_output_block(sch, sch.get_block("C"))


def test_schedule_get_of_an_sref_is_its_statement():
    sch = tir.Schedule(te.create_prim_func(te_workload.matmul(16, 16, 16)))
    loop = sch.get_loops(sch.get_block("C"))[0]
    assert sch.get(sch.get_sref(loop)) is sch.get(loop)


def test_tensor_intrin_is_reachable_from_tir_function():
    from ember.tir.function import TensorIntrin

    assert TensorIntrin is tir.TensorIntrin


def _loops(names_extents):
    vs = [tir.Var(n, "int32") for n, _ in names_extents]
    return vs, [tir.For(v, 0, e, tir.ForKind.SERIAL, tir.Evaluate(0)) for v, (_, e) in zip(vs, names_extents)]


def test_suggested_layout_is_walked_in_loop_order():
    (i, j), loops = _loops([("i", 32), ("j", 64)])
    buf = tir.decl_buffer((8, 256), "float32", "X")
    index_map = suggest_index_map(buf, [i // 16 * 4 + j // 16, i % 16 * 16 + j % 16], loops, True)
    assert index_map.is_equivalent_to(tir.IndexMap.from_func(lambda x, y: (x // 4, y // 16, x % 4, y % 16)))
    visited = []  # new coordinates of each access, in loop order: increasing and all distinct
    for a in range(32):
        for b in range(64):
            x, y = a // 16 * 4 + b // 16, a % 16 * 16 + b % 16
            visited.append((x // 4, y // 16, x % 4, y % 16))
    assert visited == sorted(visited) and len(set(visited)) == 8 * 256


def test_suggested_layout_of_a_repeated_access():
    (i, j), loops = _loops([("i", 2), ("j", 32)])
    index_map = suggest_index_map(tir.decl_buffer((8,), "float32", "X"), [j % 4 * 2 + i], loops, True)
    assert index_map.is_equivalent_to(tir.IndexMap.from_func(lambda x: (x % 2, x // 2)))


def test_no_layout_for_a_non_affine_access():
    (i,), loops = _loops([("i", 16)])
    assert suggest_index_map(tir.decl_buffer((256,), "float32", "X"), [i * i], loops, True) is None


def _auto_map(tensors, block_name):
    sch = tir.Schedule(te.create_prim_func(list(tensors)))
    desc = tir.TensorIntrin.get("wmma_sync_16x16x16_f16f16f32").desc  # C[i, j] += A[i, k] * B[k, j]
    return get_auto_tensorize_mapping_info(sch, sch.get_block(block_name), desc)


def test_auto_mapping_fuses_a_conv_into_a_matmul():
    info = _auto_map(te_workload.conv2d_nhwc(2, 8, 8, 32, 16, 3, 1, 1, in_dtype="float16", out_dtype="float32"),
                     "conv2d_nhwc")
    expected = tir.IndexMap.from_func(lambda n, h, w, c, rh, rw, rc: (n * 64 + h * 8 + w, c, rh * 96 + rw * 32 + rc))
    assert len(info.mappings) == 1 and info.mappings[0].is_equivalent_to(expected)
    assert len(info.lhs_iters) == 7 and len(info.rhs_iters) == 3


def test_auto_mapping_keeps_a_batch_axis_in_front():
    info = _auto_map(te_workload.batch_matmul_nkkm(4, 32, 32, 32, "float16", "float32"), "Z")
    assert info.mappings[0].is_equivalent_to(tir.IndexMap.from_func(lambda b, i, j, k: (b, i, j, k)))


def test_auto_mapping_of_an_elementwise_block_is_none():
    A = te.placeholder((64, 64), name="A", dtype="float16")
    B = te.compute((64, 64), lambda i, j: A[i, j].astype("float32") + 1, name="B")
    assert _auto_map([A, B], "B") is None
