"""verify_well_formed: the executable spec of TensorIR scoping and typing.

Checks, for a PrimFunc (or every PrimFunc of an IRModule):

* every Var used is defined — by a parameter, a ``buffer_map`` buffer (its data Var
  and the Vars in its shape / strides / offset), a loop, a ``LetStmt`` / ``Let``, a
  block iterator, an ``Allocate``, a block allocation or match buffer, a thread
  ``AttrStmt`` or a ``BufferRealize`` of a new buffer — and is used only where that
  definition is in scope (so a block iterator is only used inside its block);
* every buffer accessed has a defined ``data`` Var and gets one index per dimension;
* a ``BufferStore``'s value has the buffer's dtype (times the index lanes);
* loop bounds are integers;
* a Var is not defined again inside its own scope, a LetStmt's Var is bound once, and a
  PrimFunc of a module does not define a Var another one defines (each kernel has its own
  thread Vars, which a kernel may bind at several ``thread_extent`` sites);
* a block with iterators does not use the loop Vars around it (it sees them only through
  its iterators' bindings); an opaque block (no iterators) may.

Errors name the problem and the path of nodes leading to it.
"""

from __future__ import annotations

from ember.ir import IRModule, Node, Var

from ..buffer import Buffer, BufferLoad
from ..function import PrimFunc
from ..functor import IRVisitor, collect
from ..stmt import IterVar

__all__ = ["verify_well_formed", "WellFormedError"]


class WellFormedError(ValueError):
    """Raised by :func:`verify_well_formed` in assert mode; ``path`` locates the node."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


def _label(node: Node) -> str:
    kind = type(node).__name__
    for attr in ("name_hint", "loop_var", "buffer", "var", "buffer_var"):
        value = getattr(node, attr, None)
        if isinstance(value, str):
            return f"{kind}({value})"
        if isinstance(value, Var | Buffer):
            return f"{kind}({value.name})"
    return kind


class _Checker(IRVisitor):
    def __init__(self, block_iters: dict[int, str], other_funcs: dict | None = None):
        self.scope: dict[int, int] = {}
        self.keep: list = []
        self.block_iters = block_iters
        self.path: list[str] = []
        self.errors: list[tuple[str, str]] = []
        self.ever: set[int] = set()  # every Var defined so far in this function
        self.let_bound: set[int] = set()
        self.other_funcs = other_funcs if other_funcs is not None else {}  # id(var) -> function name
        self.loop_vars: list = []  # loop Vars in scope, innermost last
        self.hidden: dict[int, str] = {}  # loop Vars a block with iterators may not use -> block name

    # -- scoping -----------------------------------------------------------------
    def define(self, var, kind: str = "") -> None:
        if isinstance(var, Var):
            if self.scope.get(id(var)) and kind != "thread":
                self.error(f"ill-formed, due to multiple nested definitions of variable {var.name}")
            elif kind == "let" and id(var) in self.let_bound:
                self.error(f"ill-formed, due to multiple definitions of variable {var.name}")
            elif id(var) in self.other_funcs and id(var) not in self.ever:
                self.error(f"ill-formed, due to multiple definitions of variable {var.name} "
                           f"(also defined in {self.other_funcs[id(var)]!r})")
            if kind == "let":
                self.let_bound.add(id(var))
            self.ever.add(id(var))
            self.scope[id(var)] = self.scope.get(id(var), 0) + 1
            self.keep.append(var)

    def undefine(self, var) -> None:
        if isinstance(var, Var):
            self.scope[id(var)] -= 1

    def define_buffer_symbols(self, buf: Buffer) -> list:
        names = [buf.data, *buf.shape, *buf.strides, buf.elem_offset]
        defined = [v for v in names if isinstance(v, Var) and not self.scope.get(id(v))]
        for v in defined:
            self.define(v)
        return defined

    def error(self, message: str) -> None:
        self.errors.append((message, " > ".join(self.path) or "<root>"))

    def within(self, node, fn) -> None:
        self.path.append(_label(node))
        try:
            fn()
        finally:
            self.path.pop()

    # -- expressions ---------------------------------------------------------------
    def visit_Var(self, var: Var) -> None:
        if self.scope.get(id(var)):
            owner = self.hidden.get(id(var))
            if owner is not None:
                self.error(f"loop variable {var.name} is used inside block {owner!r}, which has "
                           "iterators of its own (use a block iterator bound to it)")
            return
        block = self.block_iters.get(id(var))
        if block is not None:
            self.error(f"block iterator {var.name!r} of block {block!r} is used outside its block")
        elif id(var) in self.ever:
            where = " > ".join(self.path) or "<root>"
            self.error(f"Invalid use of undefined variable {var.name} at {where}: Var {var.name!r} "
                       f"({var.dtype}) is used but not defined in this scope (it was defined earlier, "
                       "but is no longer in-scope.)")
        else:
            self.error(f"Var {var.name!r} ({var.dtype}) is used but not defined in this scope")

    def visit_Let(self, let) -> None:  # a Let expression may appear more than once (shared)
        self.visit(let.value)
        self.define(let.var)
        self.visit(let.body)
        self.undefine(let.var)

    def visit_Buffer(self, buf: Buffer) -> None:
        if not self.scope.get(id(buf.data)):
            self.error(f"buffer {buf.name!r} is used but its data Var {buf.data.name!r} is not defined")

    def visit_BufferLoad(self, load: BufferLoad) -> None:
        self._check_access(load, load.buffer, load.indices)

    def _check_access(self, node, buf: Buffer, indices) -> None:
        def check():
            self.visit(buf)
            self.visit(indices)
            if len(indices) != len(buf.shape):
                self.error(
                    f"buffer {buf.name!r} has {len(buf.shape)} dimensions but is accessed "
                    f"with {len(indices)} indices"
                )

        self.within(node, check)

    # -- statements ----------------------------------------------------------------
    def visit_BufferStore(self, store) -> None:
        buf = store.buffer

        def check():
            lanes = 1
            for index in store.indices:
                lanes *= index.dtype.lanes
            expected = buf.dtype.with_lanes(buf.dtype.lanes * lanes)
            if store.value.dtype != expected:
                self.error(
                    f"BufferStore to {buf.name!r} expects a value of dtype {expected}, "
                    f"got {store.value.dtype}"
                )
            self.visit(store.value)

        self.within(store, check)
        self._check_access(store, buf, store.indices)

    def visit_For(self, loop) -> None:
        def check():
            for name in ("min", "extent"):
                value = getattr(loop, name)
                if not (value.dtype.is_integer and value.dtype.lanes == 1):
                    self.error(f"loop {loop.loop_var.name!r} needs an integer {name}, got {value.dtype}")
            self.visit(loop.min)
            self.visit(loop.extent)
            self.define(loop.loop_var)
            self.loop_vars.append(loop.loop_var)
            self.visit(loop.body)
            self.loop_vars.pop()
            self.undefine(loop.loop_var)

        self.within(loop, check)

    def visit_LetStmt(self, let) -> None:
        def check():
            self.visit(let.value)
            self.define(let.var, "let")
            self.visit(let.body)
            self.undefine(let.var)

        self.within(let, check)

    def visit_Allocate(self, alloc) -> None:
        def check():
            self.visit(alloc.extents)
            self.visit(alloc.condition)
            self.define(alloc.buffer_var)
            self.visit(alloc.body)
            self.undefine(alloc.buffer_var)

        self.within(alloc, check)

    def visit_DeclBuffer(self, decl) -> None:
        def check():
            self.visit(decl.buffer.shape)
            defined = self.define_buffer_symbols(decl.buffer)
            self.visit(decl.body)
            for v in defined:
                self.undefine(v)

        self.within(decl, check)

    def visit_AttrStmt(self, attr) -> None:
        def check():
            self.visit(attr.value)
            iv = attr.node if isinstance(attr.node, IterVar) else None
            if iv is not None:
                self.define(iv.var, "thread")
            bound = []  # buffer_bind_scope: the view buffer (and its symbols) exist in the body
            if attr.attr_key == "buffer_bind_scope" and isinstance(attr.node, list | tuple) and attr.node:
                if isinstance(attr.node[0], Buffer):
                    bound = self.define_buffer_symbols(attr.node[0])
                self.visit(attr.node[1:])
            self.visit(attr.body)
            for v in bound:
                self.undefine(v)
            if iv is not None:
                self.undefine(iv.var)

        self.within(attr, check)

    def visit_BufferRealize(self, realize) -> None:
        def check():  # realizing a buffer not defined yet allocates it for the body
            self.visit(realize.bounds)
            self.visit(realize.condition)
            defined = self.define_buffer_symbols(realize.buffer)
            self.visit(realize.body)
            for v in defined:
                self.undefine(v)

        self.within(realize, check)

    def visit_IterVar(self, iv: IterVar) -> None:
        self.visit(iv.dom)

    def visit_BlockRealize(self, realize) -> None:
        def check():
            self.visit(realize.iter_values)
            self.visit(realize.predicate)
            self.visit(realize.block)

        self.within(realize, check)

    def visit_Block(self, block) -> None:
        def check():
            for iv in block.iter_vars:
                self.visit(iv.dom)
            for iv in block.iter_vars:
                self.define(iv.var)
            hidden_before = dict(self.hidden)
            if block.iter_vars:  # the loops around are seen only through the bindings
                for v in self.loop_vars:
                    self.hidden.setdefault(id(v), block.name_hint)
            defined = []
            for buf in block.alloc_buffers:
                defined += self.define_buffer_symbols(buf)
            for match in block.match_buffers:
                self.visit(match.source)
                defined += self.define_buffer_symbols(match.buffer)
            self.visit(block.reads)
            self.visit(block.writes)
            if block.init is not None:
                self.visit(block.init)
            self.visit(block.body)
            for v in defined:
                self.undefine(v)
            for iv in block.iter_vars:
                self.undefine(iv.var)
            self.hidden = hidden_before

        self.within(block, check)

    def check_func(self, func: PrimFunc) -> None:
        for p in func.params:
            self.define(p)
        for buf in func.buffer_map.values():
            self.define_buffer_symbols(buf)
            # a parameter's shape may be an expression (``n * 32``): matching the argument
            # defines every Var in it, as in TVM
            for expr in (*buf.shape, *buf.strides, buf.elem_offset):
                for v in collect(expr, lambda x: isinstance(x, Var)):
                    if not self.scope.get(id(v)):
                        self.define(v)
        self.visit(func.body)


def _block_iterators(func: PrimFunc) -> dict[int, str]:
    found: dict[int, str] = {}

    def visit(x):
        if type(x).__name__ == "Block":
            for iv in x.iter_vars:
                found[id(iv.var)] = x.name_hint

    from ..functor import post_order_visit

    post_order_visit(func.body, visit)
    return found


def verify_well_formed(func_or_mod, assert_mode: bool = True) -> bool:
    """Check ``func_or_mod`` (a PrimFunc or an IRModule); raise or return False when ill-formed."""
    if isinstance(func_or_mod, IRModule):
        funcs = [(gv.name_hint, f) for gv, f in func_or_mod.functions.items() if isinstance(f, PrimFunc)]
    elif isinstance(func_or_mod, PrimFunc):
        funcs = [(func_or_mod.attrs.get("global_symbol", "<PrimFunc>"), func_or_mod)]
    else:
        raise TypeError(
            f"verify_well_formed: expected a PrimFunc or an IRModule for func_or_mod, "
            f"got {type(func_or_mod).__name__}"
        )
    defined_by: dict[int, str] = {}  # Vars each function defines, to refuse sharing them
    for name, func in funcs:
        checker = _Checker(_block_iterators(func), defined_by)
        checker.check_func(func)
        for var in checker.keep:
            defined_by.setdefault(id(var), name)
        if checker.errors:
            if not assert_mode:
                return False
            message, path = checker.errors[0]
            more = f" (and {len(checker.errors) - 1} more problems)" if len(checker.errors) > 1 else ""
            raise WellFormedError(f"ill-formed PrimFunc {name!r}: {message}; at {path}{more}", path)
    return True
