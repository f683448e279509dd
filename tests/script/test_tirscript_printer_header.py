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
