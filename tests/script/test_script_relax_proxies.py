"""The struct-info proxy classes of ember.script.parser.relax.entry (TVM's names)."""

from ember.relax import struct_info as si
from ember.script.relax import entry
from ember.script.relax.words import as_sinfo


def test_proxy_classes_stand_for_their_words_default_struct_info():
    assert isinstance(as_sinfo(entry.ObjectProxy), si.ObjectStructInfo)
    assert isinstance(as_sinfo(entry.TensorProxy), si.TensorStructInfo)
    assert isinstance(as_sinfo(entry.ShapeProxy), si.ShapeStructInfo)
    assert isinstance(as_sinfo(entry.TupleProxy), si.TupleStructInfo)
    assert isinstance(as_sinfo(entry.CallableProxy), si.FuncStructInfo)


def test_proxy_instances_carry_their_arguments():
    sinfo = as_sinfo(entry.TensorProxy((4, 8), "float16"))
    assert sinfo.ndim == 2 and str(sinfo.dtype) == "float16"
    assert issubclass(entry.PrimProxy, entry.StructInfoProxy)


def test_match_cast_accepts_a_proxy_class():
    from ember.script import from_source

    text = '''@R.function
def f(A: R.Object):
    B = R.match_cast(A, TensorProxy)
    return B
'''
    func = from_source(text, {"TensorProxy": entry.TensorProxy})
    assert isinstance(func.ret_struct_info, si.TensorStructInfo)
