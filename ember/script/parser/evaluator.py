"""Evaluating script expressions: Python semantics, except that logic builds TIR.

``and`` / ``or`` / ``not``, chained comparisons and buffer slicing build TIR nodes
when an operand is symbolic (Python would ask the node for a bool); everything else
is ordinary Python evaluation against the script's variables and the captured
globals/closure, so ``N = 128`` or ``"float32"`` from the enclosing code just work.
Any exception raised while evaluating becomes a ParserError at the innermost node.
"""

from __future__ import annotations

import ast
import builtins
import operator

from ember.ir import GlobalVar, PrimExpr, Range, as_expr, const, promote
from ember.ir.expr import Call
from ember.runtime.dtype import DataType
from ember.script.errors import ParserError
from ember.script.tir.exprs import range_from_bounds
from ember.tir import op as tir_op
from ember.ir import IntImm as ir_IntImm
from ember.ir import Ramp as ir_Ramp
from ember.tir.buffer import Buffer, BufferLoad, BufferRegion

from .source import Source

__all__ = ["Evaluator", "Scope"]

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_ORDERED = {operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge}
_MISSING = object()
_INTEGER_ONLY = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}


def _plain_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _bounded_int_op(op: type, fn, a: int, b: int) -> int:
    """Python arithmetic on integer literals, refusing results beyond 64 bits (``1 << 2**31``
    would otherwise build a gigantic number before anything could object)."""
    if op is ast.LShift and b > 64 or op is ast.Pow and b > 0 and abs(a) > 1 and b * (abs(a).bit_length() - 1) > 64:
        raise OverflowError(f"the integer constant {a} {'<<' if op is ast.LShift else '**'} {b} does not fit in 64 bits")
    value = fn(a, b)
    if isinstance(value, int) and not -(1 << 63) <= value < 1 << 64:
        raise OverflowError(f"the integer constant {value if value.bit_length() < 200 else '...'} does not fit "
                            "in 64 bits")
    return value


def _check_integer_operands(op: str, *values) -> None:
    """Bitwise operators take integers or bools (on floats they used to reach LLVM)."""
    for v in values:
        dtype = getattr(v, "dtype", None) if isinstance(v, PrimExpr) else None
        if isinstance(v, float) or dtype is not None and not (dtype.is_int or dtype.is_uint or dtype.is_bool):
            raise TypeError(f"operator {op} needs integer or bool operands, got {v} of dtype {dtype or 'float'}")


class Scope:
    """Names defined by the script (function-wide, like Python) over the captured ones."""

    def __init__(self, outer: dict):
        self.outer = outer
        self.local: dict = {}

    def lookup(self, name: str):
        for table in (self.local, self.outer):
            value = table.get(name, _MISSING)
            if value is not _MISSING:
                return value
        return getattr(builtins, name, _MISSING)

    def define(self, name: str, value) -> None:
        self.local[name] = value


def _symbolic(*values) -> bool:
    return any(isinstance(v, PrimExpr) for v in values)


class Evaluator:
    """Evaluates expression ASTs in a Scope; errors are located in the Source."""

    def __init__(self, source: Source, scope: Scope):
        self.source = source
        self.scope = scope

    def error(self, node, message: str) -> ParserError:
        return self.source.error(node, message)

    def eval(self, node):
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} expressions are not supported in TVMScript")
        try:
            return method(node)
        except ParserError:
            raise
        except Exception as err:  # noqa: BLE001 - every failure is reported at its node
            raise self.error(node, f"{type(err).__name__}: {err}") from err

    def eval_args(self, call: ast.Call) -> tuple[list, dict]:
        args: list = []
        for a in call.args:
            if isinstance(a, ast.Starred):
                args.extend(self.eval(a.value))
            else:
                args.append(self.eval(a))
        kwargs: dict = {}
        for kw in call.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        return args, kwargs

    # -- leaves -----------------------------------------------------------------------
    def eval_Name(self, node: ast.Name):
        value = self.scope.lookup(node.id)
        if value is _MISSING:
            raise self.error(node, f"name {node.id!r} is not defined")
        return value

    def eval_Constant(self, node: ast.Constant):
        return node.value

    def eval_Attribute(self, node: ast.Attribute):
        obj = self.eval(node.value)
        value = getattr(obj, node.attr)
        if value is None and node.attr == "elem_offset" and isinstance(obj, Buffer):
            # ember leaves a zero offset unset (None); in expressions it is the number 0
            return const(0, obj.shape[0].dtype if obj.shape else "int32")
        return value

    def eval_Tuple(self, node: ast.Tuple):
        return tuple(self._elts(node.elts))

    def eval_List(self, node: ast.List):
        return list(self._elts(node.elts))

    def _elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.eval(e.value))
            else:
                out.append(self.eval(e))
        return out

    def eval_Dict(self, node: ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.eval(v))
            else:
                out[self.eval(k)] = self.eval(v)
        return out

    def eval_Slice(self, node: ast.Slice):
        parts = [None if x is None else self.eval(x) for x in (node.lower, node.upper, node.step)]
        return slice(*parts)

    # -- operators --------------------------------------------------------------------
    def eval_BinOp(self, node: ast.BinOp):
        fn = _BINOPS.get(type(node.op))
        if fn is None:
            raise self.error(node, f"operator {type(node.op).__name__} is not supported")
        left, right = as_value(self.eval(node.left)), as_value(self.eval(node.right))
        if type(node.op) in _INTEGER_ONLY:
            _check_integer_operands(_INTEGER_ONLY[type(node.op)], left, right)
        if _plain_int(left) and _plain_int(right):
            return _bounded_int_op(type(node.op), fn, left, right)
        return fn(left, right)

    def eval_UnaryOp(self, node: ast.UnaryOp):
        x = as_value(self.eval(node.operand))
        if isinstance(node.op, ast.Not):
            return tir_op.logical_not(x) if _symbolic(x) else not x
        if isinstance(node.op, ast.USub):
            return -x
        if isinstance(node.op, ast.UAdd):
            return x
        _check_integer_operands("~", x)
        return ~x

    def eval_BoolOp(self, node: ast.BoolOp):
        values = [self.eval(v) for v in node.values]
        if not _symbolic(*values):
            out = values[0]
            for v in values[1:]:
                out = (out and v) if isinstance(node.op, ast.And) else (out or v)
            return out
        combine = tir_op.logical_and if isinstance(node.op, ast.And) else tir_op.logical_or
        out = as_expr(values[0])
        for v in values[1:]:
            out = combine(out, as_expr(v))
        return out

    def eval_Compare(self, node: ast.Compare):
        left = as_value(self.eval(node.left))
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = as_value(self.eval(right_node))
            fn = _CMPOPS[type(op)]
            if isinstance(left, int | float) and isinstance(right, PrimExpr) and fn in _ORDERED:
                left, right = promote(left, right)  # keep `0 < x` as written, not `x > 0`
            value = fn(left, right)
            if result is None:
                result = value
            elif _symbolic(result, value):
                result = tir_op.logical_and(as_expr(result), as_expr(value))
            else:
                result = result and value
            left = right
        return result

    def eval_IfExp(self, node: ast.IfExp):
        cond = self.eval(node.test)
        if _symbolic(cond):
            raise self.error(node, "a symbolic condition cannot use `a if c else b`; "
                                   "use T.Select(c, a, b) or T.if_then_else(c, a, b)")
        return self.eval(node.body) if cond else self.eval(node.orelse)

    def eval_JoinedStr(self, node: ast.JoinedStr) -> str:
        """An f-string of Python values (``primfunc_name_hint=f"tir_{name}"``)."""
        return "".join(self.eval(v) if isinstance(v, ast.Constant) else self.eval_FormattedValue(v)
                       for v in node.values)

    def eval_FormattedValue(self, node: ast.FormattedValue) -> str:
        value = self.eval(node.value)
        value = {115: str, 114: repr, 97: ascii}.get(node.conversion, lambda v: v)(value)
        spec = self.eval_JoinedStr(node.format_spec) if node.format_spec is not None else ""
        return format(value, spec)

    # -- calls and subscripts ------------------------------------------------------------
    def eval_Lambda(self, node: ast.Lambda):
        """A Python function evaluating the body with its parameters bound (``T.comm_reducer``)."""
        import inspect

        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
            raise self.error(node, "a lambda in TVMScript takes plain positional parameters only")
        names = [arg.arg for arg in a.args]
        local = self.scope.local

        def function(*values):
            if len(values) != len(names):
                raise TypeError(f"the lambda takes {len(names)} arguments, got {len(values)}")
            saved = {n: local.get(n, _MISSING) for n in names}
            local.update(zip(names, values))
            try:
                return self.eval(node.body)
            finally:
                for n, old in saved.items():
                    if old is _MISSING:
                        local.pop(n, None)
                    else:
                        local[n] = old

        function.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
        return function

    def eval_Call(self, node: ast.Call):
        from ember.script.tir.frames import PARSER_ONLY

        func = self.eval(node.func)
        if func in PARSER_ONLY:
            raise self.error(node, f"T.{func.script_name} is a statement and cannot be used inside "
                                   "an expression")
        args, kwargs = self.eval_args(node)
        if getattr(func, "__module__", "").startswith("ember.tir") and \
                any(isinstance(a, BufferRegion) for a in args):
            args = [as_value(a) for a in args]  # T.exp(A[0:4]): an operator takes the vector load
        if isinstance(func, GlobalVar):
            return Call(DataType("int32"), func, tuple(as_expr(a) for a in args))  # TIR calls return int32
        return func(*args, **kwargs)

    def eval_Subscript(self, node: ast.Subscript):
        obj = self.eval(node.value)
        key = self.eval(node.slice)
        if isinstance(obj, Buffer):
            return buffer_access(obj, key)
        return obj[key]


def region_as_load(region: BufferRegion):
    """A region used as a value, ``A[0:4]``: the vector load of its elements (a stride-1
    ``Ramp`` over the sliced dimension), as TVMScript reads it."""
    indices = []
    for r in region.region:
        extent = r.extent
        if isinstance(extent, ir_IntImm) and extent.value == 1:
            indices.append(r.min)
        elif isinstance(extent, ir_IntImm):
            indices.append(ir_Ramp(r.min, const(1, r.min.dtype), extent.value))
        else:
            raise TypeError(f"the slice {region} of buffer {region.buffer.name} has a symbolic "
                            "length; only constant-length slices can be used as vector values")
    return BufferLoad(region.buffer, tuple(indices))


def as_value(x):
    """``x``, with a buffer region turned into the vector load it stands for."""
    return region_as_load(x) if isinstance(x, BufferRegion) else x


def _strided_load(buf: Buffer, key) -> BufferLoad:
    """``A[i, 0:8:2]``: the load of every ``step``-th element, a Ramp index per sliced axis."""
    indices = []
    for dim, k in zip(buf.shape, key):
        if not isinstance(k, slice):
            indices.append(as_expr(k))
            continue
        start = as_expr(0 if k.start is None else k.start)
        stop = as_expr(dim if k.stop is None else k.stop)
        step = 1 if k.step is None else k.step
        span = stop - start
        if not isinstance(span, ir_IntImm):
            from ember.arith import Analyzer

            span = Analyzer().simplify(span)  # (i + 128) - i
        if not isinstance(step, int) or not isinstance(span, ir_IntImm):
            raise TypeError(f"the strided slice of buffer {buf.name} needs a constant length and step")
        lanes = (span.value + step - 1) // step
        indices.append(ir_Ramp(start, const(step, start.dtype), lanes) if lanes != 1 else start)
    return BufferLoad(buf, tuple(indices))


def buffer_access(buf: Buffer, key, what: str = "load"):
    """``A[i, j]`` (a load), or ``A[i, 0:4]`` (a region, extents simplified)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(isinstance(k, list | tuple) for k in key):  # A[idx] with idx a list of loop vars
        key = tuple(x for k in key for x in (k if isinstance(k, list | tuple) else (k,)))
    for k in key:  # a float index used to reach code generation
        dtype = getattr(k, "dtype", None) if not isinstance(k, slice) else None
        if isinstance(k, float) or dtype is not None and not (dtype.is_int or dtype.is_uint):
            raise TypeError(f"buffer {buf.name} is indexed with {k!r}" + (f" of dtype {dtype}" if dtype else "")
                            + "; indices must be integers")
    if len(key) != len(buf.shape) and not (len(key) == 1 and key[0] == ()):
        raise ValueError(f"buffer {buf.name} has {len(buf.shape)} dimensions but the {what} "
                         f"gives {len(key)} indices")
    if not any(isinstance(k, slice) for k in key):
        return buf[key]
    if any(isinstance(k, slice) and k.step not in (None, 1) for k in key):
        return _strided_load(buf, key)  # A[0:8:2]: a vector load (a region has no step)
    ranges = []
    for dim, k in zip(buf.shape, key):
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise ValueError(f"buffer region slices must have step 1, got {k.step}")
            start = 0 if k.start is None else k.start
            stop = dim if k.stop is None else k.stop
            ranges.append(range_from_bounds(start, stop))
        else:
            k = as_expr(k)
            ranges.append(Range(k, const(1, k.dtype)))
    return BufferRegion(buf, tuple(ranges))
