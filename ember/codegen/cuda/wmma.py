"""Tensor cores in CUDA C: ``wmma.*`` fragment declarations and the wmma intrinsics.

A buffer of scope ``wmma.matrix_a`` / ``wmma.matrix_b`` / ``wmma.accumulator`` (see
``ember.tir.tensor_intrin.cuda``) holds whole fragments: an allocation of ``n`` elements
is an array of ``n / (m*n_*k-shape)`` ``nvcuda::wmma::fragment`` objects, indexed by the
fragment number the intrinsics pass.  The fragment shape and an operand's layout come
from the first intrinsic call on the buffer (``tvm_load_matrix_sync`` /
``tvm_fill_fragment`` ...): ``(m, n, k)`` and ``"row_major"`` / ``"col_major"``.

Intrinsics printed (TVM's builtins):

* ``tvm_fill_fragment(frag, m, n, k, i, v)``              → ``fill_fragment(frag[i], v)``
* ``tvm_load_matrix_sync(frag, m, n, k, i, ptr, ld, lay)`` → ``load_matrix_sync(frag[i], ptr, ld)``
* ``tvm_mma_sync(d, di, a, ai, b, bi, c, ci)``            → ``mma_sync(d[di], a[ai], b[bi], c[ci])``
* ``tvm_store_matrix_sync(frag, m, n, k, i, ptr, ld, lay)`` → ``store_matrix_sync(ptr, frag[i], ld, mem_row_major)``
"""

from __future__ import annotations

from ember.ir import Call, IntImm, Op, StringImm
from ember.tir import post_order_visit

from .split_host_device import GpuCodegenError

__all__ = ["WMMA_CALLS", "is_fragment_scope", "fragment_declaration", "print_wmma_call", "read_by_wmma"]

WMMA_CALLS = ("tvm_fill_fragment", "tvm_load_matrix_sync", "tvm_mma_sync", "tvm_store_matrix_sync")
_NS = "nvcuda::wmma"
_USE = {"wmma.matrix_a": "matrix_a", "wmma.matrix_b": "matrix_b", "wmma.accumulator": "accumulator"}


def is_fragment_scope(scope: str) -> bool:
    return scope in _USE


def _fragment_info(body, var) -> tuple[tuple[int, int, int], str | None]:
    """(m, n, k) and the layout string of the first wmma call on ``var`` inside ``body``."""
    found: list = []

    def visit(node):
        if found or not (isinstance(node, Call) and isinstance(node.op, Op)):
            return
        name = node.op.name.removeprefix("tir.")
        if name in ("tvm_fill_fragment", "tvm_load_matrix_sync", "tvm_store_matrix_sync") and node.args[0] is var:
            shape = tuple(a.value if isinstance(a, IntImm) else None for a in node.args[1:4])
            layout = node.args[7].value if len(node.args) > 7 and isinstance(node.args[7], StringImm) else None
            found.append((shape, layout))

    post_order_visit(body, visit)
    if not found:
        return (16, 16, 16), None
    shape, layout = found[0]
    if None in shape:
        raise GpuCodegenError(f"wmma fragment {var.name!r}: the fragment shape must be constant, got {shape}")
    return shape, layout


def read_by_wmma(body, var) -> bool:
    """Whether a wmma load/store inside ``body`` takes a pointer into ``var`` (which must
    then be 256-bit aligned)."""
    found: list = []

    def visit(node):
        if found or not (isinstance(node, Call) and isinstance(node.op, Op)):
            return
        if node.op.name in ("tir.tvm_load_matrix_sync", "tir.tvm_store_matrix_sync"):
            ptr = node.args[5]
            if isinstance(ptr, Call) and len(ptr.args) > 1 and ptr.args[1] is var:
                found.append(node)

    post_order_visit(body, visit)
    return bool(found)


def fragment_declaration(scope: str, ctype: str, name: str, count: int, var, body) -> str:
    """The C declaration of the fragments an allocation of ``count`` elements holds."""
    (m, n, k), layout = _fragment_info(body, var)
    per = m * n if scope == "wmma.accumulator" else (m * k if scope == "wmma.matrix_a" else k * n)
    if count % per:
        raise GpuCodegenError(f"wmma fragment buffer {name!r} ({scope}) holds {count} elements, not a whole "
                              f"number of {m}x{n}x{k} fragments ({per} elements each)")
    params = [f"{_NS}::{_USE[scope]}", str(m), str(n), str(k), ctype]
    if scope != "wmma.accumulator":
        params.append(f"{_NS}::{'col_major' if layout == 'col_major' else 'row_major'}")
    return f"{_NS}::fragment<{', '.join(params)}> {name}[{count // per}];"


def print_wmma_call(name: str, e: Call, names, scalar) -> str:
    """CUDA C for one wmma intrinsic call ``e`` (``names``: var → C name, ``scalar``: expr → C)."""
    a = e.args

    def frag(buf, index) -> str:
        return f"{names(buf)}[{scalar(index)}]"

    if name == "tvm_fill_fragment":
        return f"{_NS}::fill_fragment({frag(a[0], a[4])}, {scalar(a[5])})"
    if name == "tvm_load_matrix_sync":
        return f"{_NS}::load_matrix_sync({frag(a[0], a[4])}, {scalar(a[5])}, {scalar(a[6])})"
    if name == "tvm_mma_sync":
        return f"{_NS}::mma_sync({frag(a[0], a[1])}, {frag(a[2], a[3])}, {frag(a[4], a[5])}, {frag(a[6], a[7])})"
    layout = a[7].value if isinstance(a[7], StringImm) else "row_major"
    mem = "mem_col_major" if layout == "col_major" else "mem_row_major"
    return f"{_NS}::store_matrix_sync({scalar(a[5])}, {frag(a[0], a[4])}, {scalar(a[6])}, {_NS}::{mem})"
