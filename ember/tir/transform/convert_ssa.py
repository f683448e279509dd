"""ConvertSSA: give every variable exactly one definition in the whole module.

A Var (or Buffer) object defined twice — two sibling ``LetStmt``s binding the same Var,
a nested rebinding, one Var as the parameter of two functions, one Buffer object in
two functions' ``buffer_map`` — breaks passes that key information by variable.
Walking the module in order, each definition of an already-defined Var gets a fresh
copy (same name and dtype) used within that definition's scope; Buffers whose data
or shape Vars were renamed are rebuilt.  ``thread_extent`` attributes that share one
thread Var within a function define it once for the whole function (several launches
of ``threadIdx.x`` are one axis).  A module that is already SSA is returned as is.
"""

from __future__ import annotations

import copy

from ember.ir import IRModule, Var, replace
from ember.transform import Pass, module_pass

from ..buffer import Buffer
from ..function import PrimFunc
from ..functor import IRMutator
from ..stmt import IterVar

__all__ = ["convert_ssa", "ConvertSSA"]


class _SSAConverter(IRMutator):
    def __init__(self):
        super().__init__()
        self.defined: set[int] = set()  # ids of Vars defined so far, module-wide
        self.keep: list = []  # keeps defined Vars alive so their ids stay unique
        self.scopes: dict[int, list[Var]] = {}  # id(original Var) -> stack of replacements
        self.buffers: dict[int, Buffer] = {}
        self.thread_vars: dict[int, Var] = {}  # this function's thread Vars

    # -- definitions and uses ------------------------------------------------------------
    def define(self, var: Var) -> Var:
        """Define ``var`` here: itself the first time, a fresh copy after that."""
        new = var
        if id(var) in self.defined:
            new = copy.copy(var)  # same class, name, dtype and annotation; a new identity
        self.defined.add(id(var))
        self.keep.append(var)
        self.scopes.setdefault(id(var), []).append(new)
        return new

    def undefine(self, var: Var) -> None:
        self.scopes[id(var)].pop()

    def visit(self, x):
        if isinstance(x, Var):
            stack = self.scopes.get(id(x))
            return stack[-1] if stack else x
        if isinstance(x, Buffer):
            return self.remap_buffer(x)
        return super().visit(x)

    def remap_buffer(self, buf: Buffer) -> Buffer:
        data = self.visit(buf.data)
        shape = tuple(self.visit(s) for s in buf.shape)
        strides = tuple(self.visit(s) for s in buf.strides)
        offset = self.visit(buf.elem_offset) if buf.elem_offset is not None else None
        same = data is buf.data and all(a is b for a, b in zip(shape, buf.shape)) \
            and all(a is b for a, b in zip(strides, buf.strides)) and offset is buf.elem_offset
        if same:
            return buf
        key = (id(buf), id(data))
        cached = self.buffers.get(key)
        if cached is None:
            cached = replace(buf, data=data, shape=shape, strides=strides, elem_offset=offset)
            self.buffers[key] = cached
            self.keep.append(buf)
        return cached

    def define_buffer(self, buf: Buffer) -> tuple[Buffer, list[Var]]:
        """Define the Vars a buffer introduces (data, plain-Var shape entries)."""
        defined = []
        for v in (buf.data, *buf.shape, *buf.strides, buf.elem_offset):
            if isinstance(v, Var) and not self.scopes.get(id(v)) and v not in defined:
                self.define(v)
                defined.append(v)
        return self.remap_buffer(buf), defined

    def scoped(self, var: Var, rebuild):
        new = self.define(var)
        try:
            return rebuild(new)
        finally:
            self.undefine(var)

    # -- statements and expressions that define Vars ---------------------------------------
    def visit_LetStmt(self, let):
        value = self.visit(let.value)
        return self.scoped(let.var, lambda v: _same_or(let, var=v, value=value,
                                                      body=self.visit(let.body)))

    def visit_Let(self, let):
        value = self.visit(let.value)
        return self.scoped(let.var, lambda v: _same_or(let, var=v, value=value,
                                                      body=self.visit(let.body)))

    def visit_For(self, loop):
        lo, extent = self.visit(loop.min), self.visit(loop.extent)
        binding = loop.thread_binding
        return self.scoped(loop.loop_var, lambda v: _same_or(
            loop, loop_var=v, min=lo, extent=extent, body=self.visit(loop.body),
            thread_binding=binding))

    def visit_Allocate(self, alloc):
        extents = self.visit(alloc.extents)
        condition = self.visit(alloc.condition)
        return self.scoped(alloc.buffer_var, lambda v: _same_or(
            alloc, buffer_var=v, extents=extents, condition=condition, body=self.visit(alloc.body)))

    def visit_DeclBuffer(self, decl):
        buf, defined = self.define_buffer(decl.buffer)
        try:
            return _same_or(decl, buffer=buf, body=self.visit(decl.body))
        finally:
            for v in defined:
                self.undefine(v)

    def visit_Block(self, block):
        defined = []
        iter_vars = []
        for iv in block.iter_vars:
            dom = self.visit(iv.dom)
            new = self.define(iv.var)
            defined.append(iv.var)
            iter_vars.append(iv if new is iv.var and dom is iv.dom else replace(iv, var=new, dom=dom))
        allocs = []
        for buf in block.alloc_buffers:
            new, more = self.define_buffer(buf)
            allocs.append(new)
            defined += more
        matches = []
        for match in block.match_buffers:
            source = self.visit(match.source)
            new, more = self.define_buffer(match.buffer)
            defined += more
            matches.append(match if new is match.buffer and source is match.source
                           else replace(match, buffer=new, source=source))
        try:
            return _same_or(
                block, iter_vars=tuple(iter_vars), alloc_buffers=tuple(allocs),
                match_buffers=tuple(matches), reads=self.visit(block.reads),
                writes=self.visit(block.writes), init=self.visit(block.init),
                body=self.visit(block.body))
        finally:
            for v in reversed(defined):
                self.undefine(v)

    def visit_AttrStmt(self, stmt):
        node = stmt.node
        if stmt.attr_key == "thread_extent" and isinstance(node, IterVar):
            var = node.var
            if id(var) not in self.thread_vars:  # the first launch defines it for the function
                self.thread_vars[id(var)] = self.define(var)
            new_var = self.thread_vars[id(var)]
            new_node = node if new_var is var else replace(node, var=new_var)
            return _same_or(stmt, node=new_node, value=self.visit(stmt.value),
                            body=self.visit(stmt.body))
        return self.generic_visit(stmt)

    # -- functions ----------------------------------------------------------------------
    def convert(self, func: PrimFunc) -> PrimFunc:
        self.thread_vars = {}
        self.buffers = {}
        params = tuple(self.define(p) for p in func.params)
        buffer_map = {}
        for p, new_p in zip(func.params, params):
            if p in func.buffer_map:
                buffer_map[new_p], _ = self.define_buffer(func.buffer_map[p])
        body = self.visit(func.body)
        changed = body is not func.body or any(a is not b for a, b in zip(params, func.params)) \
            or any(buffer_map[n] is not func.buffer_map[o]
                   for o, n in zip(func.params, params) if o in func.buffer_map)
        self.scopes = {}  # definitions end with the function; `defined` stays module-wide
        if not changed:
            return func
        return replace(func, params=params, buffer_map=buffer_map, body=body)


def _same_or(original, /, **fields):
    """``original`` itself when no field changed, else a copy with the new fields."""
    changes = {k: v for k, v in fields.items() if v is not getattr(original, k)}
    return replace(original, **changes) if changes else original


def convert_ssa(mod: IRModule) -> IRModule:
    """``mod`` with every Var and Buffer defined once (the same object when already SSA)."""
    converter = _SSAConverter()
    functions = {}
    changed = False
    for gv, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            new = converter.convert(func)
            changed |= new is not func
            func = new
        functions[gv] = func
    return mod.with_functions(functions) if changed else mod


def ConvertSSA() -> Pass:  # noqa: N802 - TVM's name
    """The pass form of :func:`convert_ssa`."""
    return module_pass(lambda mod, ctx: convert_ssa(mod), opt_level=0, name="tir.ConvertSSA")
