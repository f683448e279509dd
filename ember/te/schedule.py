"""The legacy TE schedule API (``te.create_schedule``, ``s[C].split`` …) as a thin adapter
over ``tir.Schedule``.

``create_schedule(ops)`` lowers the graph with ``create_prim_func`` right away (inputs
first, then the outputs) and opens a ``tir.Schedule`` on it; each ``Stage`` is one
block.  Axis handles (``C.op.axis[0]`` and the IterVars that ``split``/``fuse`` return)
map to the schedule's loop handles, so every call applies the matching TensorIR
primitive at once and errors surface at the call.  ``to_prim_func(args)`` orders the
parameters as ``args`` — what ``ember.build(s, [A, B, C])`` and ``ember.lower`` use.
"""

from __future__ import annotations

from ember.ir import DataType, Var, node, replace
from ember.tir import IterVarType, PrimFunc

from .create_prim_func import _topo_ops, lower_te
from .tensor import Operation, PlaceholderOp, Tensor, TeIterVar

__all__ = ["Schedule", "Stage", "create_schedule"]


@node
class CacheOp(Operation):
    """The operation behind a tensor made by ``cache_read`` / ``cache_write``."""

    name: str
    shape: tuple
    dtype: DataType
    axis: tuple
    reduce_axis: tuple = ()
    tag: str = ""

    def output_shape(self, index: int) -> tuple:
        return self.shape

    def output_dtype(self, index: int) -> DataType:
        return self.dtype


def _handle(name: str, kind=IterVarType.DataPar) -> TeIterVar:
    return TeIterVar(None, Var(name), kind)


class Stage:
    """One operation's block in the schedule; methods apply TensorIR primitives."""

    def __init__(self, sched: Schedule, op: Operation, block_name: str):
        self.sch, self.op, self.origin_op = sched, op, op
        self.block_name = block_name
        self.attach = None

    # -- handles -------------------------------------------------------------------
    @property
    def _tir(self):
        return self.sch.tir_schedule

    def _block(self):
        if self.op.num_outputs > 1 and self.block_name.endswith(".v0"):
            raise NotImplementedError(
                f"stage {self.block_name[:-3]!r}: block primitives (compute_at, compute_inline, set_scope …) "
                "on a compute with several outputs, which lowers to one block per output, are not supported"
            )
        return self._tir.get_block(self.block_name)

    def _loop(self, ivar):
        rv = self.sch._loops.get(ivar)
        if rv is None:
            name = getattr(ivar, "name", repr(ivar))
            raise ValueError(
                f"stage {self.block_name!r}: {name!r} is not a loop axis of this stage "
                "(use stage.op.axis / op.reduce_axis or the IterVars split/fuse returned)"
            )
        return rv

    def _new_handle(self, name: str, rv) -> TeIterVar:
        handle = _handle(name)
        self.sch._loops[handle] = rv
        return handle

    # -- loop transformations ------------------------------------------------------
    def split(self, parent, factor=None, nparts=None):
        """Split ``parent`` into (outer, inner) by ``factor`` (inner extent) or ``nparts``."""
        if (factor is None) == (nparts is None):
            raise ValueError("split: give exactly one of factor= or nparts=")
        factors = [None, factor] if factor is not None else [nparts, None]
        outer, inner = self._tir.split(self._loop(parent), factors)
        base = parent.var.name
        return self._new_handle(f"{base}.outer", outer), self._new_handle(f"{base}.inner", inner)

    def fuse(self, *args):
        """Fuse consecutive axes into one."""
        if len(args) == 1 and isinstance(args[0], list | tuple):
            args = tuple(args[0])
        fused = self._tir.fuse(*[self._loop(a) for a in args])
        return self._new_handle(".".join(a.var.name for a in args) + ".fused", fused)

    def reorder(self, *args):
        if len(args) == 1 and isinstance(args[0], list | tuple):
            args = tuple(args[0])
        self._tir.reorder(*[self._loop(a) for a in args])

    def tile(self, x_parent, y_parent, x_factor, y_factor):
        """Split both axes and order them (xo, yo, xi, yi); returns those four."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    def parallel(self, var) -> None:
        self._tir.parallel(self._loop(var))

    def vectorize(self, var) -> None:
        self._tir.vectorize(self._loop(var))

    def unroll(self, var) -> None:
        self._tir.unroll(self._loop(var))

    def bind(self, ivar, thread_ivar) -> None:
        tag = thread_ivar if isinstance(thread_ivar, str) else thread_ivar.thread_tag
        self._tir.bind(self._loop(ivar), tag)

    def pragma(self, var, pragma_type: str, pragma_value=None) -> None:
        self._tir.annotate(self._loop(var), f"pragma_{pragma_type}", pragma_value if pragma_value is not None else 1)

    # -- placement -----------------------------------------------------------------
    def compute_at(self, parent: Stage, scope) -> None:
        """Compute this stage inside loop ``scope`` of ``parent``."""
        self._tir.compute_at(self._block(), parent._loop(scope), preserve_unit_loops=True)
        self.attach = (parent, scope)
        # the block got fresh loops under ``scope``, one per axis: rebind this stage's axes
        self.sch._bind_axes(self)

    def compute_inline(self) -> None:
        self._tir.compute_inline(self._block())
        self.attach = "inline"

    def compute_root(self) -> None:
        if self.attach is not None:
            raise NotImplementedError(
                f"compute_root: stage {self.block_name!r} was already moved; create a new schedule instead"
            )

    # -- memory --------------------------------------------------------------------
    def set_scope(self, scope: str) -> None:
        self._tir.set_scope(self._block(), 0, scope)

    def storage_align(self, axis, factor: int, offset: int) -> None:
        index = list(self.op.axis).index(axis) if not isinstance(axis, int) else axis
        self._tir.storage_align(self._block(), 0, index, factor, offset)

    def __repr__(self) -> str:
        return f"stage({self.block_name})"


class Schedule:
    """A TE schedule over the graph that computes ``outputs``."""

    def __init__(self, ops):
        from ember.tir import Schedule as TirSchedule

        ops = list(ops) if isinstance(ops, list | tuple) else [ops]
        outputs = []
        for op in ops:
            op = op.op if isinstance(op, Tensor) else op
            if not isinstance(op, Operation):
                raise TypeError(f"create_schedule: expected te operations or tensors, got {type(op).__name__}")
            outputs.extend(op.output(i) for i in range(op.num_outputs))
        self.outputs = [t.op for t in outputs]
        order = _topo_ops(outputs)
        inputs = [op.output(0) for op in order if isinstance(op, PlaceholderOp)]
        self._tensors = inputs + [t for t in outputs if t not in inputs]
        func, names = lower_te(self._tensors)
        self._func = func
        self.tir_schedule = TirSchedule(func)
        self._loops: dict = {}
        self.stages: list[Stage] = []
        self._stage_of: dict = {}
        for op in order:
            if op in names:
                self._add_stage(op, self._first_block_name(names[op]))

    def _first_block_name(self, name: str) -> str:
        """The block a stage is handled through: a data-parallel compute with several outputs
        lowers to one block per output (``name.v0``, ``name.v1`` …) under one shared loop
        nest, so its loops are reached through the first of them."""
        from ember.tir import Block
        from ember.tir.functor import post_order_visit

        blocks = set()
        post_order_visit(self._func.body, lambda n: blocks.add(n.name_hint) if isinstance(n, Block) else None)
        return name if name in blocks or f"{name}.v0" not in blocks else f"{name}.v0"

    def _add_stage(self, op, block_name: str) -> Stage:
        stage = Stage(self, op, block_name)
        self.stages.append(stage)
        self._stage_of[op] = stage
        axes = tuple(getattr(op, "axis", ())) + tuple(getattr(op, "reduce_axis", ()))
        if axes:
            loops = self.tir_schedule.get_loops(self.tir_schedule.get_block(block_name))
            for iv, rv in zip(axes, loops[len(loops) - len(axes):]):
                self._loops[iv] = rv
        return stage

    def _bind_axes(self, stage: Stage) -> None:
        """Point the stage's axis handles at the innermost loops of its block."""
        op = stage.op
        axes = tuple(getattr(op, "axis", ())) + tuple(getattr(op, "reduce_axis", ()))
        if not axes:
            return
        loops = self.tir_schedule.get_loops(self.tir_schedule.get_block(stage.block_name))
        for iv, rv in zip(axes, loops[len(loops) - len(axes):]):
            self._loops[iv] = rv

    def __getitem__(self, key) -> Stage:
        op = key.op if isinstance(key, Tensor) else key
        stage = self._stage_of.get(op)
        if stage is None:
            name = getattr(op, "name", repr(op))
            raise KeyError(f"schedule has no stage for {name!r} (placeholders have no stage)")
        return stage

    def _cache_stage(self, block_rv, like: Tensor) -> Tensor:
        name = self.tir_schedule.get(block_rv).name_hint
        loops = self.tir_schedule.get_loops(block_rv)
        axes = tuple(_handle(f"ax{i}") for i in range(len(loops)))
        op = CacheOp(name, like.shape, like.dtype, axes)
        stage = Stage(self, op, name)
        self.stages.append(stage)
        self._stage_of[op] = stage
        for iv, rv in zip(axes, loops):
            self._loops[iv] = rv
        return op.output(0)

    def cache_read(self, tensor: Tensor, scope: str, readers) -> Tensor:
        """A copy of ``tensor`` in ``scope`` that the ``readers`` read instead."""
        readers = list(readers) if isinstance(readers, list | tuple) else [readers]
        sch = self.tir_schedule
        stages = [self[r] for r in readers]
        first = sch.get_block(stages[0].block_name)
        reads = sch.get(first).reads
        index = next((i for i, r in enumerate(reads) if r.buffer.name == tensor.name), None)
        if index is None:
            raise ValueError(f"cache_read: {readers[0].name!r} does not read {tensor.name!r}")
        consumers = [sch.get_block(s.block_name) for s in stages]
        rv = sch.cache_read(first, index, scope, consumers if len(consumers) > 1 else None)
        return self._cache_stage(rv, tensor)

    def cache_write(self, tensor: Tensor, scope: str) -> Tensor:
        """Compute ``tensor`` into a ``scope`` buffer (the returned tensor's stage); the
        tensor's own stage becomes the copy back, over the same axes, as in TVM."""
        stage = self[tensor]
        sch = self.tir_schedule
        writer_name = stage.block_name
        copy_rv = sch.cache_write(sch.get_block(writer_name), 0, scope)
        stage.block_name = sch.get(copy_rv).name_hint
        for iv in getattr(stage.op, "reduce_axis", ()):
            self._loops.pop(iv, None)
        copy_loops = sch.get_loops(copy_rv)
        for iv, rv in zip(stage.op.axis, copy_loops):
            self._loops[iv] = rv
        old = stage.op
        axes = tuple(_handle(iv.var.name) for iv in old.axis)
        raxes = tuple(_handle(iv.var.name, IterVarType.CommReduce) for iv in getattr(old, "reduce_axis", ()))
        op = CacheOp(f"{tensor.name}.{scope}", tensor.shape, tensor.dtype, axes, raxes)
        new_stage = Stage(self, op, writer_name)
        self.stages.append(new_stage)
        self._stage_of[op] = new_stage
        loops = sch.get_loops(sch.get_block(writer_name))
        both = axes + raxes
        for iv, rv in zip(both, loops[len(loops) - len(both):]):
            self._loops[iv] = rv
        return op.output(0)

    def rfactor(self, tensor: Tensor, axis, factor_axis: int = 0) -> Tensor:
        """Factor the reduction over ``axis`` into a new stage (returned) computing partial
        results indexed by ``axis``; the tensor's stage then reduces those partials."""
        stage = self[tensor]
        sch = self.tir_schedule
        factored = stage._loop(axis)
        factored_var = sch.get(factored).loop_var
        spatial = [self._loops[a] for a in stage.op.axis]
        rf_rv = sch.rfactor(factored, factor_axis)
        rf_name = sch.get(rf_rv).name_hint
        used = {id(sch.get(rv).loop_var) for rv in spatial} | {id(factored_var)}
        rest = [rv for rv in sch.get_loops(rf_rv) if id(sch.get(rv).loop_var) not in used]
        rf_axes = [_handle(a.var.name) for a in stage.op.axis]
        rf_axes.insert(factor_axis, _handle(f"{axis.var.name}.v"))
        rf_rvs = list(spatial)
        rf_rvs.insert(factor_axis, factored)
        rf_reduce = tuple(_handle(f"r{i}", IterVarType.CommReduce) for i in range(len(rest)))
        shape = list(tensor.shape)
        shape.insert(factor_axis, sch.get(factored).extent)
        rf_op = CacheOp(f"{tensor.name}.rf", tuple(shape), tensor.dtype, tuple(rf_axes), rf_reduce)
        rf_stage = Stage(self, rf_op, rf_name)
        self.stages.append(rf_stage)
        self._stage_of[rf_op] = rf_stage
        for iv, rv in zip(rf_axes + list(rf_reduce), rf_rvs + rest):
            self._loops[iv] = rv
        # the tensor's own block now reduces the partials over the factored axis
        wb_loops = sch.get_loops(sch.get_block(stage.block_name))
        n_sp = len(stage.op.axis)
        wb_axes = tuple(_handle(a.var.name) for a in stage.op.axis)
        wb_reduce = (_handle(f"{axis.var.name}.v", IterVarType.CommReduce),)
        stage.op = CacheOp(tensor.name, tensor.shape, tensor.dtype, wb_axes, wb_reduce)
        self._stage_of[stage.op] = stage
        for iv, rv in zip(wb_axes + wb_reduce, wb_loops[len(wb_loops) - n_sp - 1:]):
            self._loops[iv] = rv
        return rf_op.output(0)

    def normalize(self) -> Schedule:
        return self

    @property
    def mod(self):
        return self.tir_schedule.mod

    def to_prim_func(self, args, name: str = "main") -> PrimFunc:
        """The scheduled PrimFunc with parameters in the order of ``args``."""
        func = self.tir_schedule.mod["main"]
        n_buffers = len(self._tensors)
        index = {t: i for i, t in enumerate(self._tensors)}
        params = []
        promoted = []  # intermediate tensors listed in args: their buffers become parameters
        for pos, arg in enumerate(args):
            if isinstance(arg, Var):
                params.append(arg)
                continue
            if isinstance(arg, Tensor) and arg not in index and arg.op in self._stage_of:
                buffer = self._intermediate_buffer(func, arg, pos)
                param = Var(f"var_{buffer.name}", "handle")
                promoted.append((param, buffer))
                params.append(param)
                continue
            if not isinstance(arg, Tensor) or arg not in index:
                what = getattr(arg, "name", repr(arg))
                raise ValueError(
                    f"args[{pos}] ({what}) is not an input or output of this schedule; "
                    f"expected some of {[t.name for t in self._tensors]}"
                )
            params.append(func.params[index[arg]])
        left_out = [t for t in self._tensors if func.params[index[t]] not in params]
        missing = [t.name for t in left_out if isinstance(t.op, PlaceholderOp)]
        if missing:
            raise ValueError(f"args must list every input tensor; missing {missing}")
        params.extend(p for p in func.params[n_buffers:] if p not in params)
        buffer_map = {p: func.buffer_map[p] for p in params if p in func.buffer_map}
        buffer_map.update(promoted)
        attrs = dict(func.attrs)
        attrs["global_symbol"] = name
        # outputs left out of args (TVM allows it, e.g. to print the loops) become allocations
        body = _allocate_in_root(func.body, [func.buffer_map[func.params[index[t]]] for t in left_out],
                                 [b for _, b in promoted])
        return PrimFunc(tuple(params), body, func.ret_type, buffer_map, attrs)

    def _intermediate_buffer(self, func: PrimFunc, tensor: Tensor, pos: int):
        """The root-allocated buffer holding the intermediate ``tensor`` (for ``args[pos]``)."""
        root = func.body.block
        found = [b for b in root.alloc_buffers if b.name == tensor.name]
        if len(found) != 1:
            raise ValueError(f"args[{pos}] ({tensor.name}): this intermediate tensor is no longer a buffer "
                             "of the function (inlined or cached?); leave it out of args")
        return found[0]


def _allocate_in_root(body, buffers: list, released: list = ()):
    """``body`` (the root BlockRealize) with ``buffers`` allocated by the root block and
    ``released`` no longer allocated there (they became parameters)."""
    if not buffers and not released:
        return body
    root = body.block
    kept = tuple(b for b in root.alloc_buffers if not any(b is r for r in released))
    return replace(body, block=replace(root, alloc_buffers=kept + tuple(buffers)))


def create_schedule(ops) -> Schedule:
    """A schedule for the graph computing ``ops`` (an operation, a tensor or a list)."""
    return Schedule(ops)

