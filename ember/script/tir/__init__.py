"""``from ember.script import tir as T``: the TensorIR words of TVMScript.

Expression builders (``T.exp``, ``T.max``, ``T.Cast`` …) build IR directly; type
words (``T.float32``) build constants, casts and variables; statement words
(``T.block``, ``T.grid``, ``T.reads`` …) are read by the parser.  ``T.prim_func``
parses the decorated function.
"""

from __future__ import annotations

import builtins
import inspect

from ember.tir.op import *  # noqa: F403 - exp, log, max, min, if_then_else, call_extern, …
from ember.tir.op import __all__ as _op_names

from .dtypes import SCALAR_DTYPES, Ptr, dtype_function, handle, ptr, var
from .exprs import (
    NODE_BUILDERS, Broadcast, Cast, Let, Ramp, Select, StringImm, call_extern, call_intrin,
    call_pure_extern, comm_reducer, iter_var, meta_var,
)
from .exprs import Range_ as Range
from .frames import (
    Assert, Buffer, LetStmt, alloc_buffer, allocate, attr, axis, block, block_attr, decl_buffer,
    env_thread, evaluate, func_attr, grid, init, launch_thread, match_buffer, parallel, prefetch, reads, realize,
    sblock, serial,
    thread_binding, unroll, vectorized, where, writes,
)

globals().update({name: dtype_function(name) for name in SCALAR_DTYPES})


def _dtype_forward(fn):
    """Also accept the dtype as a keyword after the other arguments (TVMScript's spelling:
    ``T.call_extern("f", x, dtype="int32")`` as well as ``T.call_extern("int32", "f", x)``)."""
    def wrapped(*args, **kwargs):
        if "dtype" in kwargs:
            args = (kwargs.pop("dtype"),) + args
        from ember.tir.buffer import BufferRegion

        if builtins.any(isinstance(a, BufferRegion) for a in args):  # B[0:4]: its vector load
            from ember.script.parser.evaluator import as_value

            args = tuple(as_value(a) for a in args)
        return fn(*args, **kwargs)

    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


for _name in ("call_extern", "call_pure_extern", "call_intrin", "reinterpret", "call_llvm_intrin",
              "call_llvm_pure_intrin"):  # tvm_struct_get takes its dtype last or as dtype= itself
    if _name in globals():
        globals()[_name] = _dtype_forward(globals()[_name])
globals().update(NODE_BUILDERS)
Var = var  # TVM spells the fresh-variable constructor both ways
boolean = globals()["bool"]  # T.boolean: TVM's other spelling of T.bool

__all__ = list(_op_names) + list(SCALAR_DTYPES) + list(NODE_BUILDERS) + [
    "prim_func", "handle", "var", "Var", "Cast", "Select", "Ramp", "Broadcast", "Let", "Range",
    "iter_var", "call_intrin", "meta_var", "call_extern", "call_pure_extern", "StringImm", "Buffer", "alloc_buffer", "match_buffer", "decl_buffer",
    "allocate", "block", "init", "where", "reads", "writes", "block_attr", "func_attr", "grid",
    "serial", "parallel", "vectorized", "unroll", "thread_binding", "axis", "attr", "LetStmt",
    "Assert", "evaluate", "launch_thread", "env_thread", "sblock", "macro", "target", "ramp", "broadcast", "assume", "comm_reducer", "boolean", "realize", "ptr", "prefetch",
    "index_map",
]


def prim_func(func=None, *, private: bool = False, check_well_formed: bool = True, **unknown):
    """Parse the decorated Python function as a TensorIR PrimFunc."""
    from ember.script.parser.entry import prim_func as _parse

    frame = inspect.currentframe().f_back
    return _parse(func, private=private, check_well_formed=check_well_formed, frame=frame, **unknown)


ramp = Ramp  # TVMScript's lower-case spellings
broadcast = Broadcast


def assume(cond):
    """``T.assume(cond)``: tells the simplifier ``cond`` holds (an intrinsic call to evaluate)."""
    from ember.ir import as_expr

    return call_intrin("bool", "tir.assume", as_expr(cond))


def index_map(mapping, *, inverse_index_map=None, index_dtype: str = "int64"):
    """``T.index_map(lambda i, j: (j, i), index_dtype="int32")``: an IndexMap (Relax's
    ``layout_transform`` attribute) with index variables of ``index_dtype``."""
    from ember.tir.schedule.index_map import IndexMap

    return IndexMap.from_func(mapping, inverse_index_map=inverse_index_map, index_dtype=index_dtype)


def target(target, host=None):
    """``T.target("cuda")`` / ``T.target({...})``: a Target, e.g. for ``T.func_attr``."""
    from ember.target import Target

    return Target(target, host=host) if host is not None else Target(target)


def macro(*args, hygienic: bool = True):
    """``@T.macro``: a function whose TVMScript body is pasted where it is called."""
    from ember.script.parser.macro import macro as _macro

    return _macro(*args, hygienic=hygienic, frame=inspect.currentframe().f_back)


def __getattr__(name: str):
    """Vector type words on demand: ``T.float32x4``, ``T.int8x16``."""
    if "x" in name and name.split("x")[0] in SCALAR_DTYPES:
        try:
            return dtype_function(name)
        except ValueError:
            pass
    raise AttributeError(f"module 'ember.script.tir' has no attribute {name!r}")
