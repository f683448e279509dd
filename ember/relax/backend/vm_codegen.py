"""VM code generation: lowered Relax functions → ``VMFunction`` instruction lists.

Input: Relax functions after the "default_build" lowering (explicit memory, shapes
lowered: no symbolic ``ShapeExpr``/``PrimValue`` left, no ``call_tir``).  Each variable
maps to an argument (a register, a constant-pool entry or an immediate); parameters
take the first registers.  Calls go to kernels (PrimFuncs of the module, by name), to
other Relax functions, to ``vm.builtin.*`` (the op table below) or to registered
packed functions; ``If`` becomes ``If``/``Goto`` jumps with a copy into the result
register.  The PrimFuncs the program calls are compiled together by ``ember.build``
into one module.
"""

from __future__ import annotations

from ember.ir import FloatImm, GlobalVar, IntImm, IRModule, Op
from ember.runtime.vm import Arg, Call as VMCall, Executable, Goto, If as VMIf, Ret, VMFunction
from ember.tir import PrimFunc

from ..expr import (
    Call, Constant, DataTypeImm, ExternFunc, Function, If, PrimValue, SeqExpr, ShapeExpr,
    StringImm, Tuple, TupleGetItem, Var,
)
from .ir_util import collect_vars

__all__ = ["codegen", "CodegenError", "OP_TABLE"]

VM = Arg("vm", None)
NONE = Arg("imm", None)


class CodegenError(ValueError):
    """The module is not lowered far enough for the VM (names the pass that should run)."""


def _dev(arg) -> Arg:
    return Arg("imm", int(arg.value.value)) if isinstance(arg, PrimValue) else Arg("imm", 0)


def _fields(g, tup) -> tuple:
    """The arguments in a call's Tuple operand, one VM argument each."""
    if isinstance(tup, Tuple):
        return tuple(g.arg(f) for f in tup.fields)
    raise g.fail(f"expected a tuple of arguments, got {type(tup).__name__}")


# relax op → (VM builtin, how to build its arguments from the call); None: no instruction
OP_TABLE = {
    "relax.builtin.alloc_tensor": ("vm.builtin.alloc_output", lambda g, c: (VM, g.arg(c.args[0]), g.arg(c.args[1]),
                                                                           _dev(c.args[2]))),
    "relax.memory.alloc_storage": ("vm.builtin.alloc_storage", lambda g, c: (VM, g.arg(c.args[0]), _dev(c.args[1]),
                                                                            g.arg(c.args[3]))),
    "relax.memory.alloc_tensor": ("vm.builtin.alloc_tensor", lambda g, c: tuple(g.arg(x) for x in c.args)),
    "relax.memory.kill_storage": (None, None),
    "relax.memory.kill_tensor": (None, None),
    "relax.shape_of": ("vm.builtin.shape_of", lambda g, c: (g.arg(c.args[0]),)),
    "relax.null_value": ("vm.builtin.null_value", lambda g, c: ()),
    "relax.print": ("vm.builtin.print", lambda g, c: (Arg("imm", c.attrs.format),) + tuple(map(g.arg, c.args))),
    "relax.assert_op": ("vm.builtin.assert_op", lambda g, c: (Arg("imm", c.attrs.format),)
                        + tuple(map(g.arg, c.args))),
    "relax.make_closure": ("vm.builtin.make_closure", lambda g, c: (g.arg(c.args[0]),) + _fields(g, c.args[1])),
    "relax.invoke_closure": ("vm.builtin.invoke_closure", lambda g, c: (g.arg(c.args[0]),) + _fields(g, c.args[1])),
    "relax.invoke_pure_closure": ("vm.builtin.invoke_closure",
                                  lambda g, c: (g.arg(c.args[0]),) + _fields(g, c.args[1])),
}
# ops whose value is their first argument (no instruction)
ALIAS_OPS = frozenset({"relax.builtin.stop_lift_params"})

_NEEDS_PASS = {
    "relax.call_tir": "CallTIRRewrite", "relax.call_tir_inplace": "CallTIRRewrite",
    "relax.call_dps_packed": "CallTIRRewrite", "relax.call_pure_packed": "CallTIRRewrite",
}


class _ModuleContext:
    def __init__(self, mod: IRModule):
        self.kernels = {gv.name_hint for gv, f in mod.functions.items() if isinstance(f, PrimFunc)}
        self.functions = {gv.name_hint for gv, f in mod.functions.items() if isinstance(f, Function)}
        self.constants: list = []
        self._const_index: dict = {}

    def constant(self, value) -> Arg:
        key = id(value)
        if key not in self._const_index:
            self._const_index[key] = len(self.constants)
            self.constants.append(value)
        return Arg("const", self._const_index[key])


class _FunctionCodegen:
    def __init__(self, name: str, func: Function, ctx: _ModuleContext):
        self.name, self.func, self.ctx = name, func, ctx
        self.args: dict = {p: Arg("reg", i) for i, p in enumerate(func.params)}
        self.num_regs = len(func.params)
        self.instrs: list = []
        self.used = {id(v) for v in collect_vars(func.body)}

    def new_reg(self) -> int:
        self.num_regs += 1
        return self.num_regs - 1

    def fail(self, what: str) -> CodegenError:
        return CodegenError(f"VM codegen of {self.name}: {what}")

    # -- leaves --------------------------------------------------------------------------
    def arg(self, e) -> Arg:
        if isinstance(e, Var):
            if e not in self.args:
                raise self.fail(f"variable {e.name_hint!r} is used before it is bound")
            return self.args[e]
        if isinstance(e, Constant):
            return self.ctx.constant(e.data)
        if isinstance(e, ShapeExpr):
            if not all(isinstance(v, IntImm) for v in e.values):
                raise self.fail("a symbolic shape is left; run relax.transform.VMShapeLower first")
            return Arg("imm", tuple(int(v.value) for v in e.values))
        if isinstance(e, PrimValue):
            if isinstance(e.value, IntImm):
                return Arg("imm", int(e.value.value))
            if isinstance(e.value, FloatImm):
                return Arg("imm", float(e.value.value))
            raise self.fail("a symbolic PrimValue is left; run relax.transform.VMShapeLower first")
        if isinstance(e, StringImm):
            return Arg("imm", e.value)
        if isinstance(e, DataTypeImm):
            return Arg("imm", str(e.value))
        if isinstance(e, GlobalVar):
            return Arg("func", e.name_hint)
        if isinstance(e, ExternFunc):
            return Arg("func", e.global_symbol)
        return self.expr(e, want_result=True)

    def to_reg(self, a: Arg) -> int:
        if a.kind == "reg":
            return a.value
        dst = self.new_reg()
        self.instrs.append(VMCall(dst, "vm.builtin.copy", (a,)))
        return dst

    # -- expressions ----------------------------------------------------------------------
    def expr(self, e, want_result: bool) -> Arg:
        if isinstance(e, Call):
            return self.call(e, want_result)
        if isinstance(e, Tuple):
            return self.emit_call("vm.builtin.make_tuple", tuple(self.arg(f) for f in e.fields), want_result)
        if isinstance(e, TupleGetItem):
            return self.emit_call("vm.builtin.tuple_getitem", (self.arg(e.tuple_value), Arg("imm", e.index)),
                                  want_result)
        if isinstance(e, If):
            return self.branch(e)
        if isinstance(e, SeqExpr):
            return self.seq(e)
        if isinstance(e, Function):
            raise self.fail("nested functions (closures) are not supported by the VM yet")
        return self.arg(e)

    def emit_call(self, func: str, args: tuple, want_result: bool) -> Arg:
        dst = self.new_reg() if want_result else None
        self.instrs.append(VMCall(dst, func, args))
        return NONE if dst is None else Arg("reg", dst)

    def call(self, call: Call, want_result: bool) -> Arg:
        op = call.op
        if isinstance(op, Op):
            if op.name in _NEEDS_PASS:
                raise self.fail(f"{op.name} is left; run relax.transform.{_NEEDS_PASS[op.name]} first")
            if op.name in ALIAS_OPS:
                return self.arg(call.args[0])
            if op.name == "relax.call_builtin_with_ctx":  # the builtin gets the VM first
                return self.emit_call(call.args[0].global_symbol, (VM,) + _fields(self, call.args[1]), want_result)
            if op.name not in OP_TABLE:
                raise self.fail(f"operator {op.name} has no VM lowering; legalize it first "
                                "(relax.transform.LegalizeOps or relax.get_pipeline('zero'))")
            builtin, make_args = OP_TABLE[op.name]
            if builtin is None:
                return NONE
            return self.emit_call(builtin, make_args(self, call), want_result)
        args = tuple(self.arg(a) for a in call.args)
        if isinstance(op, GlobalVar):
            name = op.name_hint
            if name not in self.ctx.kernels and name not in self.ctx.functions:
                raise self.fail(f"call to {name!r}, which is not a function of the module")
            return self.emit_call(name, args, want_result)
        if isinstance(op, ExternFunc):
            return self.emit_call(op.global_symbol, args, want_result)
        raise self.fail(f"cannot call a {type(op).__name__} (closures are not supported by the VM yet)")

    def branch(self, e: If) -> Arg:
        cond = self.to_reg(self.arg(e.cond))
        dst = self.new_reg()
        jump_if = len(self.instrs)
        self.instrs.append(None)  # patched below
        self.instrs.append(VMCall(dst, "vm.builtin.copy", (self.expr(e.true_branch, True),)))
        jump_end = len(self.instrs)
        self.instrs.append(None)
        false_start = len(self.instrs)
        self.instrs.append(VMCall(dst, "vm.builtin.copy", (self.expr(e.false_branch, True),)))
        self.instrs[jump_if] = VMIf(cond, false_start - jump_if)
        self.instrs[jump_end] = Goto(len(self.instrs) - jump_end)
        return Arg("reg", dst)

    def seq(self, seq: SeqExpr) -> Arg:
        for block in seq.blocks:
            for b in block.bindings:
                value = b.value
                if isinstance(value, Var | Constant | ShapeExpr | PrimValue | StringImm | DataTypeImm):
                    self.args[b.var] = self.arg(value)  # an alias: no instruction
                else:
                    self.args[b.var] = self.expr(value, want_result=id(b.var) in self.used)
        return self.arg(seq.body)

    def run(self) -> VMFunction:
        result = self.expr(self.func.body, want_result=True)
        self.instrs.append(Ret(self.to_reg(result)))
        params = tuple(p.name_hint for p in self.func.params)
        return VMFunction(self.name, params, tuple(self.instrs), self.num_regs)


def codegen(mod: IRModule, target=None, build_kernels=None) -> Executable:
    """An Executable from a lowered module: VM functions plus the compiled kernels.

    ``build_kernels(prims, target)``, when given, compiles the CPU kernels the program calls
    (an IRModule of PrimFuncs) into a runtime Module instead of ``ember.build``."""
    ctx = _ModuleContext(mod)
    functions = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            functions[gv.name_hint] = _FunctionCodegen(gv.name_hint, func, ctx).run()
    kernels = None
    called = {name for f in functions.values() for i in f.instrs if isinstance(i, VMCall)
              for name in [i.func] + [a.value for a in i.args if a.kind == "func"]}
    # only the kernels the program calls are compiled (LegalizeOps/fusion leave others behind)
    prims = {gv: f.with_attr("global_symbol", gv.name_hint) for gv, f in mod.functions.items()
             if isinstance(f, PrimFunc) and gv.name_hint in called}
    device = "cpu"
    if prims and _is_gpu(target):  # device kernels (+ host helpers on the CPU), see gpu_kernels.py
        from .gpu_kernels import build_gpu_kernels

        kernels, device = build_gpu_kernels(prims, target), target.kind.name
    elif prims and build_kernels is not None:
        kernels = build_kernels(IRModule(prims), target or "llvm")
    elif prims:
        from ember.driver import build as tir_build

        kernels = tir_build(IRModule(prims), target=target or "llvm")
    exe = Executable(functions, ctx.constants, kernels)
    if device != "cpu":
        exe.metadata["kernel_device"] = device  # VirtualMachine checks its device against it
    return exe


def _is_gpu(target) -> bool:
    kind = getattr(getattr(target, "kind", None), "name", None)
    return kind == "cuda"
