"""CUDA tensor-core intrinsics (``wmma``, 16x16x16) for ``sch.tensorize``.

Each intrinsic is a (description, implementation) pair of PrimFuncs: the description
is the scalar loop nest a block must match, the implementation one warp-wide call
(``tir.tvm_load_matrix_sync``, ``tvm_mma_sync``, ``tvm_fill_fragment``,
``tvm_store_matrix_sync``) that the CUDA code generator prints as ``nvcuda::wmma``.

Fragments live in buffers of the scopes ``wmma.matrix_a`` / ``wmma.matrix_b`` /
``wmma.accumulator``, laid out as row-major tiles of 16x16: a fragment buffer of shape
``(16*m, 16*n)`` holds ``m*n`` fragments and the tile at rows ``16*r``, columns ``16*c``
is fragment ``r*n + c``, which the implementations compute from the matched region's
``elem_offset`` (``offset // 256 + offset % 256 // 16``).  Inputs are float16 or
bfloat16, accumulators float32 (float16 accumulators for float16 too).

Registered names (TVM's)::

    wmma_load_16x16x16_{f16,bf16}_{a,b,b_trans}_{shared,shared_dyn}  shared → matrix_a / matrix_b
    wmma_fill_16x16x16_{f32,f16}                                      accumulator = 0
    wmma_sync_16x16x16_{f16f16f32,bf16bf16f32,f16f16f16}[_trans]      acc += a @ b (b as (N, K))
    wmma_store_16x16x16_{f32,f16}_{global,shared,shared_dyn}     accumulator → memory

Also under TVM's constant names (``WMMA_SYNC_16x16x16_f16f16f32_INTRIN``,
``WMMA_LOAD_16x16x16_F16_B_TRANS_INTRIN`` ...) and grouped by ``get_wmma_intrin_group``.
"""

from __future__ import annotations

from ember.ir import Cast, Var, const
from ember.tir.buffer import decl_buffer
from ember.tir.function import PrimFunc
from ember.tir.schedule.tensor_intrin import TensorIntrin
from ember.tir.stmt import Block, BlockRealize, BufferStore, Evaluate, For, ForKind, IterVar, IterVarType
from ember.ir import Call, DataType, Op, Range, StringImm

__all__ = ["WMMA", "wmma_intrin_names", "get_wmma_load_intrin", "get_wmma_sync_intrin",
           "get_wmma_fill_intrin", "get_wmma_store_intrin", "FRAGMENT_SCOPES"]

M = N = K = 16
FRAG = M * N
FRAGMENT_SCOPES = ("wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator")
_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
_MEM_SCOPES = {"shared": "shared", "shared_dyn": "shared.dyn", "global": "global"}

WMMA: dict[str, str] = {}  # a short key → registered name, e.g. WMMA["load_a_f16_shared"]


def _buffer(name: str, dtype: str, scope: str, strided: bool, symbolic_offset: bool = True):
    """A 16x16 parameter buffer; its handle; its stride and offset vars."""
    handle = Var(name.lower(), "handle")
    offset = Var(f"{name.lower()}_offset", "int32") if symbolic_offset else None
    stride = Var(f"{name.lower()}_stride", "int32") if strided else None
    buf = decl_buffer((M, N), dtype, name, elem_offset=offset, offset_factor=16, scope=scope,
                      strides=(stride, const(1, "int32")) if strided else None)
    return handle, buf, stride, offset


def _region(buf):
    return buf[0:M, 0:N]


def _root(body, reads, writes):
    return BlockRealize((), const(True), Block((), reads, writes, "root", body))


def _func(handles_bufs, body):
    handles = tuple(h for h, _ in handles_bufs)
    return PrimFunc(handles, body, None, dict(handles_bufs))


def _call(name: str, *args) -> Evaluate:
    values = tuple(StringImm(a) if isinstance(a, str) else (const(a, "int32") if isinstance(a, int) else a)
                   for a in args)
    return Evaluate(Call(DataType("handle"), Op.get("tir." + name), values))


def _fragment_index(offset):
    return offset // FRAG + offset % FRAG // N


def _access_ptr(buf, offset, stride, mask: int):
    dtype_note = Call(buf.dtype, Op.get("tir.type_annotation"), ())
    return Call(DataType("handle"), Op.get("tir.tvm_access_ptr"),
                (dtype_note, buf.data, offset, stride * M, const(mask, "int32")))


def _copy_desc(src, dst, name: str):
    """for i, j: dst[i, j] = src[i, j] (one spatial block over the 16x16 tile)."""
    i, j, vi, vj = Var("i"), Var("j"), Var("vi"), Var("vj")
    block = Block((IterVar(Range(0, M), vi, IterVarType.DataPar), IterVar(Range(0, N), vj, IterVarType.DataPar)),
                  (src[vi:vi + 1, vj:vj + 1],), (dst[vi:vi + 1, vj:vj + 1],), name,
                  BufferStore(dst, src[vi, vj], (vi, vj)))
    inner = For(j, const(0), const(N), ForKind.SERIAL, BlockRealize((i, j), const(True), block))
    return _root(For(i, const(0), const(M), ForKind.SERIAL, inner), (_region(src),), (_region(dst),))


def _load(dtype: str, operand: str, mem: str, layout: str = "row_major"):
    frag_scope = f"wmma.matrix_{operand}"
    ha, a, _, _ = _buffer("A", dtype, _MEM_SCOPES[mem], strided=False, symbolic_offset=False)
    hc, c, _, _ = _buffer("C", dtype, frag_scope, strided=False, symbolic_offset=False)
    desc = _func([(ha, a), (hc, c)], _copy_desc(a, c, "load"))
    ha, a, stride, a_off = _buffer("A", dtype, _MEM_SCOPES[mem], strided=True)
    hc, c, _, c_off = _buffer("C", dtype, frag_scope, strided=True)
    call = _call("tvm_load_matrix_sync", c.data, M, N, K, _fragment_index(c_off), _access_ptr(a, a_off, stride, 1),
                 stride, layout)
    impl = _func([(ha, a), (hc, c)], _root(call, (_region(a),), (_region(c),)))
    return desc, impl


def _store(dtype: str, mem: str):
    ha, a, _, _ = _buffer("A", dtype, "wmma.accumulator", strided=False, symbolic_offset=False)
    hc, c, _, _ = _buffer("C", dtype, _MEM_SCOPES[mem], strided=False, symbolic_offset=False)
    desc = _func([(ha, a), (hc, c)], _copy_desc(a, c, "store"))
    ha, a, _, a_off = _buffer("A", dtype, "wmma.accumulator", strided=True)
    hc, c, stride, c_off = _buffer("C", dtype, _MEM_SCOPES[mem], strided=True)
    call = _call("tvm_store_matrix_sync", a.data, M, N, K, _fragment_index(a_off), _access_ptr(c, c_off, stride, 2),
                 stride, "row_major")
    impl = _func([(ha, a), (hc, c)], _root(call, (_region(a),), (_region(c),)))
    return desc, impl


def _fill(dtype: str):
    hc, c, _, _ = _buffer("C", dtype, "wmma.accumulator", strided=False, symbolic_offset=False)
    i, j, vi, vj = Var("i"), Var("j"), Var("vi"), Var("vj")
    block = Block((IterVar(Range(0, M), vi, IterVarType.DataPar), IterVar(Range(0, N), vj, IterVarType.DataPar)),
                  (), (c[vi:vi + 1, vj:vj + 1],), "init", BufferStore(c, const(0, dtype), (vi, vj)))
    inner = For(j, const(0), const(N), ForKind.SERIAL, BlockRealize((i, j), const(True), block))
    desc = _func([(hc, c)], _root(For(i, const(0), const(M), ForKind.SERIAL, inner), (), (_region(c),)))
    hc, c, _, c_off = _buffer("C", dtype, "wmma.accumulator", strided=True)
    call = _call("tvm_fill_fragment", c.data, M, N, K, _fragment_index(c_off), const(0, dtype))
    impl = _func([(hc, c)], _root(call, (), (_region(c),)))
    return desc, impl


def _sync(in_dtype: str, out_dtype: str, trans_b: bool = False):
    def params(strided: bool):
        offsets = dict(symbolic_offset=strided)
        ha, a, _, a_off = _buffer("A", in_dtype, "wmma.matrix_a", strided, **offsets)
        hb, b, _, b_off = _buffer("B", in_dtype, "wmma.matrix_b", strided, **offsets)
        hc, c, _, c_off = _buffer("C", out_dtype, "wmma.accumulator", strided, **offsets)
        return [(ha, a), (hb, b), (hc, c)], (a, b, c), (a_off, b_off, c_off)

    pairs, (a, b, c), _ = params(False)
    i, j, k, vi, vj, vk = Var("i"), Var("j"), Var("k"), Var("vi"), Var("vj"), Var("vk")

    def widen(x):
        return x if in_dtype == out_dtype else Cast(DataType(out_dtype), x)

    b_at = (vj, vk) if trans_b else (vk, vj)  # B as (N, K): the fragment is loaded col_major
    value = c[vi, vj] + widen(a[vi, vk]) * widen(b[b_at])
    block = Block((IterVar(Range(0, M), vi, IterVarType.DataPar), IterVar(Range(0, N), vj, IterVarType.DataPar),
                   IterVar(Range(0, K), vk, IterVarType.CommReduce)),
                  (c[vi:vi + 1, vj:vj + 1], a[vi:vi + 1, vk:vk + 1], b[b_at[0]:b_at[0] + 1, b_at[1]:b_at[1] + 1]),
                  (c[vi:vi + 1, vj:vj + 1],), "update", BufferStore(c, value, (vi, vj)))
    nest = BlockRealize((i, j, k), const(True), block)
    for var, extent in ((k, K), (j, N), (i, M)):
        nest = For(var, const(0), const(extent), ForKind.SERIAL, nest)
    regions = (_region(c), _region(a), _region(b))
    desc = _func(pairs, _root(nest, regions, (_region(c),)))
    pairs, (a, b, c), (a_off, b_off, c_off) = params(True)
    call = _call("tvm_mma_sync", c.data, _fragment_index(c_off), a.data, _fragment_index(a_off),
                 b.data, _fragment_index(b_off), c.data, _fragment_index(c_off))
    impl = _func(pairs, _root(call, (_region(c), _region(a), _region(b)), (_region(c),)))
    return desc, impl


def _register(key: str, name: str, pair) -> None:
    TensorIntrin.register(name, *pair, override=True)
    WMMA[key] = name


def _register_all() -> None:
    for dtype in ("float16", "bfloat16"):
        s = _SHORT[dtype]
        for operand in ("a", "b"):
            for mem in ("shared", "shared_dyn"):
                _register(f"load_{operand}_{s}_{mem}", f"wmma_load_16x16x16_{s}_{operand}_{mem}",
                          _load(dtype, operand, mem))
        for mem in ("shared", "shared_dyn"):  # B stored (N, K): col_major fragments
            _register(f"load_b_trans_{s}_{mem}", f"wmma_load_16x16x16_{s}_b_trans_{mem}",
                      _load(dtype, "b", mem, "col_major"))
    for dtype in ("float32", "float16"):
        s = _SHORT[dtype]
        _register(f"fill_{s}", f"wmma_fill_16x16x16_{s}", _fill(dtype))
        for mem in ("global", "shared", "shared_dyn"):
            _register(f"store_{s}_{mem}", f"wmma_store_16x16x16_{s}_{mem}", _store(dtype, mem))
    for in_dtype, out_dtype in (("float16", "float32"), ("bfloat16", "float32"), ("float16", "float16")):
        name = f"{_SHORT[in_dtype]}{_SHORT[in_dtype]}{_SHORT[out_dtype]}"
        _register(f"sync_{name}", f"wmma_sync_16x16x16_{name}", _sync(in_dtype, out_dtype))
        _register(f"sync_{name}_trans", f"wmma_sync_16x16x16_{name}_trans", _sync(in_dtype, out_dtype, True))


def _check(dtype: str, allowed: tuple, what: str) -> str:
    if dtype not in allowed:
        raise ValueError(f"{what}: dtype must be one of {', '.join(allowed)}, got {dtype!r}")
    return _SHORT[dtype]


def get_wmma_load_intrin(dtype: str = "float16", operand: str = "a", scope: str = "shared",
                         trans: bool = False) -> str:
    """The name of the intrinsic loading a 16x16 ``operand`` ("a" / "b") tile from ``scope``
    (``trans``: B stored as (N, K), loaded as a col_major fragment)."""
    s = _check(dtype, ("float16", "bfloat16"), "get_wmma_load_intrin")
    if operand not in ("a", "b") or scope not in ("shared", "shared.dyn") or (trans and operand != "b"):
        raise ValueError(f"get_wmma_load_intrin: operand must be 'a' or 'b' (trans: 'b' only) and scope 'shared' "
                         f"or 'shared.dyn', got operand={operand!r}, scope={scope!r}, trans={trans}")
    return WMMA[f"load_{operand}{'_trans' if trans else ''}_{s}_{scope.replace('.', '_')}"]


def get_wmma_sync_intrin(in_dtype: str = "float16", out_dtype: str = "float32", trans_b: bool = False) -> str:
    """``C[i, j] += A[i, k] * B[k, j]`` (``trans_b``: ``B[j, k]``) on 16x16x16 fragments."""
    key = f"sync_{_SHORT.get(in_dtype, in_dtype)}{_SHORT.get(in_dtype, in_dtype)}{_SHORT.get(out_dtype, out_dtype)}"
    key += "_trans" if trans_b else ""
    if key not in WMMA:
        raise ValueError(f"get_wmma_sync_intrin: no tensor-core intrinsic for {in_dtype} inputs with {out_dtype} "
                         "accumulators (float16/bfloat16 → float32, float16 → float16)")
    return WMMA[key]


def get_wmma_fill_intrin(dtype: str = "float32") -> str:
    return WMMA[f"fill_{_check(dtype, ('float32', 'float16'), 'get_wmma_fill_intrin')}"]


def get_wmma_store_intrin(dtype: str = "float32", scope: str = "global") -> str:
    s = _check(dtype, ("float32", "float16"), "get_wmma_store_intrin")
    if scope not in ("global", "shared", "shared.dyn"):
        raise ValueError(f"get_wmma_store_intrin: scope must be global, shared or shared.dyn, got {scope!r}")
    return WMMA[f"store_{s}_{scope.replace('.', '_')}"]


def wmma_intrin_names() -> list[str]:
    return sorted(WMMA.values())


_register_all()


def get_wmma_intrin_group(load_scope: str = "shared", store_scope: str = "global", in_dtype: str = "float16",
                          out_dtype: str = "float32", trans_b: bool = False) -> dict[str, str]:
    """TVM's grouping: the intrinsic names for ``init``, ``load_a``, ``load_b``, ``compute``
    and ``store`` of one wmma GEMM configuration."""
    return {
        "init": get_wmma_fill_intrin(out_dtype),
        "load_a": get_wmma_load_intrin(in_dtype, "a", load_scope),
        "load_b": get_wmma_load_intrin(in_dtype, "b", load_scope, trans=trans_b),
        "compute": get_wmma_sync_intrin(in_dtype, out_dtype, trans_b),
        "store": get_wmma_store_intrin(out_dtype, store_scope),
    }


def _tvm_constants() -> dict[str, str]:
    """TVM's module-level names (``WMMA_SYNC_16x16x16_f16f16f32_INTRIN`` ...) for the names above."""
    out = {}
    for key, name in WMMA.items():
        parts = key.split("_")
        kind = parts[0]
        if kind == "sync":
            const_name = f"WMMA_SYNC_16x16x16_{parts[1]}{'_TRANS' if parts[-1] == 'trans' else ''}_INTRIN"
        elif kind == "fill":
            const_name = f"WMMA_FILL_16x16x16_{parts[1].upper()}_INTRIN"
        elif kind == "load":
            trans = parts[2] == "trans"
            dtype, mem = (parts[3], parts[4:]) if trans else (parts[2], parts[3:])
            operand = parts[1].upper() + ("_TRANS" if trans else "")
            const_name = f"WMMA_LOAD_16x16x16_{dtype.upper()}_{operand}{'_DYN' if mem == ['shared', 'dyn'] else ''}_INTRIN"
        else:
            dtype, mem = parts[1], parts[2:]
            where = {"global": "GLOBAL", "shared": "SHARED", "shared_dyn": "SHARED_DYN"}["_".join(mem)]
            const_name = f"WMMA_STORE_16x16x16_{dtype.upper()}_{where}_INTRIN"
        out[const_name] = name
    return out


globals().update(_tvm_constants())
__all__ += ["get_wmma_intrin_group", *_tvm_constants()]
