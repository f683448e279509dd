"""Runs of kernel calls made in one native call: ``run_calls(entries, count)``.

Between two kernels, the VM's straight-line Python (``fastpath.py``) costs well under a
microsecond on warm caches, but a kernel that streams megabytes through the caches leaves
the interpreter's own data cold, and on ResNet-50 the gap between two calls measured ~7 µs
(~2 % of the model at 2 threads).  So consecutive kernel calls whose argument arrays are all
known when the function is written out go to one native loop instead::

    entries: uint64[3 * count] = (kernel address, args array address, argument count) …
    run_calls(entries, count) -> 0, or 1 + the index of the first call that returned non-zero

The loop is eleven lines of LLVM IR, JIT-compiled once per process with llvmlite (a core
dependency; without it, ``runner()`` is None and the VM calls kernels one by one).  A failed
call (a kernel's own argument check) is re-run through its ``CompiledFunction``, which
explains it (``finish``), exactly as a single failed native call is.
"""

from __future__ import annotations

import ctypes
import functools
import threading

__all__ = ["runner", "finish", "entries_array", "ENTRY_WORDS"]

ENTRY_WORDS = 3  # kernel address, args array address, argument count
_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)

_IR = """
define i32 @ember_run_calls(ptr %entries, i32 %count) {
entry:
  %none = icmp sle i32 %count, 0
  br i1 %none, label %done, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %ok ]
  %word = mul i32 %i, 3
  %w0 = sext i32 %word to i64
  %fslot = getelementptr i64, ptr %entries, i64 %w0
  %f = load i64, ptr %fslot
  %w1 = add i64 %w0, 1
  %aslot = getelementptr i64, ptr %entries, i64 %w1
  %a = load i64, ptr %aslot
  %w2 = add i64 %w0, 2
  %nslot = getelementptr i64, ptr %entries, i64 %w2
  %n = load i64, ptr %nslot
  %fp = inttoptr i64 %f to ptr
  %ap = inttoptr i64 %a to ptr
  %n32 = trunc i64 %n to i32
  %status = call i32 %fp(ptr %ap, i32 %n32)
  %next = add i32 %i, 1
  %failed = icmp ne i32 %status, 0
  br i1 %failed, label %fail, label %ok
ok:
  %more = icmp slt i32 %next, %count
  br i1 %more, label %loop, label %done
fail:
  ret i32 %next
done:
  ret i32 0
}
"""

_LOCK = threading.Lock()


@functools.cache
def runner():
    """The native ``run_calls`` (a ctypes function of (entries, count)), or None when llvmlite
    cannot JIT it here."""
    try:
        import llvmlite.binding as llvm

        with _LOCK:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            module = llvm.parse_assembly(_IR)
            module.verify()
            machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
            engine = llvm.create_mcjit_compiler(module, machine)
            engine.finalize_object()
            address = engine.get_function_address("ember_run_calls")
    except Exception:  # noqa: BLE001 - no JIT here (no llvmlite, a foreign platform): call one by one
        return None
    fn = _SIGNATURE(address)
    fn.engine = engine  # the machine code lives as long as the engine
    return fn


def entries_array(calls) -> ctypes.Array:
    """The ``entries`` of ``run_calls`` for ``calls``: (kernel address, args array, count) each,
    the args arrays being ctypes arrays that outlive the entries (frame slots)."""
    words = []
    for address, args, n in calls:
        words += [address, ctypes.addressof(args), n]
    return (ctypes.c_uint64 * len(words))(*words)


def finish(entries: ctypes.Array, failed: int, checked: tuple) -> None:
    """After ``run_calls`` returned ``failed`` (1-based): the failed call again through its
    ``CompiledFunction`` (``checked[i] = (callee, args)``), which raises the explanation; if it
    runs after all, the rest of the run natively, and so on."""
    count = len(checked)
    base = ctypes.addressof(entries)
    fn = runner()
    while failed:
        callee, args = checked[failed - 1]
        callee(*args)
        if failed == count:
            return
        rest = fn(base + failed * ENTRY_WORDS * 8, count - failed)
        failed = failed + rest if rest else 0
