"""print → parse → structural equality, for scripts, hand-built IR, te and schedules."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import te, tir
from ember.ir import IRModule, PointerType, Var, assert_structural_equal, const
from ember.script import ir as I
from ember.script import tir as T



@T.prim_func
def matmul_init(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
                C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func
def blocks_and_buffers(a: T.handle, B: T.Buffer((64, 64), "float32")):
    A = T.match_buffer(a, (64, 64), "float32", strides=(64, 1), offset_factor=4)
    X = T.alloc_buffer((64,), "float32", scope="shared")
    for i in T.serial(0, 64):
        with T.block("outer"):
            vi = T.axis.spatial(64, i)
            T.where(i < 60)
            T.block_attr({"k": "v", "n": T.int32(3)})
            Y = T.alloc_buffer((64,), "float32")
            for j in range(64):
                with T.block("inner"):
                    vj = T.axis.opaque((0, 64), j)
                    sub = T.match_buffer(A[vi, 0:64], (64,))
                    Y[vj] = sub[vj] + X[vj]
            for j in range(64):
                with T.block("scan"):
                    vj = T.axis.scan(64, j)
                    B[vi, vj] = Y[vj]
    for i in range(64):
        with T.block(""):
            T.reads()
            T.writes(B[i, 0:64])
            for j in range(4):
                B[i, T.Ramp(j * 16, 1, 16)] = T.Broadcast(T.float32(0), 16)


@T.prim_func
def statements(A: T.Buffer((16,), "float32"), n: T.int32, B: T.Buffer((16,), "int64")):
    x: T.int32 = n * 2
    with T.LetStmt(x + 1) as y:
        A[y] = T.Cast("float32", y)
    buf = T.allocate([16], "float32", "local")
    C = T.decl_buffer((16,), "float32", data=buf)
    C[0] = T.float32(1)
    assert n > 0, "n must be positive"
    T.evaluate(T.call_extern("int32", "foo", n, A[0]))
    while n < 10:
        B[0] = T.int64(1) + B[1] // T.int64(2) % T.int64(3)
    A[1] = T.if_then_else(n == 0, T.float32(1), T.float32(2)) / T.float32(3)
    with T.attr(buf, "storage_alignment", 64):
        A[2] = T.sqrt(T.float32(4)) + T.log(A[3]) - T.tanh(A[4])


@T.prim_func
def int64_loops(A: T.Buffer((T.int64(8), T.int64(4)), "float32")):
    for i, j in T.grid(T.int64(8), T.int64(4)):
        with T.block("blk"):
            vi, vj = T.axis.remap("SS", [i, j])
            A[vi, vj] = T.float32(0)


@T.prim_func
def lowered_like(A: T.Buffer((16,), "float32")):
    A_flat = T.Buffer((16,), "float32", data=A.data)
    for i in range(4):
        A_flat[T.Ramp(i * 4, 1, 4)] = T.Broadcast(T.float32(1), 4) + A_flat[T.Ramp(i * 4, 1, 4)]


SCRIPTS = [matmul_init, blocks_and_buffers, statements, int64_loops, lowered_like]


@pytest.mark.parametrize("func", SCRIPTS, ids=lambda f: f.attrs.get("global_symbol", "f"))
def test_script_roundtrip(func, check_roundtrip):
    check_roundtrip(func)


def test_module_roundtrip_with_calls(check_roundtrip):
    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def helper(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = A[i] * T.float32(2)

        @T.prim_func
        def main(A: T.Buffer((4,), "float32")):
            T.evaluate(cls.helper(A.data))  # noqa: F821 - the module itself

    assert isinstance(Mod, IRModule)
    assert "global_symbol" not in Mod["helper"].attrs
    assert Mod["main"].attrs["global_symbol"] == "main"
    check_roundtrip(Mod)


def _hand_built():
    n = Var("n")
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    a, b = Var("a", "handle"), Var("b", "handle")  # parameters are handles distinct from A.data
    i = Var("i")
    body = tir.For(i, const(0), n, tir.ForKind.SERIAL, tir.BufferStore(B, A[i] + 1.0, (i,)))
    yield tir.PrimFunc((a, b), body, buffer_map={a: A, b: B})
    # a function with attributes in a non-leading order keeps global_symbol visible
    yield tir.PrimFunc((a, b), body, buffer_map={a: A, b: B},
                       attrs={"tir.noalias": True, "global_symbol": "f"})
    # handle parameter with a pointer type, a scalar float parameter, a return type
    p = Var("p", "handle", PointerType(ember.DataType("float16"), "shared"))
    f = Var("f", "float32")
    yield tir.PrimFunc((p, f), tir.Evaluate(tir.ret(f * 2.0)), ret_type=ember.DataType("float32"))
    # Let expressions, vectors, selects, nested seq of scoped statements
    x = Var("x")
    let_body = tir.BufferStore(A, tir.Cast("float32", tir.Let(x, i * 2, x + x)), (i,))
    alloc_var = Var("tmp", "handle", PointerType(ember.DataType("float32"), "local"))
    alloc = tir.Allocate(alloc_var, ember.DataType("float32"), (const(4),), const(True),
                         tir.Evaluate(const(0)))
    seq = tir.SeqStmt((alloc, tir.LetStmt(x, n, tir.Evaluate(x)), let_body))
    yield tir.PrimFunc((a, n), tir.For(i, const(0), n, tir.ForKind.SERIAL, seq),
                       buffer_map={a: A})
    # a thread-extent attribute over an IterVar
    tx = Var("threadIdx.x")
    iv = tir.IterVar(ember.Range(0, 32), tx, tir.IterVarType.ThreadIndex, "threadIdx.x")
    attr = tir.AttrStmt(iv, "thread_extent", const(32), tir.BufferStore(A, const(0.0), (tx,)))
    yield tir.PrimFunc((a,), attr, buffer_map={a: A})


@pytest.mark.parametrize("func", list(_hand_built()))
def test_hand_built_roundtrip(func, check_roundtrip):
    check_roundtrip(func)


def test_te_create_prim_func_roundtrip(check_roundtrip):
    n = te.var("n")
    A = te.placeholder((n, 64), name="A")
    B = te.placeholder((64, 32), name="B")
    k = te.reduce_axis((0, 64), name="k")
    C = te.compute((n, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((n, 32), lambda i, j: te.exp(C[i, j]), name="D")
    check_roundtrip(te.create_prim_func([A, B, D]))
    X = te.placeholder((128,), name="X", dtype="int64")
    Y = te.compute((128,), lambda i: X[i] // 2 + X[(i + 1) % 128], name="Y")
    check_roundtrip(te.create_prim_func([X, Y]))


def test_schedule_output_roundtrip(check_roundtrip):
    sch = tir.Schedule(matmul_init)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    io, ii = sch.split(i, factors=[None, 16])
    jo, ji = sch.split(j, factors=[None, 4])
    sch.reorder(io, jo, ii, k, ji)
    sch.vectorize(ji)
    sch.parallel(io)
    check_roundtrip(sch.mod)
    sch = tir.Schedule(matmul_init)
    i, j, k = sch.get_loops(sch.get_block("C"))
    bx, tx = sch.split(sch.fuse(i, j), factors=[None, 64])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    check_roundtrip(sch.mod)


# -- property test: random expressions survive print → parse ------------------------------
_VARS = [Var("x"), Var("y"), Var("z")]


def _exprs():
    leaves = st.one_of(
        st.sampled_from(_VARS),
        st.integers(-5, 50).map(const),
    )

    def extend(children):
        binary = st.sampled_from([
            tir.Add, tir.Sub, tir.Mul, tir.FloorDiv, tir.FloorMod, tir.Min, tir.Max, tir.Div,
            tir.Mod,
        ])
        cmp = st.sampled_from([tir.LT, tir.LE, tir.GT, tir.GE, tir.EQ, tir.NE])
        return st.one_of(
            st.builds(lambda c, a, b: c(a, b), binary, children, children),
            st.builds(lambda c, a, b, t, f: tir.Select(c(a, b), t, f), cmp, children, children,
                      children, children),
            st.builds(lambda c, a, b, d, e: tir.Select(tir.Or(c(a, b), tir.Not(c(d, e))), a, e),
                      cmp, children, children, children, children),
        )

    return st.recursive(leaves, extend, max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(_exprs())
def test_random_expressions_roundtrip(expr):
    A = tir.decl_buffer((1,), "int32", "A")
    a = Var("a", "handle")
    func = tir.PrimFunc((a, *_VARS), tir.BufferStore(A, expr, (const(0),)),
                        buffer_map={a: A}, attrs={"global_symbol": "main"})
    parsed = ember.script.from_source(func.script())
    assert_structural_equal(func, parsed)


def test_lowered_and_packed_functions_roundtrip(check_roundtrip):
    from ember.codegen import packed_api
    from ember.tir import transform

    n = te.var("n")
    A = te.placeholder((n, 64), name="A")
    k = te.reduce_axis((0, 64), name="k")
    C = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="C")
    D = te.compute((n,), lambda i: te.exp(C[i]) + 1.0, name="D")
    lowered = transform.lower_for_codegen(IRModule({"main": te.create_prim_func([A, D])}),
                                          ember.Target("llvm"))
    text = check_roundtrip(lowered).script()
    assert 'C = T.allocate([n], "float32", "global")\n        C_1 = T.Buffer((n,), data=C)' in text
    packed = packed_api.make_packed_api(lowered["main"], "main")
    # Python objects in attributes print as their repr; parsing them needs their names
    parsed = ember.script.from_source(packed.script(), {"ParamInfo": packed_api.ParamInfo})
    assert_structural_equal(packed, parsed)
