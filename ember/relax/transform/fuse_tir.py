"""FuseTIR: turn each ``Primitive`` Relax function (made by FuseOps) into ONE PrimFunc.

The callees' bodies are placed one after another under a new root block.  Every
callee's parameter buffers are replaced by the fused function's buffers: its inputs and
output become parameters, values passed between callees become ``alloc_buffers`` of the
root block.  Each callee body is copied with fresh loop/iterator variables and fresh
copies of its own allocations, block names are made unique ("T_add", "T_add_1", …), and
the callees' symbolic shape variables are replaced by the fused function's.

The call sites (``R.call`` of the Primitive function) become one ``call_tir`` of the new
PrimFunc; the Primitive functions, and the kernels they called that nobody calls any
more, are removed (other PrimFuncs of the module stay).
"""

from __future__ import annotations

from ember.ir import GlobalVar, IRModule, Op, Var as TirVar, const
from ember.tir import Block, BlockRealize, Buffer, PrimFunc, decl_buffer, seq
from ember.tir.functor import IRMutator
from ember.transform import Pass, module_pass

from ..expr import Call, Constant, Function, Var
from ..expr_functor import ExprMutator, ExprVisitor
from ..struct_info import TensorStructInfo, shape_values

__all__ = ["FuseTIR", "fuse_primitive"]


class _Names:
    """Unique names within one fused function."""

    def __init__(self):
        self.used: set[str] = set()

    def fresh(self, base: str) -> str:
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name


class _Inliner(IRMutator):
    """Copies one callee body into the fused function (see module docstring)."""

    def __init__(self, buffers: dict, shape_vars: dict, names: _Names, block_names: _Names):
        super().__init__()
        self.buffers, self.shape_vars = buffers, shape_vars
        self.names, self.block_names = names, block_names

    def visit_Var(self, v):  # noqa: N802 - visitor naming
        if id(v) in self.shape_vars:
            return self.shape_vars[id(v)]
        return type(v)(v.name, v.dtype, v.type_annotation)

    def visit_Buffer(self, b):  # noqa: N802
        if id(b) in self.buffers:
            return self.buffers[id(b)]
        from ember.ir import replace

        copy = self.generic_visit(b)  # fresh data var, shape in the fused function's symbols
        return replace(copy, name=self.names.fresh(b.name))

    def visit_Block(self, blk):  # noqa: N802
        new = self.generic_visit(blk)
        from ember.ir import replace

        return replace(new, name_hint=self.block_names.fresh(blk.name_hint))


def _root_parts(func: PrimFunc):
    """(body statement, root alloc_buffers) of a PrimFunc made by TE or TVMScript."""
    body = func.body
    if isinstance(body, BlockRealize) and not body.block.iter_vars and body.block.name_hint == "root":
        return body.block.body, body.block.alloc_buffers
    return body, ()


def _bind_shape_vars(callee_buf: Buffer, new_buf: Buffer, shape_vars: dict) -> None:
    for old, new in zip(callee_buf.shape, new_buf.shape):
        if isinstance(old, TirVar) and id(old) not in shape_vars:
            shape_vars[id(old)] = new


def fuse_primitive(func: Function, mod: IRModule) -> PrimFunc:
    """One PrimFunc computing the Primitive function ``func`` (its callees looked up in ``mod``)."""
    names, block_names = _Names(), _Names()
    sym: dict[int, TirVar] = {}

    def dims(sinfo: TensorStructInfo):
        values = shape_values(sinfo)
        if values is None:
            raise ValueError(f"FuseTIR: tensors of a fused function need known shapes, got {sinfo}")
        from ember.tir.functor import substitute

        def fresh(v):
            if isinstance(v, TirVar):
                if id(v) not in sym:
                    sym[id(v)] = TirVar(v.name, v.dtype)
                return sym[id(v)]
            return None

        return tuple(substitute(d, fresh) for d in values)

    relax_buffers: dict[int, Buffer] = {}
    params, buffer_map = [], {}
    for p in func.params:
        if not isinstance(p.struct_info, TensorStructInfo):
            raise TypeError(f"FuseTIR: parameter {p.name_hint} of a fused function must be a tensor, got {p.struct_info}")
        buf = decl_buffer(dims(p.struct_info), p.struct_info.dtype, names.fresh(p.name_hint))
        handle = TirVar(f"p_{buf.name}", "handle")
        params.append(handle)
        buffer_map[handle] = buf
        relax_buffers[id(p)] = buf
    bindings = [b for block in func.body.blocks for b in block.bindings]
    out_var = func.body.body
    allocs: list[Buffer] = []
    stmts = []
    for b in bindings:
        call = b.value
        if not (isinstance(call, Call) and isinstance(call.op, Op) and call.op.name == "relax.call_tir"):
            raise ValueError(f"FuseTIR: a fused function may only hold call_tir bindings, got {b.value}")
        callee = mod[call.args[0]]
        out_sinfo = b.var.struct_info
        is_out = b.var is out_var
        out_buf = decl_buffer(dims(out_sinfo), out_sinfo.dtype, names.fresh(b.var.name_hint if not is_out else "T_out"))
        relax_buffers[id(b.var)] = out_buf
        if is_out:
            handle = TirVar(f"p_{out_buf.name}", "handle")
            params.append(handle)
            buffer_map[handle] = out_buf
        else:
            allocs.append(out_buf)
        args = list(call.args[1].fields) + [b.var]
        if len(args) != len(callee.params):
            raise ValueError(f"FuseTIR: {call.args[0].name_hint} takes {len(callee.params)} buffers, "
                             f"the call passes {len(args)}")
        buffers, shape_vars = {}, {}
        for arg, handle in zip(args, callee.params):
            callee_buf = callee.buffer_map[handle]
            new_buf = relax_buffers[id(arg)]
            buffers[id(callee_buf)] = new_buf
            _bind_shape_vars(callee_buf, new_buf, shape_vars)
        body, own_allocs = _root_parts(callee)
        inliner = _Inliner(buffers, shape_vars, names, block_names)
        stmts.append(inliner.visit(body))
        allocs.extend(inliner.visit(buf) for buf in own_allocs)
    root = Block((), (), (), "root", seq(*stmts), None, tuple(allocs))
    body = BlockRealize((), const(True, "bool"), root)
    return PrimFunc(tuple(params), body, None, buffer_map, {"tir.noalias": True})


def _lift_constants(func: Function) -> tuple[Function, list]:
    """FuseOps makes constants parameters; a hand-written Primitive function may hold some."""
    consts: list[Constant] = []

    class _Find(ExprVisitor):
        def visit_constant_(self, op):
            consts.append(op)

    _Find().visit_expr(func.body)
    if not consts:
        return func, []
    params = [Var(f"const{i}", c.struct_info) for i, c in enumerate(consts)]
    by_id = {id(c): p for c, p in zip(consts, params)}

    class _Swap(ExprMutator):
        def visit_constant_(self, op):
            return by_id.get(id(op), op)

    body = _Swap().visit_expr(func.body)
    return Function(list(func.params) + params, body, func.ret_struct_info, func.is_pure, func.attrs), consts


class _CallSites(ExprMutator):
    def __init__(self, mod, fused: dict):
        super().__init__(mod)
        self.fused = fused  # Primitive GlobalVar name → (PrimFunc GlobalVar, extra const args)

    def visit_call_(self, op: Call):
        call = super().visit_call_(op)
        if isinstance(call.op, GlobalVar) and call.op.name_hint in self.fused:
            prim_gv, extra = self.fused[call.op.name_hint]
            from ..op.call import call_tir

            return call_tir(prim_gv, list(call.args) + extra, call.struct_info)
        return call


def _referenced_globals(mod: IRModule) -> set[str]:
    names: set[str] = set()

    class _Refs(ExprVisitor):
        def visit_global_var_(self, op):
            names.add(op.name_hint)

    for f in mod.functions.values():
        if isinstance(f, Function):
            _Refs().visit_expr(f)
    return names


def FuseTIR() -> Pass:  # noqa: N802 - TVM's name
    """TVM's ``relax.transform.FuseTIR`` (see module docstring)."""

    def run(mod: IRModule, ctx) -> IRModule:
        primitives = {gv: f for gv, f in mod.functions.items()
                      if isinstance(f, Function) and f.attrs.get("Primitive")}
        if not primitives:
            return mod
        out = mod.copy()
        fused, callees = {}, set()
        for gv, f in primitives.items():
            callees |= _referenced_globals(IRModule({gv: f}))
            f, consts = _lift_constants(f)
            prim = fuse_primitive(f, mod)
            del out[gv]
            prim_gv = GlobalVar(gv.name_hint)
            out[prim_gv] = prim
            fused[gv.name_hint] = (prim_gv, consts)
        sites = _CallSites(out, fused)
        for gv, f in list(out.functions.items()):
            if isinstance(f, Function):
                out[gv] = sites.visit_expr(f)
        used = _referenced_globals(out)
        for gv, f in list(out.functions.items()):
            if isinstance(f, PrimFunc) and gv.name_hint in callees and gv.name_hint not in used:
                del out[gv]
        return out

    # TVM's FuseTIR runs the same sequence: tuple parameters expanded, unused ones dropped,
    # the fusion, then dead code removed
    from ember.transform import Sequential

    from .dead_code_elimination import DeadCodeElimination
    from .expand_tuple_arguments import ExpandTupleArguments
    from .remove_unused_parameters import RemoveUnusedParameters

    inner = module_pass(run, opt_level=0, name="FuseTIRInner")
    return Sequential([ExpandTupleArguments(), RemoveUnusedParameters(), inner, DeadCodeElimination()],
                      name="FuseTIR")
