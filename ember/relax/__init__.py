"""ember.relax: the graph IR — expressions with struct info, operators, the BlockBuilder,
analyses and transformation passes (TVM Relax's names and semantics)."""

from ember.ir import GlobalVar

from . import op  # noqa: F401 - registers every relax.* operator
from .block_builder import BlockBuilder
from .expr import (
    Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, Expr,
    ExternFunc, Function, If, MatchCast, PrimValue, RelaxExpr, SeqExpr, ShapeExpr, StringImm,
    Tuple, TupleGetItem, Var, VarBinding, const, extern, get_shape_of,
)
from .op import call_dps_packed, call_pure_packed, call_tir, call_tir_inplace  # noqa: F401
from .struct_info import (
    DynTensorType, FuncStructInfo, FuncType, ObjectStructInfo, ObjectType, PrimStructInfo,
    PrimType, ShapeStructInfo, ShapeType, StructInfo, TensorStructInfo, TensorType,
    TupleStructInfo, TupleType, get_static_type, is_base_of, struct_info_lca,
)

_LAZY_NAMES = {
    "build": "ember.relax.vm_build", "VirtualMachine": "ember.runtime.vm",  # running needs no compiler
    "Executable": "ember.runtime.vm", "get_pipeline": "ember.relax.pipeline",
    "load_executable": "ember.relax.vm_build", "get_default_pipeline": "ember.relax.pipeline",
}
_LAZY_SUBMODULES = {
    "transform", "analysis", "expr_functor", "frontend", "vm", "pipeline", "reference", "utils",
    "training",
}


def __getattr__(name: str):
    import importlib

    if name in _LAZY_SUBMODULES:
        module = importlib.import_module(f"ember.relax.{name}")
        globals()[name] = module
        return module
    if name in ("PyExprVisitor", "PyExprMutator", "ExprVisitor", "ExprMutator"):
        from . import expr_functor

        return getattr(expr_functor, name)
    if name in _LAZY_NAMES:  # compilation to the VM (relax.build, VirtualMachine, pipelines)
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember.relax' has no attribute {name!r}")


__all__ = [
    "BlockBuilder", "Binding", "BindingBlock", "Call", "Constant", "DataflowBlock", "DataflowVar",
    "DataTypeImm", "Expr", "ExternFunc", "Function", "GlobalVar", "If", "MatchCast", "PrimValue",
    "RelaxExpr", "SeqExpr", "ShapeExpr", "StringImm", "Tuple", "TupleGetItem", "Var", "VarBinding",
    "const", "extern", "get_shape_of", "call_tir", "call_dps_packed", "call_pure_packed",
    "StructInfo", "ObjectStructInfo", "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo",
    "TupleStructInfo", "FuncStructInfo", "get_static_type", "is_base_of", "struct_info_lca",
    "ObjectType", "PrimType", "ShapeType", "TensorType", "DynTensorType", "TupleType", "FuncType",
]


def _register_script() -> None:
    """Relax printing and parsing live in ember.script.relax; load them with the IR."""
    try:
        import ember.script.relax  # noqa: F401
    except ImportError:  # pragma: no cover - the script layer is optional
        pass


_register_script()
