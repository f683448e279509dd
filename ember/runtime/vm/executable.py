"""The Relax VM's executable: functions as instruction lists, constants, and kernels.

An ``Executable`` is plain data: each ``VMFunction`` is a list of instructions over
numbered registers (parameters occupy the first registers), the constant pool holds
NDArrays and other values, and ``kernels`` is a runtime Module with the compiled
PrimFuncs.  Instructions:

- ``Call(dst, func, args)``: call ``func`` (a VM function, a kernel, or a global packed
  function, looked up in that order) with ``args`` and store the result in ``dst``
  (``dst`` may be ``None`` for calls kept for their effect);
- ``Ret(reg)``;  ``Goto(offset)``;  ``If(cond, false_offset)`` (relative jumps).

An argument is ``Arg(kind, value)`` with kind ``reg``, ``const`` (constant-pool index),
``imm`` (an inline Python value: int, float, str, tuple of ints) or ``func`` (a function
name, passed as a callable).
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["Arg", "Call", "Ret", "Goto", "If", "VMFunction", "Executable"]


@dataclasses.dataclass(frozen=True, slots=True)
class Arg:
    kind: str  # "reg" | "const" | "imm" | "func"
    value: Any

    def __str__(self) -> str:
        return {"reg": "%{}", "const": "c[{}]", "func": "@{}", "vm": "vm"}.get(self.kind, "{!r}").format(self.value)


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    dst: int | None
    func: str
    args: tuple

    def __str__(self) -> str:
        lhs = f"%{self.dst} = " if self.dst is not None else ""
        return f"{lhs}call {self.func}({', '.join(map(str, self.args))})"


@dataclasses.dataclass(frozen=True, slots=True)
class Ret:
    reg: int

    def __str__(self) -> str:
        return f"ret %{self.reg}"


@dataclasses.dataclass(frozen=True, slots=True)
class Goto:
    offset: int

    def __str__(self) -> str:
        return f"goto {self.offset:+d}"


@dataclasses.dataclass(frozen=True, slots=True)
class If:
    cond: int
    false_offset: int

    def __str__(self) -> str:
        return f"if %{self.cond} else goto {self.false_offset:+d}"


@dataclasses.dataclass(frozen=True)
class VMFunction:
    name: str
    params: tuple  # parameter names, in register order 0..len-1
    instrs: tuple
    num_regs: int


@dataclasses.dataclass
class Executable:
    """What ``relax.build`` returns: run it with ``relax.VirtualMachine(exe, device)``."""

    functions: dict  # name → VMFunction
    constants: list
    kernels: Any = None  # a runtime Module with the compiled PrimFuncs
    memory_plans: dict = dataclasses.field(default_factory=dict)  # function → printable plan
    metadata: dict = dataclasses.field(default_factory=dict)  # str → JSON value, kept by export_library

    def as_text(self) -> str:
        """The instruction listing of every function, for reading and debugging."""
        lines = []
        for func in self.functions.values():
            lines.append(f"vm.function {func.name}({', '.join(func.params)}) regs={func.num_regs}")
            for i, instr in enumerate(func.instrs):
                lines.append(f"  {i:4d}  {instr}")
        return "\n".join(lines)

    def stats(self) -> str:
        kernels = 0 if self.kernels is None else len(getattr(self.kernels, "function_names", ()) or ())
        instrs = sum(len(f.instrs) for f in self.functions.values())
        return (f"{len(self.functions)} VM functions, {instrs} instructions, "
                f"{len(self.constants)} constants, {kernels} kernels")

    def __getitem__(self, name: str):
        if name not in self.functions and name == "default" and "graph_json" in self.metadata:
            from ..graph_executor import GraphModule  # lib["default"](dev), as relay.build's library

            return lambda device=None: GraphModule(self, None, device)
        return self.functions[name]

    def __contains__(self, name: str) -> bool:
        return name in self.functions

    def export_library(self, path: str, fcompile=None, cc: str | None = None, native_entry: bool = True,
                       **kwargs):
        """Write kernels, VM program and constants as one shared library (or a ``.tar`` of
        objects); load it with ``ember.runtime.load_module(path)``.  Static-shape models also
        get a native entry point for the C API.  Returns what that entry covers (or why
        there is none)."""
        from ..export.library import export_executable

        return export_executable(self, path, cc=cc, native_entry=native_entry)
