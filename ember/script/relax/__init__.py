"""``from ember.script import relax as R``: Relax TVMScript.

Operators are ``relax.op``'s builders (``R.add``, ``R.matmul``, ``R.nn.conv2d`` …);
the other words are in ``words.py``.  ``@R.function`` parses the decorated function
(inside an ``@I.ir_module`` class it is parsed with the class).  Importing this
package registers the Relax printer and the ``R.function`` parser.
"""

from __future__ import annotations

import inspect as _inspect

from ember.relax.op import *  # noqa: F403 - R.add, R.matmul, R.call_tir, …
from ember.relax.op import builtin, ccl, inspect, memory, nn  # noqa: F401
from ember.relax.op import max, min, print, sum  # noqa: F401, A004

from . import entry  # noqa: F401 - tvm.script.parser.relax.entry (the struct-info word classes)
from . import printer as _printer  # noqa: F401 - registers the Relax printers
from ember.script.ir_builder.relax import (  # noqa: F401 - IR-builder words TVM's R also offers
    arg, emit, emit_match_cast, emit_var_binding, func_name, func_ret_struct_info, func_ret_value,
)

from .words import (  # noqa: F401
    Callable, ExternFunc, call_packed, Object, Prim, Shape, Tensor, Tuple, const, dataflow, dtype, emit_te,
    func_attr, match_cast, output, prim_value, shape, str, tuple,
)


def function(func=None, *, pure: bool = True, private: bool = False, check_well_formed: bool = True):
    """Parse the decorated Python function as a ``relax.Function``."""
    frame = _inspect.currentframe().f_back
    from .parser import function as _parse

    return _parse(func, pure=pure, private=private, check_well_formed=check_well_formed, frame=frame)


def _register_parser() -> None:
    from ember.script.parser.dispatch import register_function_parser

    from .parser import parse_relax_function

    register_function_parser(function, parse_relax_function)


_register_parser()
