"""Ready-made pass instruments (TVM's ``tvm.ir.instrument``): time every pass, or print the
module before / after each one.  Use them with ``PassContext(instruments=[...])``."""

from __future__ import annotations

import time

from ember.ir import IRModule

from .pass_infra import PassInfo, PassInstrument, pass_instrument

__all__ = ["PassInstrument", "PassTimingInstrument", "PrintAfterAll", "PrintBeforeAll", "pass_instrument"]


class PassTimingInstrument(PassInstrument):
    """Records how long each pass ran; ``render()`` lists them, nested passes indented."""

    def __init__(self):
        self._records: list[tuple[str, int, float]] = []
        self._starts: list[float] = []

    def enter_pass_ctx(self) -> None:
        self._records, self._starts = [], []

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None:
        self._starts.append(time.perf_counter())

    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None:
        start = self._starts.pop()
        self._records.append((info.name, len(self._starts), time.perf_counter() - start))

    def render(self) -> str:
        """One line per pass run: its name and time in microseconds (outer passes last)."""
        lines = ["Pass timing (us):"]
        lines += [f"{'  ' * depth}{name}: {seconds * 1e6:.0f}" for name, depth, seconds in self._records]
        return "\n".join(lines)


class PrintBeforeAll(PassInstrument):
    """Prints the module before every pass."""

    def run_before_pass(self, mod: IRModule, info: PassInfo) -> None:
        print(f"Before Running Pass: {info.name}")
        mod.show()


class PrintAfterAll(PassInstrument):
    """Prints the module after every pass."""

    def run_after_pass(self, mod: IRModule, info: PassInfo) -> None:
        print(f"After Running Pass: {info.name}")
        mod.show()
