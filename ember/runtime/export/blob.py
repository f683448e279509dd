"""Embedding bytes in an object file, and running the C toolchain for exports.

An exported library carries data the loader reads back through two symbols: ``<symbol>``
(the bytes, 64-byte aligned, read-only) and ``<symbol>_size`` (their length as a 64-bit
integer).  The VM program and a CUDA module's code travel this way.
"""

from __future__ import annotations

import os
import subprocess


def run_tool(cmd: list, what: str) -> None:
    """Run a compiler or linker; a failure raises with the command and its stderr."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"export_library: {what} failed ({' '.join(map(str, cmd))}):\n{done.stderr}")


def blob_object(data: bytes, symbol: str, tmp: str, cc: str, what: str) -> str:
    """Assemble ``data`` into an object file in ``tmp`` defining ``symbol`` and
    ``symbol_size``; returns the object's path."""
    payload, asm, obj = (os.path.join(tmp, f"{symbol}{ext}") for ext in (".bin", ".s", ".o"))
    with open(payload, "wb") as f:
        f.write(data)
    with open(asm, "w") as f:
        f.write(f'  .section .rodata\n  .globl {symbol}\n  .p2align 6\n{symbol}:\n'
                f'  .incbin "{payload}"\n  .globl {symbol}_size\n  .p2align 3\n'
                f'{symbol}_size:\n  .quad {len(data)}\n'
                '  .section .note.GNU-stack,"",@progbits\n')
    run_tool([cc, "-c", asm, "-o", obj], f"assembling {what}")
    return obj
