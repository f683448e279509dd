"""The commented import lines at the top of printed TVMScript.

They name the package the user imported ember as: ``tvm`` when ``import tvm`` resolves to
ember (TVM code run through an alias), ``ember`` otherwise. A PrimFunc needs only ``T``.
"""

import sys

import ember
from ember import tir
from ember.ir import IRModule


def _func():
    a = tir.Var("a", "handle")
    buf = tir.decl_buffer((4,), "float32", name="A")
    return tir.PrimFunc([a], tir.Evaluate(0), buffer_map={a: buf}).with_attr("global_symbol", "main")


def test_header_names_ember_without_alias(monkeypatch):
    monkeypatch.delitem(sys.modules, "tvm", raising=False)
    text = _func().script()
    assert text.startswith("# from ember.script import tir as T\n\n@T.prim_func\n")
    assert "import ir as I" not in text


def test_header_names_tvm_when_tvm_is_ember(monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", ember)
    text = IRModule({"main": _func()}).script()
    assert text.startswith("# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n")


def test_header_ignores_an_unrelated_tvm_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "tvm", type(sys)("tvm"))
    assert _func().script().startswith("# from ember.script import tir as T\n")


def test_fragment_with_verbose_expr_declares_free_names_on_top():
    from ember.script.ir_builder import IRBuilder
    from ember.script.ir_builder import tir as T

    n = tir.Var("n", "int32")
    buf = tir.decl_buffer((8,), "float32", name="A")
    with IRBuilder() as ib:
        with T.LetStmt(n + 1) as v:
            ib.name("v", v)
            T.buffer_store(buf, T.float32(0), [v])
    stmt = ib.get()
    assert stmt.script(verbose_expr=True) == (
        "n = T.int32()\nA = T.Buffer((8,))\nwith T.LetStmt(n + 1) as v:\n    A[v] = T.float32(0.0)")
    assert stmt.script() == "with T.LetStmt(n + 1) as v:\n    A[v] = T.float32(0.0)"


def test_size_var_and_unbound_block_axes_print_as_tvm():
    from ember.ir.expr import SizeVar
    from ember.script import tir as T

    assert SizeVar("m", "int32").script(verbose_expr=True) == "m = T.int32(is_size_var=True)\nm"
    assert isinstance(T.int32(is_size_var=True), SizeVar)
    iv = tir.IterVar(ember.ir.Range(0, 16), tir.Var("vi", "int32"), tir.IterVarType.DataPar)
    block = tir.Block([iv], [], [], "b", tir.Evaluate(0))
    assert block.script() == (
        'with T.block("b", no_realize=True):\n    vi = T.axis.spatial(16)\n'
        '    T.reads()\n    T.writes()\n    T.evaluate(0)')


def test_types_print_as_script_words():
    from ember.ir import PointerType, PrimType, TupleType

    assert PrimType("float32").script() == "T.float32"
    assert PointerType(PrimType("int32"), "shared").script() == 'T.handle("int32", "shared")'
    assert TupleType([PrimType("float32"), PrimType("int8")]).script() == "T.Tuple(T.float32, T.int8)"
    assert TupleType([PrimType("int8")]) == TupleType((PrimType("int8"),))


def test_prefix_options_are_checked():
    import pytest

    from ember.error import TVMError

    func = _func()
    assert func.script(tir_prefix="T") == func.script()
    with pytest.raises(TVMError, match="not a valid Python identifier"):
        func.script(ir_prefix="2I")
    with pytest.raises(TVMError, match="prefix 'T' only"):
        func.script(tir_prefix="tir")


def test_ptr_is_a_typed_handle_declared_with_its_scope():
    from ember.script import tir as T

    p = T.ptr("float32")
    assert p.script(verbose_expr=True) == 'v = T.handle("float32", "global")\nv'


def test_bool_and_range_fragments_and_free_decl_buffer_data():
    from ember.script import ir as I
    from ember.script import tir as T
    from ember.script.ir_builder import IRBuilder
    from ember.script.ir_builder import tir as IB

    assert tir.Select(True, 0, 2).script() == "T.Select(T.bool(True), 0, 2)"
    r = ember.ir.Range(0, 10)
    assert r.script() == "I.Range(0, 10)" and I.Range(0, 10).extent.value == 10
    with IRBuilder() as ib:
        with IB.decl_buffer((10, 10), data=T.ptr("float32")):
            IB.evaluate(0)
    assert ib.get().script(verbose_expr=True) == (
        'v = T.handle("float32", "global")\nwith T.decl_buffer((10, 10), data=v) as buffer:\n'
        "    T.evaluate(0)")


def test_show_object_address_suffixes_every_name_with_its_object():
    import re

    func = _func()
    text = func.script(show_object_address=True)
    buf = func.buffer_map[func.params[0]]
    assert f"A_0x{id(buf):x}: T.Buffer((4,), \"float32\")" in text
    assert not re.search(r"\bA\b:", text)
    assert "0x" not in func.script()
