"""Instructions and the Trace: the program of primitives applied to a schedule.

Every primitive appends an ``Instruction(kind, inputs, attrs, outputs)``.  ``inputs``
hold random variables (or lists of them, ints and None, e.g. split factors),
``attrs`` hold plain values; sampling instructions also have a *decision* stored in
``trace.decisions``.  A trace prints as runnable Python (``str(trace)``), serialises to
JSON (``as_json`` / ``Trace.from_json``) and replays onto a fresh schedule
(``apply_to_schedule``), with decisions fed to the sampling instructions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .state import BlockRV, ExprRV, LoopRV, _RV

__all__ = ["InstructionKind", "Instruction", "Trace", "KINDS"]


@dataclass(frozen=True)
class InstructionKind:
    """A kind of instruction: TVM's name (``"Split"``), the Schedule method it calls
    (``method``, e.g. ``"split"``) and how its arguments split into inputs / attrs."""

    method: str
    inputs: tuple = ()
    attrs: tuple = ()
    returns_list: bool = False
    has_decision: bool = False
    variadic: bool = False  # the first input is passed as *args (fuse, reorder)

    @property
    def name(self) -> str:
        return _SPECIAL_NAMES.get(self.method) or "".join(p.capitalize() for p in self.method.split("_"))

    @property
    def is_pure(self) -> bool:
        """Whether the instruction only looks things up or samples (changes no IR)."""
        return self.method.startswith(("get_", "sample_"))

    @staticmethod
    def get(name: str) -> InstructionKind:
        kind = KINDS.get(name) or _BY_NAME.get(name)
        if kind is None:
            raise ValueError(f"unknown instruction kind {name!r}; known: {', '.join(sorted(_BY_NAME))}")
        return kind

    def same_as(self, other) -> bool:
        return self is other


_SPECIAL_NAMES = {"rfactor": "RFactor"}


def _kinds(*specs) -> dict:
    return {k.method: k for k in specs}


K = InstructionKind
KINDS: dict[str, InstructionKind] = _kinds(
    K("get_block", (), ("name", "func_name")),
    K("get_loops", ("block",), (), returns_list=True),
    K("get_child_blocks", ("block_or_loop",), (), returns_list=True),
    K("get_producers", ("block",), (), returns_list=True),
    K("get_consumers", ("block",), (), returns_list=True),
    K("split", ("loop", "factors"), ("preserve_unit_iters", "disable_predication"), returns_list=True),
    K("fuse", ("loops",), ("preserve_unit_iters",), variadic=True),
    K("reorder", ("ordered_loops",), (), variadic=True),
    K("merge", ("loops",), (), variadic=True),
    K("add_unit_loop", ("block_or_loop",), ()),
    K("parallel", ("loop",), ()),
    K("vectorize", ("loop",), ()),
    K("unroll", ("loop",), ()),
    K("bind", ("loop",), ("thread_axis",)),
    K("annotate", ("block_or_loop",), ("ann_key", "ann_val")),
    K("unannotate", ("block_or_loop",), ("ann_key",)),
    K("compute_inline", ("block",), ()),
    K("reverse_compute_inline", ("block",), ()),
    K("compute_at", ("block", "loop"), ("preserve_unit_loops", "index")),
    K("reverse_compute_at", ("block", "loop"), ("preserve_unit_loops", "index")),
    K("decompose_reduction", ("block", "loop"), ()),
    K("rfactor", ("loop",), ("factor_axis",)),
    K("cache_read", ("block", "consumer_blocks"), ("read_buffer_index", "storage_scope")),
    K("cache_write", ("block", "consumer_blocks"), ("write_buffer_index", "storage_scope")),
    K("reindex", ("block",), ("buffer",)),
    K("cache_inplace", ("block",), ("read_buffer_index", "storage_scope"), returns_list=True),
    K("reindex_cache_read", ("block",), ("read_buffer_index", "storage_scope", "index_map")),
    K("reindex_cache_write", ("block",), ("write_buffer_index", "storage_scope", "index_map")),
    K("set_scope", ("block",), ("buffer_index", "storage_scope")),
    K("storage_align", ("block",), ("buffer_index", "axis", "factor", "offset")),
    K("unsafe_set_dtype", ("block",), ("buffer_index", "dtype")),
    K("unsafe_hide_buffer_access", ("block",), ("buf_type", "buf_index_array")),
    K("reorder_block_iter_var", ("block",), ("new_order",)),
    K("annotate_buffer_access", ("block",), ("buffer_index", "buf_type", "gen_new_ranges")),
    K("transform_layout", ("block",), ("buffer", "index_map", "pad_value", "assume_injective_transform")),
    K("transform_block_layout", ("block",), ("index_map",)),
    K("set_axis_separator", ("block",), ("buffer", "axis_separators")),
    K("get_output_blocks", ("scope_block",), (), returns_list=True),
    K("blockize", ("target",), ("preserve_unit_iters",)),
    K("tensorize", ("block_or_loop",), ("tensor_intrin", "preserve_unit_iters")),
    K("sample_perfect_tile", ("loop",), ("n", "max_innermost_factor"), returns_list=True,
      has_decision=True),
    K("sample_categorical", (), ("candidates", "probs"), has_decision=True),
    K("sample_compute_location", ("block",), (), has_decision=True),
    K("enter_postproc", (), ()),
    K("loop_partition", ("loop", "factors"), ("preserve_unit_iters",), returns_list=True),
    K("rolling_buffer", ("block",), ("write_buffer_index",)),
    K("decompose_padding", ("block", "loop"), ()),
    K("read_at", ("loop", "block"), ("read_buffer_index", "storage_scope")),
    K("pad_einsum", ("block",), ("padding",)),
    K("cache_index", ("block",), ("storage_scope", "cse_thresh"), returns_list=True),
    K("write_at", ("loop", "block"), ("write_buffer_index", "storage_scope")),
)
del K
_BY_NAME = {k.name: k for k in KINDS.values()}


@dataclass(frozen=True, eq=False)
class Instruction:
    """One applied primitive: its kind, RV-carrying inputs, plain attrs and output RVs."""

    kind: InstructionKind
    inputs: tuple
    attrs: tuple
    outputs: tuple

    def __post_init__(self):
        """Accept TVM's layouts too: list inputs flattened (``Split(loop, *factors)``,
        ``Fuse(*loops)``), ``Annotate``'s value among the inputs, IntImm/FloatImm attrs."""
        kind, ins, attrs = self.kind, tuple(self.inputs), tuple(_plain(a) for a in self.attrs)
        n = len(kind.inputs)
        if kind.method == "annotate" and len(ins) == 2 and len(attrs) == 1:
            ins, attrs = ins[:1], attrs + ins[1:]
        elif n and (len(ins) > n or (kind.variadic and ins and not isinstance(ins[0], list | tuple))):
            ins = ins[:n - 1] + (list(ins[n - 1:]),)
        object.__setattr__(self, "inputs", ins)
        object.__setattr__(self, "attrs", attrs)
        object.__setattr__(self, "outputs", tuple(self.outputs))

    def __str__(self) -> str:
        return Trace([self], {}).as_python(anonymous=True)[0]

    def same_as(self, other) -> bool:
        return self is other


def _plain(value):
    """IntImm / FloatImm / StringImm attrs (TVM passes IR constants) as Python values."""
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if type(value).__name__ in ("IntImm", "FloatImm", "StringImm") and hasattr(value, "value"):
        return value.value
    return value


def _whole_probs(probs):
    """TVM prints a probability of exactly 1 (or 0) as ``1``: whole floats as ints."""
    return [int(p) if isinstance(p, float) and p.is_integer() else p for p in probs]


def _names(insts) -> dict:
    names: dict = {}

    def name(rv):
        if rv not in names:
            names[rv] = f"{getattr(rv, 'prefix', 'v')}{len(names)}"  # a tir.Var is TVM's ExprRV
        return names[rv]

    for inst in insts:
        for value in inst.inputs:
            for rv in _flat(value):
                name(rv)
        for rv in inst.outputs:
            name(rv)
    return names


def _flat(value):
    if isinstance(value, _RV):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _flat(v)


def _render(value, names) -> str:
    if isinstance(value, _RV):
        return names[value]
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(v, names) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    if hasattr(value, "to_python"):  # IndexMap
        return value.to_python()
    return repr(value)


@dataclass
class Trace:
    """The instructions applied so far and the decisions of the sampling ones."""

    insts: list = field(default_factory=list)
    decisions: dict = field(default_factory=dict)

    # -- printing -----------------------------------------------------------------------
    def as_python(self, remove_postproc: bool = False, header: bool = False,
                  anonymous: bool = False) -> list[str]:
        """The trace as Python lines (TVM's ``as_python``); ``header`` adds the ``apply_trace``
        function around them, as ``str(trace)`` prints it."""
        return self._python(self._kept(remove_postproc), header, anonymous)

    def _python(self, insts, header: bool, anonymous: bool) -> list[str]:
        names = _names(insts)
        if anonymous:  # one instruction on its own: its handles have no names (TVM prints "_")
            names = {rv: "_" for rv in names}
        lines = []
        for inst in insts:
            kind = inst.kind
            args = [f"{n}={_render(v, names)}" for n, v in zip(kind.inputs, inst.inputs)]
            if kind.variadic:
                args = [_render(v, names) for v in inst.inputs[0]] + args[1:]
            args += [f"{n}={_render(_whole_probs(v) if n == 'probs' else v, names)}"
                     for n, v in zip(kind.attrs, inst.attrs)]
            if kind.has_decision and inst in self.decisions:
                args.append(f"decision={_render(self.decisions[inst], names)}")
            call = f"sch.{kind.method}({', '.join(args)})"
            outs = [names[o] for o in inst.outputs]
            if kind.returns_list:
                lhs = (", ".join(outs) + ("," if len(outs) == 1 else "")) if outs else "_"
                lines.append(f"{lhs} = {call}")
            elif outs:
                lines.append(f"{outs[0]} = {call}")
            else:
                lines.append(call)
        if header:
            body = ["  " + line for line in lines] or ["  pass"]
            from ember.script.printer.dispatch import package_name  # printing is a higher layer

            return [f"# from {package_name()} import tir", "def apply_trace(sch: tir.Schedule) -> None:"] + body
        return lines

    def __str__(self) -> str:
        return "\n".join(self.as_python(header=True))

    def show(self) -> None:
        print(str(self))

    # -- JSON -------------------------------------------------------------------------------
    def as_json(self, remove_postproc: bool = False) -> list:
        insts = self._kept(remove_postproc)
        names = _names(insts)

        def enc(v):
            if isinstance(v, _RV):
                return names[v]
            if isinstance(v, list | tuple):
                return [enc(x) for x in v]
            if hasattr(v, "to_python"):
                return {"index_map": v.to_python()}
            return v

        def enc_attr(v):  # an RV among attrs (annotate with a sampled value) is tagged
            return {"rv": names[v]} if isinstance(v, _RV) else enc(v)

        rows = [[i.kind.name, enc(list(i.inputs)), [enc_attr(a) for a in i.attrs],
                 [names[o] for o in i.outputs]] for i in insts]
        decisions = [[k, enc(self.decisions[i])] for k, i in enumerate(insts) if i in self.decisions]
        return [rows, decisions]

    @staticmethod
    def from_json(data) -> Trace:
        if isinstance(data, str):
            data = json.loads(data)
        rows, decisions = data
        rvs: dict = {}
        cls_of = {"b": BlockRV, "l": LoopRV, "v": ExprRV}

        def rv(name: str):
            if name not in rvs:
                rvs[name] = cls_of[name[0]]()
            return rvs[name]

        def dec(v):
            if isinstance(v, str):
                return rv(v)
            if isinstance(v, list):
                return [dec(x) for x in v]
            return v

        def dec_attr(v):
            if isinstance(v, dict) and set(v) == {"rv"}:
                return rv(v["rv"])
            if isinstance(v, dict) and set(v) == {"index_map"}:
                from .index_map import IndexMap

                return IndexMap.from_python(v["index_map"])
            return v

        insts = []
        for kind_name, inputs, attrs, outputs in rows:
            insts.append(Instruction(InstructionKind.get(kind_name), tuple(dec(x) for x in inputs),
                                     tuple(dec_attr(a) for a in attrs), tuple(rv(o) for o in outputs)))
        return Trace(insts, {insts[k]: d for k, d in decisions})

    # -- replay and editing ------------------------------------------------------------------
    def _kept(self, remove_postproc: bool) -> list:
        if not remove_postproc:
            return list(self.insts)
        out = []
        for inst in self.insts:
            if inst.kind.method == "enter_postproc":
                break
            out.append(inst)
        return out

    def get_decision(self, inst: Instruction):
        return self.decisions.get(inst)

    def with_decision(self, inst: Instruction, decision, remove_postproc: bool = False) -> Trace:
        insts = self._kept(remove_postproc)
        if inst not in insts:
            raise ValueError("with_decision: the instruction is not part of this trace")
        decisions = {i: d for i, d in self.decisions.items() if i in insts}
        decisions[inst] = decision
        return Trace(insts, decisions)

    def append(self, inst: Instruction, decision=None) -> None:
        self.insts.append(inst)
        if decision is not None:
            self.decisions[inst] = decision

    def pop(self) -> Instruction | None:
        """Remove and return the last instruction (with its decision); None when empty."""
        if not self.insts:
            return None
        inst = self.insts.pop()
        self.decisions.pop(inst, None)
        return inst

    @staticmethod
    def apply_json_to_schedule(json_obj, sch) -> None:
        """Replay a trace given in its JSON form (``Trace.as_json()``) on ``sch``."""
        Trace.from_json(json_obj).apply_to_schedule(sch, remove_postproc=False)

    def apply_to_schedule(self, sch, remove_postproc: bool = False, decision_provider=None) -> None:
        """Replay every instruction on ``sch`` (decisions replayed, or replaced by
        ``decision_provider(inst, inputs, attrs, decision)`` when given)."""
        env: dict = {}

        def sub(v):
            if isinstance(v, _RV):
                return env[v]
            if isinstance(v, list | tuple):
                return [sub(x) for x in v]
            return v

        for inst in self._kept(remove_postproc):
            kind = inst.kind
            kwargs = {n: sub(v) for n, v in zip(kind.inputs, inst.inputs)}
            kwargs.update(zip(kind.attrs, (env[a] if isinstance(a, _RV) else a for a in inst.attrs)))
            if kind.has_decision:
                decision = self.decisions.get(inst)
                if decision_provider is not None:
                    inputs = [sub(v) for v in inst.inputs]
                    decision = decision_provider(inst, inputs, list(inst.attrs), decision)
                kwargs["decision"] = decision
            args = kwargs.pop(kind.inputs[0]) if kind.variadic else ()
            result = getattr(sch, kind.method)(*args, **kwargs)
            outs = list(result) if kind.returns_list else ([] if result is None else [result])
            for old, new in zip(inst.outputs, outs):
                env[old] = new

    def copy(self) -> Trace:
        return Trace(list(self.insts), dict(self.decisions))

    def simplified(self, remove_postproc: bool) -> Trace:
        """A copy without instructions whose only effect is outputs nobody uses
        (getters and samplers), and without the postprocessing part if asked."""
        kept, used = [], set()
        for inst in reversed(self._kept(remove_postproc)):
            pure = inst.kind.method.startswith(("get_", "sample_"))
            if pure and not any(o in used for o in inst.outputs):
                continue
            kept.append(inst)
            for v in inst.inputs + inst.attrs:
                used.update(_flat(v))
        kept.reverse()
        return Trace(kept, {i: d for i, d in self.decisions.items() if i in kept})

