"""ember.ir: base IR shared by every layer — data types, scalar expressions, ops, modules."""

from ember.runtime.dtype import DataType

from . import intrinsics as _intrinsics  # noqa: F401 - registers the tir.* intrinsic ops
from .expr import (
    EQ, GE, GT, LE, LT, NE, Add, And, BinaryOp, Broadcast, Call, Cast, CmpOp, Div, FloatImm,
    FloorDiv, FloorMod, IntImm, Let, Max, Min, Mod, Mul, Not, Or, PointerType, PrimExpr, Ramp,
    Range, Select, SizeVar, StringImm, Sub, Var, as_expr, binary, const, convert, promote,
)
from .serialization import load_json, save_json
from .global_info import DummyGlobalInfo, GlobalInfo, VDevice
from .module import BaseFunc, GlobalVar, IRModule
from .node import Node, fields_of, node, replace
from .op import Op, register_op, register_op_attr
from .env_func import AttrsNode, EnvFunc, make_node
from .type import PrimType, TupleType, Type
from .structural import (
    StructuralMismatch, assert_structural_equal, get_first_structural_mismatch, structural_equal,
    structural_hash,
)

# TVM's container Array: ember's IR fields and the VM's tuple results are Python tuples
Array = tuple



def __getattr__(name: str):
    if name in ("transform", "instrument", "base"):  # TVM's tvm.ir.transform / tvm.ir.instrument, loaded
        import importlib                      # on first use (they import ember.ir)

        return importlib.import_module(f"ember.ir.{name}")
    raise AttributeError(f"module 'ember.ir' has no attribute {name!r}")
