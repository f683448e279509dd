"""TVMScript spellings TVM accepts: T.thread_binding(n, "threadIdx.x"), dtype= keywords."""

from ember import tir
from ember.script import tir as T


def test_thread_binding_thread_as_second_positional():
    @T.prim_func
    def f(A: T.Buffer((128,), "float32")):
        for x in T.thread_binding(128, "threadIdx.x"):
            with T.block("A"):
                vx = T.axis.spatial(128, x)
                A[vx] = T.float32(0)

    loop = f.body.block.body
    assert loop.kind == tir.ForKind.THREAD_BINDING and int(loop.extent) == 128
    assert loop.thread_binding.thread_tag == "threadIdx.x"


def test_dtype_keyword_after_arguments():
    v = tir.Var("a", "handle")
    a = T.call_extern("f", v, dtype="int32")
    b = T.call_extern("int32", "f", v)
    assert a.dtype == b.dtype == "int32" and a.args[0].value == b.args[0].value == "f"
    assert T.reinterpret(T.float32(1), dtype="int32").dtype == "int32"
    assert T.call_pure_extern("g", dtype="float32").dtype == "float32"


def test_target_attribute_round_trips():
    from ember.ir import assert_structural_equal
    from ember.script import from_source

    @T.prim_func
    def f():
        T.func_attr({"target": T.target("cuda", host="llvm")})
        T.evaluate(0)

    assert str(f.attrs["target"]) == "cuda" and str(f.attrs["target"].host) == "llvm"
    text = f.script()
    assert 'T.target("cuda", host="llvm")' in text
    g = from_source(text)
    assert str(g.attrs["target"]) == "cuda"
    assert_structural_equal(f.body, g.body)


def test_grid_bound_to_one_name():
    @T.prim_func
    def f(A: T.Buffer((2, 3), "float32")):
        for idx in T.grid(2, 3):
            A[idx[0], idx[1]] = T.float32(0)

    outer = f.body
    assert [outer.loop_var.name, outer.body.loop_var.name] == ["idx_0", "idx_1"]
    assert f.body.body.body.indices == (outer.loop_var, outer.body.loop_var)


def test_let_stmt_with_given_var_and_launch_thread_without_as():
    i = tir.Var("i", "int32")

    @T.prim_func(check_well_formed=False)
    def f(A: T.Buffer((256,), "float32")):
        tx = T.env_thread("threadIdx.x")
        with T.launch_thread(tx, 256):
            A[tx] = T.float32(1)
        with T.LetStmt(42, var=i):
            T.evaluate(i)

    launch, let = f.body.seq
    assert launch.attr_key == "thread_extent" and launch.node.thread_tag == "threadIdx.x"
    assert let.var is i and int(let.value) == 42


def test_lower_case_vector_words_and_assume():
    x = tir.Var("x", "int32")
    assert isinstance(T.ramp(0, 1, 4), tir.Ramp) and T.broadcast(T.float32(1), 4).dtype == "float32x4"
    assume = T.assume(x > 0)
    assert assume.op.name == "tir.assume" and assume.dtype == "bool"
