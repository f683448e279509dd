"""Golden tests: the exact TVMScript text printed for canonical functions."""

from ember import tir
from ember.ir import IRModule, Var, const
from ember.script import tir as T

HEADER = "# from ember.script import tir as T\n\n"
MODULE_HEADER = "# from ember.script import ir as I\n# from ember.script import tir as T\n\n"


@T.prim_func
def elementwise_add_one(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] + T.float32(1.0)


def test_elementwise_add_golden():
    assert elementwise_add_one.script() == HEADER + '''@T.prim_func
def elementwise_add_one(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] + T.float32(1.0)'''


@T.prim_func
def matmul_128(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (128, 128))
    B = T.match_buffer(b, (128, 128))
    C = T.match_buffer(c, (128, 128))
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_matmul_with_init_golden():
    # static shapes print in the signature; reads/writes inferred by the parser
    assert matmul_128.script() == HEADER + '''@T.prim_func
def matmul_128(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.block("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]'''


@T.prim_func
def symbolic_copy(a: T.handle, b: T.handle, m: T.int32):
    n = T.int32()
    A = T.match_buffer(a, (n, m))
    B = T.match_buffer(b, (n, m), "float16")
    for i, j in T.grid(n, m):
        B[i, j] = T.Cast("float16", A[i, j])


def test_symbolic_shapes_golden():
    # a buffer whose shape needs a var declared in the body is bound with T.match_buffer
    assert symbolic_copy.script() == HEADER + '''@T.prim_func
def symbolic_copy(a: T.handle, b: T.handle, m: T.int32):
    n = T.int32()
    A = T.match_buffer(a, (n, m))
    B = T.match_buffer(b, (n, m), "float16")
    for i, j in T.grid(n, m):
        B[i, j] = T.Cast("float16", A[i, j])'''


@T.prim_func(private=True)
def every_loop(A: T.Buffer((64,), "float32")):
    for i in T.parallel(4):
        for j in T.vectorized(4):
            for k in T.unroll(4):
                A[i * 16 + j * 4 + k] = T.float32(0)
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(1)
    for i in range(8, 16):
        A[i] = T.float32(2)
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16}):
        A[i] = T.float32(3)


def test_loops_of_every_kind_golden():
    assert every_loop.script() == HEADER + '''@T.prim_func(private=True)
def main(A: T.Buffer((64,), "float32")):
    for i in T.parallel(4):
        for j in T.vectorized(4):
            for k in T.unroll(4):
                A[i * 16 + j * 4 + k] = T.float32(0.0)
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            A[bx * 32 + tx] = T.float32(1.0)
    for i in range(8, 16):
        A[i] = T.float32(2.0)
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16}):
        A[i] = T.float32(3.0)'''


@T.prim_func
def if_else(A: T.Buffer((16,), "int32"), n: T.int32):
    for i in range(16):
        if i < n and not i == 3:
            A[i] = T.max(i, n) // 2
        else:
            if i % 2 == 1:
                A[i] = T.Select(n > 0, 1, -1)
            else:
                A[i] = T.int32(0)


def test_if_else_golden():
    assert if_else.script() == HEADER + '''@T.prim_func
def if_else(A: T.Buffer((16,), "int32"), n: T.int32):
    for i in range(16):
        if i < n and not i == 3:
            A[i] = T.max(i, n) // 2
        else:
            if i % 2 == 1:
                A[i] = T.Select(n > 0, 1, -1)
            else:
                A[i] = 0'''


def test_module_golden():
    mod = IRModule({"main": elementwise_add_one, "copy": symbolic_copy})
    text = mod.script()
    assert text.startswith(MODULE_HEADER + "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main(")
    assert '\n\n    @T.prim_func\n    def copy(a: T.handle, b: T.handle, m: T.int32):\n' in text
    # global_symbol differs from the name in the module, so it is kept
    assert 'T.func_attr({"global_symbol": "elementwise_add_one", "tir.noalias": True})' in text


def test_expression_precedence_and_constants():
    x, y = Var("x"), Var("y")
    assert repr((x + y) * (x - y)) == "(x + y) * (x - y)"
    assert repr(x - (y - 1)) == "x - (y - 1)"
    assert repr(x - y - 1) == "x - y - 1"
    assert repr(x // (y * 2) % 3) == "x // (y * 2) % 3"
    assert repr(tir.Sub(x, tir.Add(y, const(1)))) == "x - (y + 1)"
    assert repr((x < y) == (y < x)) == "(x < y) == (y < x)"
    assert repr(tir.Not(tir.And(x < y, y < 3))) == "not (x < y and y < 3)"
    assert repr(tir.Or(tir.And(x < 1, y < 1), x > 5)) == "x < 1 and y < 1 or x > 5"
    assert repr(tir.And(x < 1, tir.Or(y < 1, x > 5))) == "x < 1 and (y < 1 or x > 5)"
    assert repr(const(5, "int64")) == "T.int64(5)"
    assert repr(const(-3)) == "-3"
    assert repr(x * const(-3)) == "x * -3"
    assert repr(const(True)) == "T.bool(True)"
    assert repr(const(float("inf"))) == 'T.float32("inf")'
    assert repr(tir.Div(x, y)) == "T.Div(x, y)"
    assert repr(tir.Mod(x, y)) == "T.truncmod(x, y)"
    assert repr(tir.Add(const(1), const(2))) == "T.Add(1, 2)"
    f = Var("f", "float32")
    assert repr(f / 2.0) == "f / T.float32(2.0)"
    assert repr(tir.Cast("float32", x)) == 'T.Cast("float32", x)'
    assert repr(tir.Ramp(x, 1, 4)) == "T.Ramp(x, 1, 4)"
    assert repr(tir.Broadcast(f, 4)) == "T.Broadcast(f, 4)"
    assert repr(tir.call_extern("float32", "my_fn", f, 1)) == 'T.call_extern("float32", "my_fn", f, 1)'
    assert repr(tir.exp(f)) == "T.exp(f)"
    assert repr(tir.reinterpret("int32", f)) == 'T.reinterpret("int32", f)'


def test_distinct_vars_with_one_name_are_uniquified():
    i1, i2 = Var("i"), Var("i")
    assert repr(i1 + i2) == "i + i_1"
    bad = Var("threadIdx.x")
    assert repr(bad * 2) == "threadIdx_x * 2"


def test_show_accepts_tvm_options(capsys):
    elementwise_add_one.show(syntax_sugar=True, show_meta=False)
    assert "def elementwise_add_one(" in capsys.readouterr().out


def test_fragments_print_without_header():
    A = tir.decl_buffer((4,), "float32", "A")
    i = Var("i")
    store = tir.BufferStore(A, A[i] * 2.0, (i,))
    loop = tir.For(i, const(0), const(4), tir.ForKind.SERIAL, store)
    assert repr(loop) == "for i in range(4):\n    A[i] = A[i] * T.float32(2.0)"
    assert repr(A) == 'T.Buffer((4,), "float32")'


def test_remap_groups_runs_of_whole_loop_bindings():
    from ember.script import from_source

    text = '''@T.prim_func
def f():
    for i0, i1, i2, i3 in T.grid(8, 8, 8, 8):
        with T.block("b"):
            v0 = T.axis.spatial(8, i0 + 0 * i1)
            v1, v2 = T.axis.remap("SR", [i1, i2])
            v3 = T.axis.spatial(8, i3 - 0 * i0)
            T.evaluate(0)
'''
    printed = from_source(text).script()
    assert 'v0 = T.axis.spatial(8, i0 + 0 * i1)\n' in printed
    assert 'v1, v2 = T.axis.remap("SR", [i1, i2])\n' in printed
    assert "v3 = T.axis.spatial(8, i3 - 0 * i0)\n" in printed


def test_buffer_params_print_as_handles_when_the_handle_or_data_is_shared():
    from ember import tir
    from ember.ir import assert_structural_equal
    from ember.script import from_source

    a, b = tir.Var("a", "handle"), tir.Var("b", "handle")
    A = tir.decl_buffer((8,), "float32", name="A")
    B = tir.decl_buffer((4,), "float32", name="B", data=A.data)
    shared = tir.PrimFunc([a, b], tir.Evaluate(0), buffer_map={a: A, b: B}).with_attr("global_symbol", "f")
    text = shared.script()
    assert "def f(a: T.handle, b: T.handle):\n    A = T.match_buffer(a, (8,))\n" \
           "    B = T.match_buffer(b, (4,), data=A.data)\n" in text
    assert_structural_equal(from_source(text), shared)
    uses_handle = tir.PrimFunc([a], tir.Evaluate(a), buffer_map={a: A}).with_attr("global_symbol", "f")
    assert "def f(a: T.handle):\n    A = T.match_buffer(a, (8,))\n    T.evaluate(a)" in uses_handle.script()


def test_sibling_scopes_reuse_names():
    from ember.ir import assert_structural_equal
    from ember.script import from_source

    text = every_loop.script()
    assert "i_1" not in text  # the first loop's scope ended, so `i` is free again
    assert_structural_equal(from_source(text), every_loop)
