"""CodeGenLLVM: lowered TIR PrimFuncs → one LLVM module (llvmlite.ir), statement by statement.

Functions follow the packed ABI of ``make_packed_api`` (``i32 fn(i64* args, i32 n)``).
``AttrStmt("compute_scope")`` bodies are outlined into an internal function whose
buffer pointers are ``noalias``; PARALLEL loops are outlined and launched with
libgomp's ``GOMP_parallel`` (``parallel.py``: how the threads claim runs of iterations,
``PARALLEL_CLAIMS_PER_THREAD`` and ``PARALLEL_OWN_SEGMENTS`` below), each run in an
internal ``noalias`` function.  An AssertStmt returns
its check index + 1 (from a parallel chunk: through a status slot the launcher reads).  Expressions are in ``expr.py``, intrinsic calls in ``intrinsics.py``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from llvmlite import ir

from ember.ir import Cast, IntImm, Mul, StringImm, Var
from ember.runtime.library import kernel_symbol
from ember.tir import (
    Allocate, AssertStmt, AttrStmt, Block, BlockRealize, BufferStore, DeclBuffer, Evaluate, For,
    ForKind, IfThenElse, LetStmt, PrimFunc, SeqStmt, While, collect,
)

from .expr import NONTEMPORAL_STORE, CodegenError, ExprEmitter, is_zero
from .parallel import emit_parallel_for
from .types import I1, I32, I64, PTR, VOID, llvm_type, memory_type

__all__ = ["CodeGenLLVM", "CodegenError", "STACK_ALLOCA_LIMIT"]

log = logging.getLogger(__name__)
STACK_ALLOCA_LIMIT = 64 * 1024  # bytes; larger or symbolic Allocates use the heap
_HEAP_ALIGN = 64


@dataclass
class _Frame:
    """Per-function emission state: swapped when a body is outlined."""

    function: ir.Function
    builder: ir.IRBuilder
    entry: ir.IRBuilder  # appends allocas to the entry block
    vars: dict
    heap: list = field(default_factory=list)  # live heap Allocates, freed on an early return


def _float_flags(attrs) -> tuple[str, ...]:
    """LLVM fast-math flags on float ops: "-fast-math" lets LLVM reassociate (vectorised
    reductions); "-fast-math-contract" only lets a*b+c fuse into one FMA (GEMM kernels).
    Neither by default, so results match numpy and the TIR interpreter bit for bit."""
    if attrs.get("fast-math"):
        return ("fast",)
    return ("contract",) if attrs.get("fast-math-contract") else ()


class CodeGenLLVM(ExprEmitter):
    """Accumulates functions into ``self.module``; ``add_function`` per PrimFunc."""

    def __init__(self, target, module_name: str = "ember"):
        self.target = target
        self.module = ir.Module(name=module_name)
        self.strings: dict[str, ir.GlobalVariable] = {}
        self.checks: list[str] = []
        self.in_parallel = False
        # an explicit -num-cores is compiled in; otherwise 0: OpenMP's current team size,
        # which ember.runtime.set_num_threads changes for kernels already compiled
        self.num_threads = int((getattr(target, "attrs", None) or {}).get("num-cores") or 0)
        self.noalias = True
        self.nontemporal_stores = False  # inside a loop annotated NONTEMPORAL_STORE
        self.float_flags = _float_flags(getattr(target, "attrs", {}))
        self._frame: _Frame | None = None
        self._name = ""
        self._counter = 0

    # -- frame plumbing ----------------------------------------------------------------------
    @property
    def builder(self) -> ir.IRBuilder:
        return self._frame.builder

    @property
    def vars(self) -> dict:
        return self._frame.vars

    @property
    def function(self) -> ir.Function:
        return self._frame.function

    def new_block(self, name: str) -> ir.Block:
        return self.function.append_basic_block(name)

    def branch_value(self, cond: ir.Value, then_fn, else_fn, name: str) -> ir.Value:
        """The value of ``then_fn()`` or ``else_fn()`` as ``cond`` says, only the taken side
        evaluated: blocks ``<name>_then`` / ``<name>_else`` joined by a phi in ``<name>_end``."""
        b = self.builder
        then_bb, else_bb, end_bb = self.new_block(name + "_then"), self.new_block(name + "_else"), self.new_block(name + "_end")
        b.cbranch(cond, then_bb, else_bb)
        values = []
        for block, fn in ((then_bb, then_fn), (else_bb, else_fn)):
            b.position_at_end(block)
            values.append((fn(), b.block))
            b.branch(end_bb)
        b.position_at_end(end_bb)
        phi = b.phi(values[0][0].type)
        for value, block in values:
            phi.add_incoming(value, block)
        return phi

    def _enter(self, fn: ir.Function, vars: dict) -> _Frame:
        """Start emitting ``fn``: an ``entry`` block for allocas, code from ``body`` on."""
        entry = fn.append_basic_block("entry")
        body = fn.append_basic_block("body")
        previous = self._frame
        self._frame = _Frame(fn, ir.IRBuilder(body), ir.IRBuilder(entry), vars)
        return previous

    def _leave(self, previous: _Frame | None) -> None:
        frame = self._frame
        frame.entry.branch(frame.function.blocks[1])
        self._frame = previous

    def _unique(self, stem: str) -> str:
        self._counter += 1
        return f"{self._name}_{stem}{self._counter}"

    # -- functions ---------------------------------------------------------------------------
    def add_function(self, func: PrimFunc, name: str) -> list[str]:
        """Emit ``func`` as the external function ``name`` (symbol ``kernel_symbol(name)``, so a
        kernel named after a libm function cannot capture the calls to it); returns its check
        messages."""
        self.checks = []
        self._name = name = kernel_symbol(name)
        self.noalias = bool(func.attrs.get("tir.noalias", True))
        # a kernel scheduled by ember.dlight may allow a*b+c -> FMA for itself only
        self.float_flags = _float_flags(getattr(self.target, "attrs", {}))
        if not self.float_flags:
            # ... and may divide by multiplying with a reciprocal LLVM hoists out of the loop
            self.float_flags = tuple(flag for attr, flag in (("ember.fast_math_contract", "contract"),
                                                             ("ember.fast_math_reciprocal", "arcp"))
                                     if func.attrs.get(attr))
        arg_types = [self._param_type(p) for p in func.params]
        fn = ir.Function(self.module, ir.FunctionType(I32, arg_types), name)
        vars = {}
        for param, arg in zip(func.params, fn.args):
            arg.name = param.name
            vars[param] = arg
        previous = self._enter(fn, vars)
        try:
            self.emit_stmt(func.body)
            if not self.builder.block.is_terminated:
                self.builder.ret(ir.Constant(I32, 0))
        finally:
            self._leave(previous)
        return list(self.checks)

    @staticmethod
    def _param_type(param: Var) -> ir.Type:
        return llvm_type(param.dtype)  # handles (the packed ABI's uint64_t* args too) are i8*

    def emit_return(self, value: ir.Value, dtype) -> None:
        """Return ``value`` (an int status) from the current function and continue in dead code;
        heap buffers allocated by enclosing Allocates are freed first."""
        b = self.builder
        for ptr in reversed(self._frame.heap):
            b.call(self._libc("free", VOID, [PTR]), [ptr])
        if value.type != I32:
            value = b.trunc(value, I32) if value.type.width > 32 else b.zext(value, I32)
        b.ret(value)
        b.position_at_end(self.new_block("after_return"))

    # -- statements --------------------------------------------------------------------------
    def emit_stmt(self, s) -> None:
        method = _STMT.get(type(s))
        if method is None:
            hint = _UNLOWERED.get(type(s).__name__)
            if hint:
                raise CodegenError(f"the LLVM code generator got a {type(s).__name__}; it should have been "
                                   f"removed by {hint} (run ember.tir.transform.lower_for_codegen first)")
            raise CodegenError(f"the LLVM code generator cannot emit statement {type(s).__name__}")
        method(self, s)

    def _seq(self, s: SeqStmt) -> None:
        for stmt in s.seq:
            self.emit_stmt(stmt)

    def _evaluate(self, s: Evaluate) -> None:
        if not isinstance(s.value, IntImm):
            self.emit(s.value)

    def _store(self, s: BufferStore) -> None:
        value = self.emit(s.value)
        lanes = 1
        for index in s.indices:
            lanes *= index.dtype.lanes
        if lanes > 1 and s.value.dtype.lanes == 1:
            value = self.splat(value, lanes)
        self.access(s.buffer, s.indices, value)

    def _let_stmt(self, s: LetStmt | AssertStmt) -> None:
        """A chain of LetStmts and AssertStmts (the packed-API prologue nests one per check) is
        emitted in a loop: recursing once per link overflows Python's stack for many arguments."""
        saved: list[tuple[Var, ir.Value | None]] = []
        try:
            while isinstance(s, LetStmt | AssertStmt):
                if isinstance(s, LetStmt):
                    value = self.emit(s.value)
                    saved.append((s.var, self.vars.get(s.var)))
                    self.vars[s.var] = value
                else:
                    self._check(s)
                s = s.body
            self.emit_stmt(s)
        finally:
            for var, previous in reversed(saved):
                if previous is None:
                    self.vars.pop(var, None)
                else:
                    self.vars[var] = previous

    def _scoped(self, var: Var, value: ir.Value, body) -> None:
        """Bind ``var`` while ``body()`` is emitted, then restore: a value must not leak out
        of the blocks it dominates (outlining passes every bound var it sees)."""
        previous = self.vars.get(var)
        self.vars[var] = value
        try:
            body()
        finally:
            if previous is None:
                self.vars.pop(var, None)
            else:
                self.vars[var] = previous

    def _decl_buffer(self, s: DeclBuffer) -> None:
        self.emit_stmt(s.body)

    def _if(self, s: IfThenElse) -> None:
        b = self.builder
        cond = self.emit(s.condition)
        then_bb, end_bb = self.new_block("then"), self.new_block("endif")
        else_bb = self.new_block("else") if s.else_case is not None else end_bb
        b.cbranch(cond, then_bb, else_bb)
        b.position_at_end(then_bb)
        self.emit_stmt(s.then_case)
        b.branch(end_bb)
        if s.else_case is not None:
            b.position_at_end(else_bb)
            self.emit_stmt(s.else_case)
            b.branch(end_bb)
        b.position_at_end(end_bb)

    def _while(self, s: While) -> None:
        b = self.builder
        head, body, end = self.new_block("while_head"), self.new_block("while_body"), self.new_block("while_end")
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(self.emit(s.condition), body, end)
        b.position_at_end(body)
        self.emit_stmt(s.body)
        b.branch(head)
        b.position_at_end(end)

    def _check(self, s: AssertStmt) -> None:
        """Return the check's status when ``s.condition`` fails (``s.body`` is not emitted)."""
        index = len(self.checks)
        message = s.message.value if isinstance(s.message, StringImm) else str(s.message)
        self.checks.append(message)
        b = self.builder
        cond = self.emit(s.condition)
        ok, fail = self.new_block("check_ok"), self.new_block("check_failed")
        b.cbranch(cond, ok, fail)
        b.position_at_end(fail)
        self.emit_return(ir.Constant(I32, index + 1), None)
        b.branch(ok)
        b.position_at_end(ok)

    def _attr(self, s: AttrStmt) -> None:
        if s.attr_key == "compute_scope":
            self._compute_scope(s)
        else:
            self.emit_stmt(s.body)

    def _allocate(self, s: Allocate) -> None:
        elem = memory_type(s.dtype)
        itemsize = max(s.dtype.bits, 8) // 8 * s.dtype.lanes
        count = 1
        for extent in s.extents:
            count = count * extent.value if isinstance(count, int) and isinstance(extent, IntImm) else None
            if count is None:
                break
        if count is not None and count * itemsize <= STACK_ALLOCA_LIMIT:
            slot = self._frame.entry.alloca(ir.ArrayType(elem, max(count, 1)), name=s.buffer_var.name)
            slot.align = _HEAP_ALIGN
            self._scoped(s.buffer_var, self.builder.bitcast(slot, PTR), lambda: self.emit_stmt(s.body))
            return
        log.debug("%s: Allocate %s goes to the heap (%s)", self._name, s.buffer_var.name,
                  "symbolic size" if count is None else f"{count * itemsize} bytes > {STACK_ALLOCA_LIMIT}")
        b = self.builder
        size, overflow = ir.Constant(I64, itemsize), ir.Constant(I1, 0)
        for extent in s.extents:  # unsigned: a negative extent is a huge size, which fails
            product = b.umul_with_overflow(size, self._index_i64(self.emit(extent), extent.dtype))
            size, overflow = b.extract_value(product, 0), b.or_(overflow, b.extract_value(product, 1))
        too_big = b.or_(overflow, b.icmp_unsigned(">", size, ir.Constant(I64, _MAX_HEAP_BYTES)))
        rounded = b.and_(b.add(size, ir.Constant(I64, _HEAP_ALIGN)), ir.Constant(I64, ~(_HEAP_ALIGN - 1)))
        if count is None:
            self._allocate_symbolic(s, size, too_big, rounded)
            return
        rounded = b.select(too_big, ir.Constant(I64, _FAILING_SIZE), rounded)  # aligned_alloc -> NULL
        ptr = self._heap_alloc(s, rounded)
        self._frame.heap.append(ptr)
        try:
            self._scoped(s.buffer_var, ptr, lambda: self.emit_stmt(s.body))
        finally:
            self._frame.heap.pop()
        self.builder.call(self._libc("free", VOID, [PTR]), [ptr])

    def _heap_alloc(self, s: Allocate, rounded: ir.Value) -> ir.Value:
        b = self.builder
        ptr = b.call(self._libc("aligned_alloc", PTR, [I64, I64]), [ir.Constant(I64, _HEAP_ALIGN), rounded])
        self._fail_if(b.icmp_unsigned("==", ptr, ir.Constant(PTR, None)), _alloc_failure_message(s))
        return ptr

    def _allocate_symbolic(self, s: Allocate, size: ir.Value, too_big: ir.Value, rounded: ir.Value) -> None:
        """An Allocate of symbolic size: on the stack when it turns out small at run time
        (a row buffer inside a loop costs a stack-pointer bump per iteration, where the heap
        costs an allocator call — TVM's CPU runtime takes such buffers from a per-thread
        workspace pool for the same reason), else on the heap; the stack is restored after."""
        b = self.builder
        small = b.and_(b.not_(too_big), b.icmp_unsigned("<=", size, ir.Constant(I64, STACK_ALLOCA_LIMIT)))
        saved = b.call(self._intrinsic("llvm.stacksave.p0", PTR, []), [])
        on_stack, on_heap, join = self.new_block("alloca_stack"), self.new_block("alloca_heap"), self.new_block("alloca_join")
        b.cbranch(small, on_stack, on_heap)
        b.position_at_end(on_stack)
        slot = b.alloca(ir.IntType(8), size=rounded, name=s.buffer_var.name)
        slot.align = _HEAP_ALIGN
        b.branch(join)
        b.position_at_end(on_heap)
        heap = self._heap_alloc(s, b.select(too_big, ir.Constant(I64, _FAILING_SIZE), rounded))
        heap_end = b.block
        b.branch(join)
        b.position_at_end(join)
        ptr = b.phi(PTR, name=s.buffer_var.name + "_ptr")
        ptr.add_incoming(slot, on_stack)
        ptr.add_incoming(heap, heap_end)
        owned = b.phi(PTR)  # what free() must release: NULL for the stack
        owned.add_incoming(ir.Constant(PTR, None), on_stack)
        owned.add_incoming(heap, heap_end)
        self._frame.heap.append(owned)
        try:
            self._scoped(s.buffer_var, ptr, lambda: self.emit_stmt(s.body))
        finally:
            self._frame.heap.pop()
        self.builder.call(self._libc("free", VOID, [PTR]), [owned])
        self.builder.call(self._intrinsic("llvm.stackrestore.p0", VOID, [PTR]), [saved])

    def _fail_if(self, cond: ir.Value, message: str) -> None:
        """Return the status of a new check ``message`` when ``cond`` holds."""
        index = len(self.checks)
        self.checks.append(message)
        b = self.builder
        fail, ok = self.new_block("check_failed"), self.new_block("check_ok")
        b.cbranch(cond, fail, ok)
        b.position_at_end(fail)
        self.emit_return(ir.Constant(I32, index + 1), None)
        b.branch(ok)
        b.position_at_end(ok)

    def _intrinsic(self, name: str, ret: ir.Type, args: list) -> ir.Function:
        return self._libc(name, ret, args)

    def _libc(self, name: str, ret: ir.Type, args: list) -> ir.Function:
        fn = self.module.globals.get(name)
        return fn if fn is not None else ir.Function(self.module, ir.FunctionType(ret, args), name)

    # -- loops -------------------------------------------------------------------------------
    def _for(self, s: For) -> None:
        if s.annotations and s.annotations.get(NONTEMPORAL_STORE) and not self.nontemporal_stores:
            self.nontemporal_stores = True
            try:
                self._for(s)
            finally:
                self.nontemporal_stores = False
            return
        if s.kind == ForKind.THREAD_BINDING:
            raise CodegenError(f"loop {s.loop_var.name!r} is bound to a GPU thread axis; CPU targets cannot "
                               "run thread-bound loops (schedule it for a GPU target or remove the binding)")
        if s.kind == ForKind.PARALLEL and not self.in_parallel:
            self._parallel_for(s)
            return
        if s.kind == ForKind.PARALLEL:
            log.debug("%s: parallel loop %s runs serially: it is nested in a parallel loop", self._name, s.loop_var.name)
        begin = self.emit(s.min)
        end = self.builder.add(begin, self.emit(s.extent)) if not is_zero(s.min) else self.emit(s.extent)
        self.serial_loop(s.loop_var, begin, end, lambda: self.emit_stmt(s.body))

    def serial_loop(self, var: Var, begin: ir.Value, end: ir.Value, body, offset: ir.Value | None = None) -> None:
        """``for i in [begin, end): var = i (+ offset); body()``."""
        b = self.builder
        pre = b.block
        head, body_bb, done = self.new_block("for_head"), self.new_block("for_body"), self.new_block("for_end")
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(begin.type, name=var.name)
        i.add_incoming(begin, pre)
        b.cbranch(self.compare("<", i, end, var.dtype), body_bb, done)
        b.position_at_end(body_bb)
        self._scoped(var, i if offset is None else b.add(i, offset), body)
        nxt = b.add(i, ir.Constant(i.type, 1))
        i.add_incoming(nxt, b.block)
        b.branch(head)
        b.position_at_end(done)

    def free_vars(self, stmt) -> list[Var]:
        """Vars used in ``stmt`` that are bound outside it (in the current function)."""
        bound = self.vars
        return [v for v in collect(stmt, lambda x: isinstance(x, Var)) if v in bound]

    def _parallel_for(self, s: For) -> None:
        emit_parallel_for(self, s, PARALLEL_CLAIMS_PER_THREAD, PARALLEL_OWN_SEGMENTS)

    def _compute_scope(self, s: AttrStmt) -> None:
        free = self.free_vars(s.body)
        code = self._call_outlined(f"{self._name}_compute_", free, [], lambda _: self.emit_stmt(s.body))
        self._return_if_nonzero(code)

    def _call_outlined(self, name: str, free: list[Var], extra: list[ir.Value], emit_body) -> ir.Value:
        """Emit ``emit_body(extra_args)`` as an internal ``i32`` function of ``free`` (handles
        ``noalias``) and ``extra`` values; call it here and return its status."""
        values = [self.vars[v] for v in free] + list(extra)
        fn = ir.Function(self.module, ir.FunctionType(I32, [v.type for v in values]), name)
        fn.linkage = "internal"
        for arg, var in zip(fn.args, free):
            arg.name = var.name
            if var.dtype.is_handle and self.noalias:
                arg.add_attribute("noalias")
        code = self.builder.call(fn, values)
        previous = self._enter(fn, dict(zip(free, fn.args)))
        try:
            emit_body(fn.args[len(free):])
            if not self.builder.block.is_terminated:
                self.builder.ret(ir.Constant(I32, 0))
        finally:
            self._leave(previous)
        return code

    def _return_if_nonzero(self, code: ir.Value) -> None:
        b = self.builder
        fail, ok = self.new_block("propagate_error"), self.new_block("continue")
        b.cbranch(b.icmp_unsigned("!=", code, ir.Constant(I32, 0)), fail, ok)
        b.position_at_end(fail)
        self.emit_return(code, None)
        b.branch(ok)
        b.position_at_end(ok)

    def _entry_alloca(self, ty: ir.Type, name: str) -> ir.Value:
        return self._frame.entry.alloca(ty, name=name)


# k > 0: the threads of a parallel loop of n iterations on t > 1 threads claim runs of
# consecutive iterations, so a thread that another process delays (or that got slower rows)
# leaves its runs to the others instead of the team waiting for it at the end; a run's outer
# (output channel) blocks are still read by one thread.  0: a static split, thread i runs the
# i-th ceil(n / t) iterations.  Measured at 2 threads (benchmarks/RESULTS.md, issue 10 rounds 7
# and 8): claims from one shared counter took the static split's CPU time and 0.91-1.0x
# (ResNet-50) / 0.95x (MobileNetV2) its wall time on a loaded machine, 0.97x / 1.04x idle.
PARALLEL_CLAIMS_PER_THREAD = 8
# with k > 0: True, each thread claims runs of ceil(n / (t * k)) from its own segment of the
# static split first, then from the others' (when the threads keep pace, each runs the rows
# the static split gives it, and the next kernel finds them in its cache); False, runs of
# ceil(n / (t * k)) from one shared counter.  Own segments first, 2 threads (round 8): loaded,
# MobileNetV2 0.93-0.95x the shared counter's wall time, ResNet-50 1.0x; quiet, with the conv
# rules' rows outermost, the shared counter takes 1.22x and the static split 1.01x its time.
PARALLEL_OWN_SEGMENTS = True


def settings_key() -> tuple:
    """The module settings above that change the machine code of the same IR (build caches
    put this in their keys)."""
    return (PARALLEL_CLAIMS_PER_THREAD, PARALLEL_OWN_SEGMENTS)


_MAX_HEAP_BYTES = 1 << 62  # larger requests fail without calling the allocator
_FAILING_SIZE = ~(_HEAP_ALIGN - 1) & ((1 << 64) - 1)  # a size aligned_alloc always refuses


def _alloc_failure_message(s: Allocate) -> str:
    """The check message of a failed heap Allocate; the ``MemoryError:`` prefix makes the
    runtime raise MemoryError (``ember.runtime.errors.error_for_check``)."""
    extents = " * ".join(_expr_text(e) for e in s.extents)
    return (f"MemoryError: could not allocate the intermediate buffer '{s.buffer_var.name}' "
            f"({extents} elements of {s.dtype}): out of memory")


def _expr_text(expr) -> str:
    if isinstance(expr, IntImm):
        return str(expr.value)
    if isinstance(expr, Cast):  # FlattenBuffer widens int32 extents
        return _expr_text(expr.value)
    if isinstance(expr, Mul):
        return f"{_expr_text(expr.a)} * {_expr_text(expr.b)}"
    if isinstance(expr, Var):
        return expr.name
    try:
        return str(expr)  # TVMScript
    except Exception:  # the message must never fail the build
        return type(expr).__name__


_STMT = {
    SeqStmt: CodeGenLLVM._seq,
    Evaluate: CodeGenLLVM._evaluate,
    BufferStore: CodeGenLLVM._store,
    LetStmt: CodeGenLLVM._let_stmt,
    DeclBuffer: CodeGenLLVM._decl_buffer,
    IfThenElse: CodeGenLLVM._if,
    While: CodeGenLLVM._while,
    AssertStmt: CodeGenLLVM._let_stmt,
    AttrStmt: CodeGenLLVM._attr,
    Allocate: CodeGenLLVM._allocate,
    For: CodeGenLLVM._for,
}
_UNLOWERED = {
    Block.__name__: "tir.transform.LowerOpaqueBlock / ConvertBlocksToOpaque",
    BlockRealize.__name__: "tir.transform.LowerOpaqueBlock / ConvertBlocksToOpaque",
}
