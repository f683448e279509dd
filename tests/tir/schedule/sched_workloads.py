"""Small PrimFuncs built by hand (no parser needed) that the schedule tests share."""

from __future__ import annotations

from ember.ir import Range, Var, const
from ember.tir import (
    Block, BlockRealize, BufferStore, For, ForKind, IterVar, IterVarType, PrimFunc, decl_buffer,
)
from ember.tir.schedule.analysis import infer_regions

S, R = IterVarType.DataPar, IterVarType.CommReduce


def make_block(name, iters, body_fn, init_fn=None, alloc=()):
    """``iters``: [(kind "S"/"R", extent, binding expr)]; ``body_fn(*vars)`` → Stmt."""
    vs = [Var(f"v{k}") for k in range(len(iters))]
    ivs = tuple(IterVar(Range(0, ext), v, S if kind == "S" else R) for v, (kind, ext, _) in zip(vs, iters))
    body = body_fn(*vs)
    init = init_fn(*vs) if init_fn else None
    block = Block(ivs, (), (), name, body, init, tuple(alloc))
    reads, writes = infer_regions(block)
    block = Block(ivs, reads, writes, name, body, init, tuple(alloc))
    return BlockRealize(tuple(b for _, _, b in iters), const(True), block)


def nest(loops, body):
    """``loops``: [(var, extent)] outermost first."""
    for var, ext in reversed(loops):
        body = For(var, const(0), const(ext), ForKind.SERIAL, body)
    return body


def prim_func(params, body, allocs=()):
    handles = [Var(b.name.lower() + "_h", "handle") for b in params]
    root = Block((), (), (), "root", body, None, tuple(allocs))
    return PrimFunc(tuple(handles), BlockRealize((), const(True), root), None,
                    dict(zip(handles, params)), {"global_symbol": "main"})


def matmul(n=16, m=16, k=16):
    A, B, C = (decl_buffer(s, "float32", nm) for s, nm in (((n, k), "A"), ((k, m), "B"), ((n, m), "C")))
    i, j, kk = Var("i"), Var("j"), Var("k")
    blk = make_block("C", [("S", n, i), ("S", m, j), ("R", k, kk)],
                     lambda vi, vj, vk: BufferStore(C, C[vi, vj] + A[vi, vk] * B[vk, vj], (vi, vj)),
                     lambda vi, vj, vk: BufferStore(C, const(0.0, "float32"), (vi, vj)))
    return prim_func([A, B, C], nest([(i, n), (j, m), (kk, k)], blk))


def elementwise(n=16, m=16):
    """B = A * 2; C = B + 1 (B an intermediate)."""
    A, C = decl_buffer((n, m), "float32", "A"), decl_buffer((n, m), "float32", "C")
    B = decl_buffer((n, m), "float32", "B")
    i, j, i2, j2 = Var("i"), Var("j"), Var("i"), Var("j")
    b1 = make_block("B", [("S", n, i), ("S", m, j)],
                    lambda vi, vj: BufferStore(B, A[vi, vj] * const(2.0, "float32"), (vi, vj)))
    b2 = make_block("C", [("S", n, i2), ("S", m, j2)],
                    lambda vi, vj: BufferStore(C, B[vi, vj] + const(1.0, "float32"), (vi, vj)))
    from ember.tir import SeqStmt

    return prim_func([A, C], SeqStmt((nest([(i, n), (j, m)], b1), nest([(i2, n), (j2, m)], b2))), [B])


def row_sum(n=8, m=32):
    A, B = decl_buffer((n, m), "float32", "A"), decl_buffer((n,), "float32", "B")
    i, k = Var("i"), Var("k")
    blk = make_block("B", [("S", n, i), ("R", m, k)],
                     lambda vi, vk: BufferStore(B, B[vi] + A[vi, vk], (vi,)),
                     lambda vi, vk: BufferStore(B, const(0.0, "float32"), (vi,)))
    return prim_func([A, B], nest([(i, n), (k, m)], blk))


def matmul_relu(n=16, m=16, k=16):
    """C = A @ B (intermediate), D = max(C, 0)."""
    A, B, D = (decl_buffer(s, "float32", nm) for s, nm in (((n, k), "A"), ((k, m), "B"), ((n, m), "D")))
    C = decl_buffer((n, m), "float32", "C")
    i, j, kk, i2, j2 = Var("i"), Var("j"), Var("k"), Var("i"), Var("j")
    b1 = make_block("C", [("S", n, i), ("S", m, j), ("R", k, kk)],
                    lambda vi, vj, vk: BufferStore(C, C[vi, vj] + A[vi, vk] * B[vk, vj], (vi, vj)),
                    lambda vi, vj, vk: BufferStore(C, const(0.0, "float32"), (vi, vj)))
    from ember.tir import SeqStmt, max as tmax

    b2 = make_block("D", [("S", n, i2), ("S", m, j2)],
                    lambda vi, vj: BufferStore(D, tmax(C[vi, vj], const(0.0, "float32")), (vi, vj)))
    body = SeqStmt((nest([(i, n), (j, m), (kk, k)], b1), nest([(i2, n), (j2, m)], b2)))
    return prim_func([A, B, D], body, [C])


def conv2d(n=1, c=2, h=6, w=6, f=2, kh=3, kw=3):
    """NCHW conv2d with a padded input stage: Apad = pad(A, 1); Out = conv(Apad, W)."""
    from ember.tir import SeqStmt, if_then_else, all as tall

    A = decl_buffer((n, c, h, w), "float32", "A")
    W = decl_buffer((f, c, kh, kw), "float32", "W")
    O = decl_buffer((n, f, h, w), "float32", "O")
    P = decl_buffer((n, c, h + 2, w + 2), "float32", "Apad")
    lp = [Var(x) for x in ("n", "c", "h", "w")]
    pad = make_block("Apad", [("S", e, v) for e, v in zip((n, c, h + 2, w + 2), lp)],
                     lambda vn, vc, vh, vw: BufferStore(P, if_then_else(
                         tall(vh >= 1, vh < h + 1, vw >= 1, vw < w + 1),
                         A[vn, vc, vh - 1, vw - 1], const(0.0, "float32")), (vn, vc, vh, vw)))
    lc = [Var(x) for x in ("n", "f", "y", "x", "rc", "ry", "rx")]
    kinds = "SSSSRRR"
    exts = (n, f, h, w, c, kh, kw)
    conv = make_block("O", [(k, e, v) for k, e, v in zip(kinds, exts, lc)],
                      lambda vn, vf, vy, vx, rc, ry, rx: BufferStore(
                          O, O[vn, vf, vy, vx] + P[vn, rc, vy + ry, vx + rx] * W[vf, rc, ry, rx],
                          (vn, vf, vy, vx)),
                      lambda vn, vf, vy, vx, rc, ry, rx: BufferStore(O, const(0.0, "float32"),
                                                                   (vn, vf, vy, vx)))
    body = SeqStmt((nest(list(zip(lp, (n, c, h + 2, w + 2))), pad), nest(list(zip(lc, exts)), conv)))
    return prim_func([A, W, O], body, [P])
