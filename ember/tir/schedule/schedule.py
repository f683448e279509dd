"""``Schedule``: TVM's TensorIR schedule API over a ScheduleState, with a trace.

Each public method resolves its random variables (see ``state.py`` for the handle
design), calls the pure primitive from its family module (``loop_transformation``,
``compute_location``, ``cache`` …) which returns a new PrimFunc, swaps it into the
state, makes output handles and appends one Instruction to the trace.
"""

from __future__ import annotations

from ember.ir import IntImm, IRModule, const
from ember.tir.function import PrimFunc
from ember.tir.stmt import BlockRealize, For

from . import analysis as A
from ._arith import BoundError
from .errors import ScheduleError, UnknownHandleError
from .printing import func_script
from .rand_engine import LinearCongruentialEngine
from .schedule_extra import ExtraPrimitives
from .schedule_more import MorePrimitives
from .state import BlockRV, ExprRV, LoopRV, ScheduleState, StmtSRef
from .trace import Instruction, InstructionKind, Trace

__all__ = ["Schedule"]


class Schedule(MorePrimitives, ExtraPrimitives):
    """A TensorIR schedule of ``mod`` (a PrimFunc or an IRModule of them)."""

    def __init__(self, mod, *, seed: int | None = None, debug_mask="all",
                 error_render_level: str = "detail", enable_check: bool = True):
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        elif not isinstance(mod, IRModule):
            raise TypeError(f"Schedule expects a PrimFunc or an IRModule as mod, "
                            f"got {type(mod).__name__}")
        if error_render_level not in ("detail", "fast", "none"):
            raise ValueError(f"error_render_level must be 'detail', 'fast' or 'none', "
                             f"got {error_render_level!r}")
        prims = [gv.name_hint for gv, f in mod.functions.items() if isinstance(f, PrimFunc)]
        self.state = ScheduleState(mod, prims[0] if len(prims) == 1 else None)
        self.debug_mask = debug_mask
        self.error_render_level = error_render_level
        self.enable_check = enable_check
        self._table: dict = {}
        self._trace = Trace()
        self._rng = LinearCongruentialEngine()  # TVM's engine: seeded samples match TVM's
        self.seed(seed)

    # -- module, functions, randomness ------------------------------------------------------
    @property
    def mod(self) -> IRModule:
        return self.state.mod

    @property
    def func_working_on(self):
        return None if self.state.func_name is None else self.mod.get_global_var(self.state.func_name)

    def work_on(self, func_name: str) -> None:
        if func_name not in self.mod:
            names = ", ".join(gv.name_hint for gv in self.mod.get_global_vars())
            raise ValueError(f"work_on: no function named {func_name!r} (functions: {names})")
        self.state.func_name = func_name

    @property
    def trace(self) -> Trace:
        return self._trace.copy()

    def seed(self, seed: int | None) -> None:
        self._rng.seed(seed)

    def fork_seed(self) -> int:
        return self._rng.fork_seed()

    def copy(self) -> Schedule:
        """An independent schedule in the same state; existing handles stay valid in both."""
        new = Schedule.__new__(Schedule)
        new.state = self.state.copy()
        new.debug_mask, new.error_render_level = self.debug_mask, self.error_render_level
        new.enable_check = self.enable_check
        new._table = dict(self._table)
        new._trace = self._trace.copy()
        new._rng = LinearCongruentialEngine()
        new._rng.setstate(self._rng.getstate())
        return new

    def show(self, *args, **kwargs) -> None:
        print(self.script())

    def script(self) -> str:
        try:
            return self.mod.script()
        except Exception:  # noqa: BLE001 - the printer may not be there yet
            return "\n\n".join(func_script(f, gv.name_hint) for gv, f in self.mod.functions.items()
                               if isinstance(f, PrimFunc))

    # -- handles -------------------------------------------------------------------------------
    def _func(self, name=None):
        return self.mod[name] if name is not None else self.state.func

    def _key(self, rv, kind):
        if not isinstance(rv, kind):
            raise TypeError(f"expected a {kind.__name__}, got {type(rv).__name__}: {rv!r}")
        try:
            return self._table[rv]
        except KeyError:
            raise UnknownHandleError(f"the {kind.__name__} {rv!r} does not belong to this schedule (made by "
                                     "another schedule, or removed)") from None

    def _block(self, rv: BlockRV) -> BlockRealize:
        fname, name = self._key(rv, BlockRV)
        func = self._func(fname)
        realize = A.find_block(func, name)
        if realize is None:
            raise ScheduleError(f"the block {name!r} this BlockRV refers to no longer exists "
                                f"(blocks: {', '.join(A.block_names(func))})", func)
        return realize

    def _loop(self, rv: LoopRV) -> For:
        fname, var = self._key(rv, LoopRV)
        if isinstance(var, str):  # ROOT or INLINE
            raise ScheduleError(f"this LoopRV is the special {var} location, not a loop")
        loop = A.find_loop(self._func(fname), var)
        if loop is None:
            raise ScheduleError(f"the loop {var.name!r} this LoopRV refers to no longer exists "
                                "(it was replaced by a transformation such as split or fuse)",
                                self._func(fname))
        return loop

    def _int(self, v):
        if isinstance(v, ExprRV):
            return self._key(v, ExprRV)
        if isinstance(v, IntImm):
            return int(v.value)
        return v

    def _new(self, cls, key):
        rv = cls()
        self._table[rv] = key
        return rv

    def _fname(self, rv=None) -> str:
        if rv is not None and rv in self._table and isinstance(self._table[rv], tuple):
            return self._table[rv][0]
        _ = self.state.func  # raises a helpful error when no function is selected
        return self.state.func_name

    def _commit(self, fname: str, func) -> None:
        self.state.func_name, old = fname, self.state.func_name
        self.state.update(func)
        self.state.func_name = old if old is not None else fname

    def _record(self, kind: str, inputs, attrs, outputs, decision=None) -> None:
        self._trace.append(Instruction(InstructionKind.get(kind), tuple(inputs), tuple(attrs),
                                       tuple(outputs)), decision)

    def _raise(self, err: ScheduleError):
        if self.error_render_level != "detail":
            raise ScheduleError(err.problem, render_level=self.error_render_level, fast=err.fast) from None
        raise err

    def get(self, rv):
        """The current IR node of a handle (Block, For) or the value of an ExprRV."""
        if isinstance(rv, BlockRV):
            return self._block(rv).block
        if isinstance(rv, LoopRV):
            return self._loop(rv)
        if isinstance(rv, ExprRV):
            return const(self._int(rv), "int32")
        if isinstance(rv, StmtSRef):  # as TVM: an sref's statement
            return rv.stmt
        raise TypeError(f"get expects a BlockRV, LoopRV, ExprRV or StmtSRef, got {type(rv).__name__}")

    def get_sref(self, rv) -> StmtSRef:
        """A reference to the statement of a block or loop handle (``.stmt``, ``.parent``)."""
        fname = self._fname(rv)
        node = self._block(rv) if isinstance(rv, BlockRV) else self._loop(rv)
        sref = StmtSRef.of(self._func(fname), node)
        sref.owner = self.state
        return sref

    def remove_rv(self, rv) -> None:
        self._table.pop(rv, None)

    # -- getters -----------------------------------------------------------------------------
    def get_block(self, name: str, func_name: str | None = None) -> BlockRV:
        fname = func_name if func_name is not None else self._fname()
        func = self._func(fname)
        if A.find_block(func, name) is None:
            self._raise(ScheduleError(f"Cannot find a block with the name: {name} (in function {fname!r}, "
                                      f"whose blocks are: {', '.join(repr(n) for n in A.block_names(func))})",
                                      fast="Cannot find a block with the specified name"))
        rv = self._new(BlockRV, (fname, name))
        self._record("get_block", [], [name, fname], [rv])
        return rv

    def get_loops(self, block: BlockRV) -> list[LoopRV]:
        fname = self._fname(block)
        loops = A.loops_above(self._func(fname), self._block(block))
        rvs = [self._new(LoopRV, (fname, lp.loop_var)) for lp in loops]
        self._record("get_loops", [block], [], rvs)
        return rvs

    def _blocks_rvs(self, fname, realizes):
        return [self._new(BlockRV, (fname, r.block.name_hint)) for r in realizes]

    def get_child_blocks(self, block_or_loop) -> list[BlockRV]:
        fname = self._fname(block_or_loop)
        node = self._block(block_or_loop) if isinstance(block_or_loop, BlockRV) else self._loop(block_or_loop)
        rvs = self._blocks_rvs(fname, A.child_blocks(node))
        self._record("get_child_blocks", [block_or_loop], [], rvs)
        return rvs

    def get_producers(self, block: BlockRV) -> list[BlockRV]:
        fname = self._fname(block)
        rvs = self._blocks_rvs(fname, A.producers(self._func(fname), self._block(block)))
        self._record("get_producers", [block], [], rvs)
        return rvs

    def get_consumers(self, block: BlockRV) -> list[BlockRV]:
        fname = self._fname(block)
        rvs = self._blocks_rvs(fname, A.consumers(self._func(fname), self._block(block)))
        self._record("get_consumers", [block], [], rvs)
        return rvs

    def get_output_blocks(self, scope_block: BlockRV) -> list[BlockRV]:
        """Blocks under ``scope_block`` (nested ones too, pre-order, as TVM) that write a
        function parameter buffer."""
        fname = self._fname(scope_block)
        func = self._func(fname)
        params = {id(b) for b in func.buffer_map.values()}
        outs = [r for r in A.blocks_under(self._block(scope_block).block.body)
                if any(id(w.buffer) in params for w in r.block.writes)]
        rvs = self._blocks_rvs(fname, outs)
        self._record("get_output_blocks", [scope_block], [], rvs)
        return rvs

    def _apply(self, rv, fn, *args):
        """Run primitive ``fn(func, *args)`` on the function of ``rv``; commit; return extra."""
        fname = self._fname(rv)
        try:
            out = fn(self._func(fname), *args)
        except ScheduleError as err:
            self._raise(err)
        except BoundError as err:
            self._raise(ScheduleError(f"{fn.__name__}: {err}", self._func(fname), func_name=fname))
        func, extra = out if isinstance(out, tuple) else (out, None)
        if self.debug_mask == "all" or (isinstance(self.debug_mask, int) and self.debug_mask):
            problem = A.verify(func)
            if problem is not None and A.verify(self._func(fname)) is None:  # only new problems
                raise RuntimeError(f"internal error: {fn.__name__} produced ill-formed IR: {problem}")
        self._commit(fname, func)
        return fname, extra

    def _rename_block(self, fname, old: str, new: str) -> None:
        for rv, key in self._table.items():
            if isinstance(key, tuple) and key[0] == fname and isinstance(key[1], str) and key[1] == old:
                self._table[rv] = (fname, new)

    # -- loops -------------------------------------------------------------------------------
    def split(self, loop: LoopRV, factors, preserve_unit_iters: bool = True,
              disable_predication: bool = False) -> list[LoopRV]:
        from .loop_transformation import split

        factors = list(factors)
        values = [self._int(f) for f in factors]
        fname, new_vars = self._apply(loop, split, self._loop(loop), values, preserve_unit_iters,
                                      disable_predication)
        rvs = [self._new(LoopRV, (fname, v)) for v in new_vars]
        self._record("split", [loop, factors], [preserve_unit_iters, disable_predication], rvs)
        return rvs

    def fuse(self, *loops: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        from .loop_transformation import fuse

        if len(loops) == 1 and isinstance(loops[0], list | tuple):
            loops = tuple(loops[0])
        fname, var = self._apply(loops[0], fuse, [self._loop(lp) for lp in loops], preserve_unit_iters)
        rv = self._new(LoopRV, (fname, var))
        self._record("fuse", [list(loops)], [preserve_unit_iters], [rv])
        return rv

    def merge(self, *loops: LoopRV) -> LoopRV:
        """Merge sibling loop nests at the level of ``loops`` into one (see merge.py)."""
        from .merge import merge

        if len(loops) == 1 and isinstance(loops[0], list | tuple):
            loops = tuple(loops[0])
        fname, var = self._apply(loops[0], merge, [self._loop(lp) for lp in loops])
        rv = self._new(LoopRV, (fname, var))
        self._record("merge", [list(loops)], [], [rv])
        return rv

    def reorder(self, *ordered_loops: LoopRV) -> None:
        from .loop_transformation import reorder

        if len(ordered_loops) == 1 and isinstance(ordered_loops[0], list | tuple):
            ordered_loops = tuple(ordered_loops[0])
        self._apply(ordered_loops[0], reorder, [self._loop(lp) for lp in ordered_loops])
        self._record("reorder", [list(ordered_loops)], [], [])

    def add_unit_loop(self, block_or_loop) -> LoopRV:
        from .loop_transformation import add_unit_loop

        node = self._block(block_or_loop) if isinstance(block_or_loop, BlockRV) else self._loop(block_or_loop)
        fname, var = self._apply(block_or_loop, add_unit_loop, node)
        rv = self._new(LoopRV, (fname, var))
        self._record("add_unit_loop", [block_or_loop], [], [rv])
        return rv

    def _set_kind(self, loop: LoopRV, what: str) -> None:
        from .annotation import set_kind

        self._apply(loop, set_kind, self._loop(loop), what)
        self._record(what, [loop], [], [])

    def parallel(self, loop: LoopRV) -> None:
        self._set_kind(loop, "parallel")

    def vectorize(self, loop: LoopRV) -> None:
        self._set_kind(loop, "vectorize")

    def unroll(self, loop: LoopRV) -> None:
        self._set_kind(loop, "unroll")

    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        from .annotation import bind

        self._apply(loop, bind, self._loop(loop), thread_axis)
        self._record("bind", [loop], [thread_axis], [])

    def _node(self, block_or_loop):
        return self._block(block_or_loop) if isinstance(block_or_loop, BlockRV) else self._loop(block_or_loop)

    def annotate(self, block_or_loop, ann_key: str, ann_val) -> None:
        from .annotation import annotate

        # a sampled value (ExprRV) is annotated with its value and recorded as the RV, so a
        # trace replayed with another decision annotates the new value (as TVM does)
        value = self._int(ann_val) if isinstance(ann_val, ExprRV) else ann_val
        self._apply(block_or_loop, annotate, self._node(block_or_loop), ann_key, value)
        self._record("annotate", [block_or_loop], [ann_key, ann_val], [])

    def unannotate(self, block_or_loop, ann_key: str) -> None:
        from .annotation import unannotate

        self._apply(block_or_loop, unannotate, self._node(block_or_loop), ann_key)
        self._record("unannotate", [block_or_loop], [ann_key], [])

    def enter_postproc(self) -> None:
        self._record("enter_postproc", [], [], [])



def _accept_block_names(cls):
    """Let every public primitive that takes a ``BlockRV`` also take a block's name, as
    TVM's do: the name is looked up with ``get_block`` (recorded in the trace) first."""
    import functools
    import inspect

    for name, method in inspect.getmembers(cls, inspect.isfunction):
        if name.startswith("_") or name == "get_block":
            continue
        sig = inspect.signature(method)
        blocks = {p.name for p in sig.parameters.values() if "BlockRV" in str(p.annotation)}
        lists = {p.name for p in sig.parameters.values() if p.name == "consumer_blocks"}
        if not blocks and not lists:
            continue

        def wrap(method=method, sig=sig, blocks=blocks, lists=lists):
            def has_name(v):
                return isinstance(v, str) or (isinstance(v, list | tuple) and any(isinstance(x, str) for x in v))

            @functools.wraps(method)
            def primitive(self, *args, **kwargs):
                if any(has_name(a) for a in args) or any(has_name(v) for v in kwargs.values()):
                    bound = sig.bind(self, *args, **kwargs)
                    for key in blocks & bound.arguments.keys():
                        if isinstance(bound.arguments[key], str):
                            bound.arguments[key] = self.get_block(bound.arguments[key])
                    for key in lists & bound.arguments.keys():  # a list of blocks may name them too
                        value = bound.arguments[key]
                        if isinstance(value, list | tuple):
                            bound.arguments[key] = [self.get_block(b) if isinstance(b, str) else b for b in value]
                    return method(*bound.args, **bound.kwargs)
                return method(self, *args, **kwargs)

            return primitive

        setattr(cls, name, wrap())
    return cls


_accept_block_names(Schedule)
