"""The parser, construct by construct; numerics of parsed functions via the TIR interpreter."""

import numpy as np

import ember
from ember import tir
from ember.ir import IRModule, assert_structural_equal
from ember.script import ir as I
from ember.script import tir as T
from ember.tir import interpreter

N = 16
DTYPE = "float32"


def _loops(func):
    found = []
    tir.pre_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return found


def _blocks(func):
    return [n for n in tir.collect(func.body, lambda n: isinstance(n, tir.Block))
            if n.name_hint != "root"]


def test_closure_constants_and_subscript_buffer_annotation():
    @T.prim_func
    def scale(A: T.Buffer[(N, N), DTYPE], B: T.Buffer((N, N), DTYPE)):
        for i, j in T.grid(N, N):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)

    a_buf = scale.buffer_map[scale.params[0]]
    assert [int(s) for s in a_buf.shape] == [16, 16] and str(a_buf.dtype) == "float32"
    assert a_buf.name == "A"
    a = np.random.rand(N, N).astype("float32")
    b = np.zeros_like(a)
    interpreter.run(scale, a, b)
    np.testing.assert_allclose(b, a * 2, rtol=1e-6)


def test_matmul_numerics_and_inferred_regions():
    @T.prim_func
    def matmul(a: T.handle, b: T.handle, c: T.handle):
        A = T.match_buffer(a, (N, 8))
        B = T.match_buffer(b, (8, N))
        C = T.match_buffer(c, (N, N))
        for i, j, k in T.grid(N, N, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] += A[vi, vk] * B[vk, vj]

    (block,) = _blocks(matmul)
    assert [str(iv.iter_type.name) for iv in block.iter_vars] == ["DataPar", "DataPar", "CommReduce"]
    assert [r.buffer.name for r in block.reads] == ["A", "B"]  # the init writes C: an output only
    assert [r.buffer.name for r in block.writes] == ["C"]
    assert block.init is not None
    a, b = np.random.rand(N, 8).astype("float32"), np.random.rand(8, N).astype("float32")
    c = np.zeros((N, N), "float32")
    interpreter.run(matmul, a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_loop_kinds_and_thread_binding():
    @T.prim_func
    def loops(A: T.Buffer((64,), "float32")):
        for i in T.parallel(2):
            for j in T.vectorized(4):
                for k in T.unroll(2, 4):
                    A[i * 32 + j * 4 + k] = T.float32(1)
        for bx in T.thread_binding(0, 64, thread="blockIdx.x"):
            A[bx] = T.float32(2)
        for i in T.serial(3, annotations={"key": "value"}):
            A[i] = T.float32(3)

    kinds = [(lp.kind, int(lp.min), int(lp.extent)) for lp in _loops(loops)]
    assert kinds == [
        (tir.ForKind.PARALLEL, 0, 2), (tir.ForKind.VECTORIZED, 0, 4), (tir.ForKind.UNROLLED, 2, 2),
        (tir.ForKind.THREAD_BINDING, 0, 64), (tir.ForKind.SERIAL, 0, 3),
    ]
    bound = _loops(loops)[3]
    assert bound.thread_binding.thread_tag == "blockIdx.x"
    assert bound.thread_binding.iter_type == tir.IterVarType.ThreadIndex
    assert _loops(loops)[4].annotations == {"key": "value"}
    # no blocks, no top-level allocations: no root block
    assert not isinstance(loops.body, tir.BlockRealize)


def test_axis_forms_where_attr_and_alloc():
    @T.prim_func
    def f(A: T.Buffer((10, 8), "float32"), B: T.Buffer((10,), "float32")):
        S = T.alloc_buffer((10,), "float32", scope="local")
        for i in range(12):
            for k in range(8):
                with T.block("sum"):
                    vi = T.axis.spatial(10, i)
                    vk = T.axis.reduce((0, 8), k)
                    T.where(i < 10)
                    T.block_attr({"unroll": True})
                    T.reads(A[vi, vk])
                    T.writes(S[vi])
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + A[vi, vk]
        for i in range(10):
            with T.block("copy"):
                vi = T.axis.S(10, i)
                B[vi] = S[vi]

    root = f.body.block
    assert root.name_hint == "root" and [b.name for b in root.alloc_buffers] == ["S"]
    assert root.alloc_buffers[0].scope() == "local"
    realize = tir.collect(f.body, lambda n: isinstance(n, tir.BlockRealize) and n.block.name_hint == "sum")[0]
    assert repr(realize.predicate) == "i < 10"
    assert realize.block.annotations == {"unroll": True}
    a = np.random.rand(10, 8).astype("float32")
    b = np.zeros(10, "float32")
    interpreter.run(f, a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


def test_typed_constants_and_intrinsics():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int64"), C: T.Buffer((4,), "bool")):
        for i in range(4):
            A[i] = T.max(T.exp(A[i]), T.sqrt(T.float32(4))) + T.log(T.float32(1))
            B[i] = T.int64(7) + T.Cast("int64", i)
            C[i] = T.bool(True)
            A[i] = T.if_then_else(i < 2, A[i], T.Select(i == 3, T.float32(-1), T.min(A[i], T.float32(0))))

    a = np.array([0.0, 1.0, -3.0, 2.0], "float32")
    b = np.zeros(4, "int64")
    c = np.zeros(4, "bool")
    interpreter.run(f, a, b, c)
    ref = np.maximum(np.exp([0.0, 1.0, -3.0, 2.0]), 2.0)
    ref = np.where(np.arange(4) < 2, ref, np.where(np.arange(4) == 3, -1.0, np.minimum(ref, 0)))
    np.testing.assert_allclose(a, ref, rtol=1e-5)
    assert b.tolist() == [7, 8, 9, 10] and c.all()


def test_vector_constants_ramp_broadcast():
    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        A[T.Ramp(0, 1, 4)] = T.float32x4(1.5)
        A[T.Ramp(4, 1, 4)] = T.Broadcast(T.float32(2), 4)

    store = f.body.seq[0]
    assert isinstance(store.value, tir.Broadcast) and str(store.value.dtype) == "float32x4"
    a = np.zeros(8, "float32")
    interpreter.run(f, a)
    assert a.tolist() == [1.5] * 4 + [2.0] * 4


def test_scalar_params_symbolic_vars_and_python_if():
    use_fast = False

    @T.prim_func
    def f(a: T.handle, m: T.int32):
        n = T.int32()
        A = T.match_buffer(a, (n,), "int32")
        for i in range(n):
            if use_fast:
                A[i] = 0
            else:
                A[i] = i * m

    n_var = f.buffer_map[f.params[0]].shape[0]
    assert isinstance(n_var, tir.Var) and n_var.name == "n"
    assert [p.name for p in f.params] == ["a", "m"] and str(f.params[1].dtype) == "int32"
    assert not tir.collect(f.body, lambda x: isinstance(x, tir.IfThenElse))  # resolved statically
    a = np.zeros(5, "int32")
    interpreter.run(f, a, 3)
    assert a.tolist() == [0, 3, 6, 9, 12]


def test_shape_var_declared_in_body_used_in_signature():
    # Python would evaluate this annotation too early, so it comes as text
    f = ember.script.from_source('''
@T.prim_func
def f(A: T.Buffer((n,), "float32")):
    n = T.var("int32")
    for i in range(n):
        A[i] = T.float32(0)
''')

    assert f.buffer_map[f.params[0]].shape[0] is _loops(f)[0].extent


def test_let_assert_allocate_decl_buffer_evaluate_while():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), n: T.int32):
        x: T.int32 = n + 1
        with T.LetStmt(x * 2) as y:
            A[0] = T.Cast("float32", y)
        assert n >= 0, "negative"
        with T.allocate([4], "float32", "global") as buf:
            tmp = T.decl_buffer((4,), "float32", data=buf)
            tmp[0] = T.float32(5)
            A[1] = tmp[0]
        T.evaluate(T.call_extern("int32", "noop"))
        i = T.allocate([1], "int32", "local")
        I_buf = T.decl_buffer((1,), "int32", data=i, scope="local")
        I_buf[0] = 0
        while I_buf[0] < 3:
            I_buf[0] = I_buf[0] + 1
        A[2] = T.Cast("float32", I_buf[0])

    let = f.body
    assert isinstance(let, tir.LetStmt) and let.var.name == "x"
    kinds = {type(n).__name__ for n in tir.collect(f.body, lambda n: isinstance(n, tir.Stmt))}
    assert {"LetStmt", "AssertStmt", "Allocate", "DeclBuffer", "Evaluate", "While"} <= kinds
    interpreter.register_extern("noop", lambda: 0) if hasattr(interpreter, "register_extern") else None
    a = np.zeros(4, "float32")
    interpreter.run(f, a, 2)
    assert a.tolist()[:3] == [6.0, 5.0, 3.0]


def test_private_and_unchecked_functions():
    @T.prim_func(private=True)
    def f(A: T.Buffer((1,), "float32")):
        A[0] = T.float32(1)

    assert "global_symbol" not in f.attrs

    @T.prim_func(check_well_formed=False)
    def g(A: T.Buffer((1,), "float32")):
        A[0] = T.float32(1)

    assert g.attrs == {"global_symbol": "g"}


def test_ir_module_entry_points():
    @I.ir_module
    class Mod:
        I.module_attrs({"target": "llvm"})

        @T.prim_func
        def add(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = A[i] + T.float32(1)

        @T.prim_func
        def main(A: T.Buffer((4,), "float32")):
            T.evaluate(cls.add(A.data))  # noqa: F821 - the module itself

    assert isinstance(Mod, IRModule) and Mod.attrs == {"target": "llvm"}
    assert [gv.name_hint for gv in Mod.get_global_vars()] == ["add", "main"]
    call = Mod["main"].body.value
    assert call.op.name_hint == "add"

    @ember.script.ir_module
    class Same:
        I.module_attrs({"target": "llvm"})

        @ember.script.tir.prim_func
        def add(A: T.Buffer((4,), "float32")):
            for i in range(4):
                A[i] = A[i] + T.float32(1)

        @T.prim_func
        def main(A: T.Buffer((4,), "float32")):
            T.evaluate(Same.add(A.data))

    assert_structural_equal(Mod, Same)


def test_from_source_with_imports_and_namespace():
    text = '''
from ember.script import tir as T

@T.prim_func
def f(A: T.Buffer((K,), "float32")):
    for i in range(K):
        A[i] = T.float32(0)
'''
    f = ember.script.from_source(text, {"K": 8})
    assert int(f.buffer_map[f.params[0]].shape[0]) == 8


def test_a_lone_block_without_iterators_is_the_root_block():
    # as TVM's parser: a body that is one block without iterators is the root block itself
    # (no root is added around it), and a root block reads and writes nothing
    @T.prim_func
    def with_block(A: T.Buffer((4,), "float32")):
        with T.block("only"):
            A[0] = T.float32(1)

    root = with_block.body.block
    assert root.name_hint == "only" and root.reads == () and root.writes == ()
    assert isinstance(root.body, tir.BufferStore)

    @T.prim_func
    def two_blocks(A: T.Buffer((4,), "float32")):
        with T.block("first"):
            A[0] = T.float32(1)
        with T.block("second"):
            A[1] = T.float32(2)

    assert two_blocks.body.block.name_hint == "root"
    first = two_blocks.body.block.body.seq[0].block
    assert [r.buffer.name for r in first.writes] == ["A"]


def test_bool_logic_and_chained_comparison():
    @T.prim_func
    def f(A: T.Buffer((8,), "int32")):
        for i in range(8):
            if 1 <= i < 5 and not i == 3 or i == 7:
                A[i] = 1
            else:
                A[i] = 0

    a = np.zeros(8, "int32")
    interpreter.run(f, a)
    assert a.tolist() == [0, 1, 1, 0, 1, 0, 0, 1]


def test_launch_thread_and_sblock_alias():
    @T.prim_func
    def f(A: T.Buffer((64,), "float32")):
        bx = T.launch_thread("blockIdx.x", 2)
        with T.launch_thread("threadIdx.x", 32) as tx:
            with T.sblock("b"):
                A[bx * 32 + tx] = T.float32(1)

    outer = f.body.block.body
    assert isinstance(outer, tir.AttrStmt) and outer.attr_key == "thread_extent"
    assert outer.node.thread_tag == "blockIdx.x" and int(outer.value) == 2
    assert outer.body.node.thread_tag == "threadIdx.x"
    text = f.script()
    assert 'bx = T.launch_thread("blockIdx.x", 2)\n    tx = T.launch_thread("threadIdx.x", 32)' in text
    assert_structural_equal(f, ember.script.from_source(text))


def test_buffer_with_scalar_param_shape_prints_as_handle():
    @T.prim_func
    def f(n: T.int32, a: T.handle):
        A = T.match_buffer(a, (n,))
        for i in range(n):
            A[i] = T.float32(0)

    # a signature annotation may not use an earlier parameter (Python evaluates it too early)
    assert "def f(n: T.int32, a: T.handle):\n    A = T.match_buffer(a, (n,))" in f.script()


def test_meta_var_and_call_of_a_global_var_outside_a_module():
    scale = 3

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        k = T.meta_var(scale * 2)
        A[0] = T.float32(k)
        T.evaluate(I.GlobalVar("other")(A.data))

    assert float(f.body.seq[0].value.value) == 6.0
    text = f.script()
    assert 'T.evaluate(I.GlobalVar("other")(A.data))' in text
    assert_structural_equal(f, ember.script.from_source(text))


def test_with_forms_of_scoped_statements(check_roundtrip):
    @T.prim_func
    def f(A: T.Buffer((8,), "float32"), n: T.int32):
        with T.allocate([8], "float32", "global") as data:
            with T.decl_buffer((8,), "float32", data=data) as X:
                X[0] = T.float32(1)
            A[0] = T.float32(2)
        with T.Assert(n > 0, "positive"):
            A[1] = T.float32(3)
        with T.attr(A.data, "pragma_x", 1):
            A[2] = T.float32(4)
        A[3] = T.float32(5)

    first = f.body.seq[0]
    assert isinstance(first, tir.Allocate) and isinstance(first.body.seq[0], tir.DeclBuffer)
    assert isinstance(f.body.seq[1], tir.AssertStmt) and f.body.seq[1].message.value == "positive"
    assert isinstance(f.body.seq[2], tir.AttrStmt) and f.body.seq[2].attr_key == "pragma_x"
    text = f.script()
    assert "with T.decl_buffer((8,), data=data) as X:" in text
    assert 'with T.Assert(n > 0, "positive"):' in text
    assert 'with T.attr(A.data, "pragma_x", 1):' in text
    check_roundtrip(f)


def test_signature_may_use_an_earlier_scalar_parameter_in_text():
    f = ember.script.from_source('''
@T.prim_func
def f(n: T.int32, A: T.Buffer((n,), "float32")):
    for i in range(n):
        A[i] = T.float32(0)
''')
    assert f.buffer_map[f.params[1]].shape[0] is f.params[0]
    # printed back in the handle style, which a decorated Python function can also hold
    assert "def f(n: T.int32, var_A: T.handle):\n    A = T.match_buffer(var_A, (n,))" in f.script()


def test_fragment_reprs():
    A = tir.decl_buffer((8,), "float32", "A")
    sub = tir.decl_buffer((4,), "float32", "sub")
    region = tir.BufferRegion(A, (ember.Range(2, 4),))
    assert repr(region) == "A[2:6]"
    assert repr(tir.MatchBufferRegion(sub, region)) == "sub = T.match_buffer(A[2:6], (4,))"
    assert repr(ember.Range(0, 8)) == "I.Range(0, 8)"  # an ir object on its own, as TVM prints it


def test_string_arguments_of_calls(check_roundtrip):
    @T.prim_func
    def f(A: T.Buffer((1,), "int32")):
        T.evaluate(T.call_extern("int32", "printf", "value %d\n", A[0]))
        T.evaluate(T.call_intrin("int32", "tir.call_pure_extern", "abs", A[0]))

    call = f.body.seq[0].value
    assert isinstance(call.args[1], tir.StringImm) and call.args[1].value == "value %d\n"
    check_roundtrip(f)
