"""VMShapeLower: symbolic shapes become run-time checks and values on the VM's shape heap.

Each symbolic ``tir.Var`` of a function gets a slot in a per-call *shape heap*.  On
entry, every tensor parameter is checked with ``vm.builtin.check_tensor_info`` (kind,
rank, dtype) and ``vm.builtin.match_shape`` (constant dims compared, the first
occurrence of a symbolic dim stored, later occurrences compared — so a dim that
disagrees across inputs is reported with its symbolic name); ``match_cast`` bindings
are checked the same way.  Dims that are expressions (``n * 2``) are computed with
``vm.builtin.eval_shape`` from Python code generated here and compared afterwards.

In the body, a shape with symbolic dims becomes ``vm.builtin.make_shape(heap, …)`` and
a symbolic scalar (a dim passed to a kernel) ``vm.builtin.load_shape_value(heap, i)``;
derived values are computed once with ``eval_shape``.  Constant shapes are left alone.
Runs last before codegen (after memory planning, which may create symbolic sizes).
"""

from __future__ import annotations

from ember.ir import (
    EQ, GE, GT, LE, LT, NE, Add, And, Cast, Div, FloatImm, FloorDiv, FloorMod, IntImm, IRModule,
    Max, Min, Mod, Mul, Not, Or, PrimExpr, Select, Sub, Var as TirVar,
)

from ..backend.ir_util import rebuild_call, seq_of
from ..expr import (
    BindingBlock, Call, ExternFunc, Function, If, MatchCast, PrimValue, SeqExpr, ShapeExpr,
    StringImm, Tuple, TupleGetItem, Var, VarBinding,
)
from ..struct_info import (
    ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, TensorStructInfo, TupleStructInfo,
    is_base_of, shape_values,
)

__all__ = ["VMShapeLower", "vm_shape_lower", "prim_expr_to_python"]

IMM, STORE, LOAD, ANY = 0, 1, 2, 3  # the runtime's match_shape / make_shape spec kinds
LOWERED_ATTR = "relax.shape_lowered"
_OBJ = ObjectStructInfo()

# truncating division without builtins (the shape code runs with none)
_TRUNCDIV = "({a} // {b} if ({a} >= 0) == ({b} > 0) else -((-{a}) // {b}))"

# PrimExpr node → Python spelling ("{a}"/"{b}" are the operands, already parenthesised)
_BINARY = {
    Add: "{a} + {b}", Sub: "{a} - {b}", Mul: "{a} * {b}", FloorDiv: "{a} // {b}",
    FloorMod: "{a} % {b}", Min: "({a} if {a} <= {b} else {b})", Max: "({a} if {a} >= {b} else {b})",
    Div: _TRUNCDIV, Mod: "({a} - {b} * " + _TRUNCDIV + ")",
    EQ: "{a} == {b}", NE: "{a} != {b}", LT: "{a} < {b}", LE: "{a} <= {b}", GT: "{a} > {b}",
    GE: "{a} >= {b}", And: "({a} and {b})", Or: "({a} or {b})",
}


def prim_expr_to_python(expr: PrimExpr, slot_of) -> str:
    """Python source computing ``expr`` over the heap ``h`` (``slot_of(var)`` gives var slots)."""
    if isinstance(expr, IntImm):
        return str(int(expr.value))
    if isinstance(expr, FloatImm):
        return repr(float(expr.value))
    if isinstance(expr, TirVar):
        return f"h[{slot_of(expr)}]"
    if isinstance(expr, Cast):
        inner = prim_expr_to_python(expr.value, slot_of)
        return f"int({inner})" if expr.dtype.is_integer else inner
    if isinstance(expr, Not):
        return f"(not {prim_expr_to_python(expr.a, slot_of)})"
    if isinstance(expr, Select):
        c, t, f = (prim_expr_to_python(e, slot_of) for e in (expr.condition, expr.true_value, expr.false_value))
        return f"({t} if {c} else {f})"
    spelling = _BINARY.get(type(expr))
    if spelling is None:
        raise NotImplementedError(f"VMShapeLower: cannot compute a {type(expr).__name__} on the VM ({expr!r})")
    a = prim_expr_to_python(expr.a, slot_of)
    b = prim_expr_to_python(expr.b, slot_of)
    return "(" + spelling.format(a=a, b=b) + ")"


def _packed(name: str, *args, sinfo=_OBJ) -> Call:
    return Call(ExternFunc(name), list(args), struct_info=sinfo)


def _imm(value: int) -> PrimValue:
    return PrimValue(IntImm(_INT64, int(value)))


class _Lowerer:
    def __init__(self, name: str):
        self.name = name
        self.slots: dict = {}  # tir Var → heap slot
        self.defined: set = set()  # vars whose slot holds a value at this point
        self.derived: dict = {}  # python code → slot, shape spec → var (made in the current scope)
        self.heap = Var("shape_heap", _OBJ)
        self.out: list = []
        self.used_heap = False
        self.num_slots = 0
        self.deferred: list | None = None  # expression checks waiting for later parameters

    def later(self, check) -> None:
        """Run ``check`` (it compares an expression dim) now, or, while parameters are being
        matched, after all of them: a dim ``m * 2`` may come before the parameter defining ``m``."""
        if self.deferred is None:
            check()
        else:
            self.deferred.append(check)

    # -- slots -----------------------------------------------------------------------
    def slot(self, var: TirVar) -> int:
        if var not in self.slots:
            self.slots[var] = self.new_slot()
        return self.slots[var]

    def new_slot(self) -> int:
        self.num_slots += 1
        return self.num_slots - 1

    def defined_slot(self, var: TirVar) -> int:
        if var not in self.defined:
            raise ValueError(
                f"{self.name}: the symbolic variable {var.name!r} is used but no parameter shape or "
                "match_cast defines it"
            )
        return self.slots[var]

    def emit(self, value, name: str = "_") -> Var:
        var = Var(name, value.struct_info_or_none() or _OBJ)
        self.out.append(VarBinding(var, value))
        return var

    def value_slot(self, expr: PrimExpr) -> int:
        """The slot holding ``expr``'s value (computing it with eval_shape if needed)."""
        if isinstance(expr, TirVar):
            return self.defined_slot(expr)
        code = prim_expr_to_python(expr, self.defined_slot)
        slot = self.derived.get(code)
        if slot is None:
            slot = self.derived[code] = self.new_slot()
            self.used_heap = True
            self.emit(_packed("vm.builtin.eval_shape", self.heap, _imm(slot), StringImm(code)))
        return slot

    # -- matching ------------------------------------------------------------------------
    def heap_for(self, spec: list):
        """The heap, or a placeholder when ``spec`` only compares constants (no heap needed)."""
        kinds = {int(spec[i].value.value) for i in range(0, len(spec), 3)}
        return self.heap if kinds & {STORE, LOAD} else _imm(0)

    def match(self, value, sinfo, what: str) -> None:
        """Checks of ``value`` (a Relax var or expr) against ``sinfo``."""
        if isinstance(sinfo, TensorStructInfo):
            dtype = "" if sinfo.dtype is None else str(sinfo.dtype)
            self.emit(_packed("vm.builtin.check_tensor_info", value, _imm(sinfo.ndim), StringImm(dtype),
                              StringImm(what)))
            values = shape_values(sinfo)
            if values is not None:
                self.match_dims(value, values, what)
        elif isinstance(sinfo, ShapeStructInfo) and sinfo.values is not None:
            self.match_dims(value, sinfo.values, what)
        elif isinstance(sinfo, TupleStructInfo):
            for i, field in enumerate(sinfo.fields):
                if _needs_check(field):
                    item = self.emit(TupleGetItem(value, i) if isinstance(value, Var) else value.fields[i],
                                     f"{_name(value)}_{i}")
                    self.match(item, field, f"{what} field {i}")
        elif isinstance(sinfo, PrimStructInfo):
            self.match_prim(value, sinfo, what)

    def match_prim(self, value, sinfo: PrimStructInfo, what: str) -> None:
        dtype, v = StringImm("" if sinfo.dtype is None else str(sinfo.dtype)), sinfo.value
        if isinstance(v, IntImm):
            spec = [_imm(IMM), _imm(v.value), StringImm("")]
        elif isinstance(v, TirVar) and v not in self.defined:
            self.defined.add(v)
            self.used_heap = True
            spec = [_imm(STORE), _imm(self.slot(v)), StringImm(v.name)]
        elif isinstance(v, TirVar):
            spec = [_imm(LOAD), _imm(self.slots[v]), StringImm(v.name)]
        else:  # unknown, a float, or an expression (compared once its vars are stored)
            spec = [_imm(ANY), _imm(0), StringImm("")]
        self.emit(_packed("vm.builtin.match_prim_value", value, self.heap_for(spec), StringImm(what), dtype, *spec))
        if v is not None and not isinstance(v, IntImm | TirVar | FloatImm):
            def check():
                spec = [_imm(LOAD), _imm(self.value_slot(v)), StringImm(_dim_text(v))]
                self.emit(_packed("vm.builtin.match_prim_value", value, self.heap, StringImm(what), dtype, *spec))

            self.later(check)

    def match_dims(self, value, dims, what: str) -> None:
        spec, later = [], []
        for axis, d in enumerate(dims):
            if isinstance(d, IntImm):
                spec += [_imm(IMM), _imm(d.value), StringImm("")]
            elif isinstance(d, TirVar) and d not in self.defined:
                self.defined.add(d)
                self.used_heap = True
                spec += [_imm(STORE), _imm(self.slot(d)), StringImm(d.name)]
            elif isinstance(d, TirVar):
                spec += [_imm(LOAD), _imm(self.slots[d]), StringImm(d.name)]
            else:
                spec += [_imm(ANY), _imm(0), StringImm("")]
                later.append(axis)
        self.emit(_packed("vm.builtin.match_shape", value, self.heap_for(spec), StringImm(what), *spec))
        if later:  # expression dims: compare once every var of this value is stored
            def check():
                spec = []
                for axis, d in enumerate(dims):
                    if axis in later:
                        spec += [_imm(LOAD), _imm(self.value_slot(d)), StringImm(_dim_text(d))]
                    else:
                        spec += [_imm(ANY), _imm(0), StringImm("")]
                self.emit(_packed("vm.builtin.match_shape", value, self.heap, StringImm(what), *spec))

            self.later(check)

    # -- values in the body ------------------------------------------------------------------
    def shape(self, shape: ShapeExpr):
        if all(isinstance(v, IntImm) for v in shape.values):
            return shape
        spec = []
        for v in shape.values:
            spec += [_imm(IMM), _imm(v.value)] if isinstance(v, IntImm) else [_imm(LOAD), _imm(self.value_slot(v))]
        key = ("shape",) + tuple(int(p.value.value) for p in spec)
        if key not in self.derived:
            call = _packed("vm.builtin.make_shape", self.heap, *spec, sinfo=shape.struct_info)
            self.derived[key] = self.emit(call, "shape")
        return self.derived[key]

    def prim(self, pv: PrimValue):
        if isinstance(pv.value, IntImm | FloatImm):
            return pv
        key = ("value", self.value_slot(pv.value))
        if key not in self.derived:
            call = _packed("vm.builtin.load_shape_value", self.heap, _imm(key[1]), sinfo=pv.struct_info)
            self.derived[key] = self.emit(call, "value")
        return self.derived[key]

    def arg(self, a):
        if isinstance(a, ShapeExpr):
            return self.shape(a)
        if isinstance(a, PrimValue):
            return self.prim(a)
        if isinstance(a, Tuple):
            fields = tuple(self.arg(f) for f in a.fields)
            return a if all(x is y for x, y in zip(fields, a.fields)) else Tuple(fields)
        return a

    def value(self, v):
        if isinstance(v, Call):
            args = tuple(self.arg(a) for a in v.args)
            return rebuild_call(v, args=args) if any(x is not y for x, y in zip(args, v.args)) else v
        if isinstance(v, If):
            return If(self.arg(v.cond), self.branch(v.true_branch), self.branch(v.false_branch))
        if isinstance(v, Function):
            return v  # nested functions are not lowered (closures are not supported by the VM yet)
        return self.arg(v)

    def branch(self, e):
        saved_out, saved_derived, saved_defined = self.out, dict(self.derived), set(self.defined)
        self.out = []
        seq = self.seq(seq_of(e))
        self.out, self.derived, self.defined = saved_out, saved_derived, saved_defined
        return seq

    def seq(self, seq: SeqExpr, ret: StructInfo | None = None) -> SeqExpr:
        """``seq`` lowered; with ``ret`` (a function's body), the returned value is checked
        against ``ret`` unless its own struct info already guarantees it."""
        for block in seq.blocks:
            for b in block.bindings:
                if isinstance(b, MatchCast):
                    value = self.value(b.value)
                    if not isinstance(value, Var):
                        value = self.emit(value, f"{b.var.name_hint}_value")
                    self.match(value, b.struct_info, f"{self.name}: match_cast of {b.var.name_hint}")
                    self.out.append(VarBinding(b.var, value))
                else:
                    self.out.append(VarBinding(b.var, self.value(b.value)))
        body = self.arg(seq.body)
        if ret is not None and _needs_check(ret) and not _guaranteed(ret, seq.body):
            if not isinstance(body, Var):
                body = self.emit(body, "ret")
            self.match(body, ret, f"{self.name}: return value")
        return SeqExpr([BindingBlock(self.out)] if self.out else [], body)


def _guaranteed(ret: StructInfo, body) -> bool:
    """Whether ``body``'s struct info proves it matches ``ret`` (no run-time check needed)."""
    got = body.struct_info_or_none()
    if got is None:
        return False
    try:
        return is_base_of(ret, got)
    except Exception:  # noqa: BLE001 - undecidable here: check at run time
        return False


def _needs_check(sinfo) -> bool:
    return isinstance(sinfo, TensorStructInfo | ShapeStructInfo | TupleStructInfo | PrimStructInfo)


def _name(value) -> str:
    return value.name_hint if isinstance(value, Var) else "tuple"


def _dim_text(d: PrimExpr) -> str:
    try:
        return d.script()
    except Exception:  # noqa: BLE001 - only for messages
        return type(d).__name__


def vm_shape_lower_function(name: str, func: Function) -> Function:
    """``func`` with parameter checks and symbolic shapes lowered (see module docstring)."""
    if func.attrs.get(LOWERED_ATTR):
        return func
    lw = _Lowerer(name)
    lw.deferred = []
    for i, p in enumerate(func.params):
        if _needs_check(p.struct_info):
            lw.match(p, p.struct_info, f"{name}: argument '{p.name_hint}' (#{i + 1})")
    deferred, lw.deferred = lw.deferred, None
    for check in deferred:
        check()
    entry = lw.out
    lw.out = []
    body = lw.seq(seq_of(func.body), ret=func.ret_struct_info)
    blocks = list(body.blocks)
    prologue = entry
    if lw.used_heap:
        prologue = [VarBinding(lw.heap, _packed("vm.builtin.alloc_shape_heap", _imm(lw.num_slots)))] + entry
    if prologue:
        blocks.insert(0, BindingBlock(prologue))
    attrs = dict(func.attrs)
    attrs[LOWERED_ATTR] = True
    return Function(func.params, SeqExpr(blocks, body.body), func.ret_struct_info, func.is_pure, attrs)


def vm_shape_lower(mod: IRModule) -> IRModule:
    funcs = {gv: vm_shape_lower_function(gv.name_hint, f) if isinstance(f, Function) else f
             for gv, f in mod.functions.items()}
    return mod.with_functions(funcs)


def VMShapeLower():  # noqa: N802 - TVM's pass name
    from ember.transform import module_pass

    return module_pass(lambda mod, ctx: vm_shape_lower(mod), opt_level=0, name="VMShapeLower")


from ember.runtime.dtype import DataType  # noqa: E402

_INT64 = DataType("int64")
