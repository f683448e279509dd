"""Property test: random statement trees (loops of every kind, ifs, lets, sequences,
allocations, asserts, blocks) print and parse back to structurally equal functions."""

from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import tir
from ember.ir import PointerType, Var, assert_structural_equal, const

A = tir.decl_buffer((64,), "float32", "A")
B = tir.decl_buffer((8, 8), "int32", "B")
N = Var("n")
KINDS = [tir.ForKind.SERIAL, tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED, tir.ForKind.UNROLLED,
         tir.ForKind.THREAD_BINDING]


@st.composite
def index(draw, env):
    base = draw(st.sampled_from(env + [const(0), const(3), N]))
    op = draw(st.sampled_from(["id", "mod", "floordiv", "add", "mul"]))
    if op == "mod":
        return base % 8
    if op == "floordiv":
        return base // 2 % 8
    if op == "add":
        return (base + draw(st.integers(0, 5))) % 8
    if op == "mul":
        return base * 2 % 8
    return base


@st.composite
def stmt(draw, env, depth):
    choices = ["store_a", "store_b"] + (["for", "if", "let", "seq", "alloc", "assert", "block"]
                                         if depth < 3 else [])
    kind = draw(st.sampled_from(choices))
    if kind == "store_a":
        i = draw(index(env))
        value = A[i] * 2.0 + draw(index(env)).astype("float32")
        return tir.BufferStore(A, value, (i,))
    if kind == "store_b":
        i, j = draw(index(env)), draw(index(env))
        return tir.BufferStore(B, tir.Max(B[i, j], i - j), (i, j))
    if kind == "for":
        v = Var(draw(st.sampled_from(["i", "j", "k"])))
        loop_kind = draw(st.sampled_from(KINDS))
        extent = draw(st.sampled_from([const(4), N]))
        lo = draw(st.sampled_from([const(0), const(2)]))
        binding = None
        if loop_kind == tir.ForKind.THREAD_BINDING:
            binding = tir.IterVar(ember.Range(lo, extent), Var("threadIdx.x"),
                                  tir.IterVarType.ThreadIndex, "threadIdx.x")
        body = draw(stmt(env + [v], depth + 1))
        ann = draw(st.sampled_from([{}, {"pragma_unroll": 1}]))
        return tir.For(v, lo, extent, loop_kind, body, binding, ann)
    if kind == "if":
        cond = draw(index(env)) < draw(index(env))
        other = draw(st.one_of(st.none(), stmt(env, depth + 1)))
        return tir.IfThenElse(cond, draw(stmt(env, depth + 1)), other)
    if kind == "let":
        v = Var("x")
        return tir.LetStmt(v, draw(index(env)) + 1, draw(stmt(env + [v], depth + 1)))
    if kind == "seq":
        parts = draw(st.lists(stmt(env, depth + 1), min_size=2, max_size=3))
        return tir.seq(*parts)
    if kind == "alloc":
        data = Var("buf", "handle", PointerType(ember.DataType("float32"), "local"))
        local = tir.decl_buffer((4,), "float32", "L", data=data)
        inner = tir.seq(tir.BufferStore(local, const(1.0), (const(0),)), draw(stmt(env, depth + 1)))
        return tir.Allocate(data, ember.DataType("float32"), (const(4),), const(True),
                            tir.DeclBuffer(local, inner))
    if kind == "assert":
        return tir.AssertStmt(N > 0, tir.StringImm("n > 0"), draw(stmt(env, depth + 1)))
    # a block over one loop, its regions inferred like the parser would
    v, vi = Var("i"), Var("vi")
    store = tir.BufferStore(A, A[vi] + 1.0, (vi,))
    block = tir.Block((tir.IterVar(ember.Range(0, 64), vi, tir.IterVarType.DataPar),),
                      (tir.BufferRegion(A, (ember.Range(vi, 1),)),),
                      (tir.BufferRegion(A, (ember.Range(vi, 1),)),), "blk", store)
    return tir.For(v, const(0), const(64), tir.ForKind.SERIAL,
                   tir.BlockRealize((v,), const(True), block))


@settings(max_examples=60, deadline=None)
@given(stmt([], 0))
def test_random_statement_trees_roundtrip(body):
    a, b = Var("a", "handle"), Var("b", "handle")
    if tir.collect(body, lambda n: isinstance(n, tir.Block)):  # the parser adds a root, like TVM
        body = tir.BlockRealize((), const(True), tir.Block((), (), (), "root", body))
    func = tir.PrimFunc((a, b, N), body, buffer_map={a: A, b: B},
                        attrs={"global_symbol": "main"})
    text = func.script()
    parsed = ember.script.from_source(text)
    assert_structural_equal(func, parsed)
    assert parsed.script() == text
