"""Integrity of exported libraries: a trailer written after export, checked before ``dlopen``.

``dlopen`` trusts its file: a truncated or edited library can crash the process inside
the dynamic loader.  So an exported library gets a 24-byte trailer (``EMBERSUM``, the
length of the bytes before it, their CRC-32; the dynamic loader ignores bytes past the
ELF segments), and ``check_library_file`` runs before every load: the ELF header must
be whole, every segment and the section table must lie inside the file, and a trailer,
when present, must match.  The C runtime (``ember/runtime/c_api``) runs the same checks.
"""

from __future__ import annotations

import os
import struct
import zlib

__all__ = ["LibraryFileError", "TRAILER_MAGIC", "seal", "check_library_file", "read_trailer"]

TRAILER_MAGIC = b"EMBERSUM"
_TRAILER = struct.Struct("<8sQI4x")  # magic, payload length, crc32, padding → 24 bytes
_CHUNK = 1 << 22


class LibraryFileError(ValueError):
    """An exported library that is truncated, corrupt or not a library at all."""


def _crc32(path: str, length: int) -> int:
    crc, left = 0, length
    with open(path, "rb") as f:
        while left:
            chunk = f.read(min(_CHUNK, left))
            if not chunk:
                break
            crc = zlib.crc32(chunk, crc)
            left -= len(chunk)
    return crc


def seal(path: str) -> None:
    """Append the integrity trailer to the library ``path`` (once)."""
    if read_trailer(path) is not None:
        return
    length = os.path.getsize(path)
    with open(path, "ab") as f:
        f.write(_TRAILER.pack(TRAILER_MAGIC, length, _crc32(path, length)))


def read_trailer(path: str) -> tuple[int, int] | None:
    """(payload length, crc) from the trailer, or None when the file has none."""
    size = os.path.getsize(path)
    if size < _TRAILER.size:
        return None
    with open(path, "rb") as f:
        f.seek(size - _TRAILER.size)
        magic, length, crc = _TRAILER.unpack(f.read(_TRAILER.size))
    return (length, crc) if magic == TRAILER_MAGIC else None


def _check_elf(path: str, size: int, what: str) -> None:
    with open(path, "rb") as f:
        head = f.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF":
            raise LibraryFileError(f"{what}: {path!r} is not a shared library (no ELF header); was it written "
                                   "by export_library?")
        if head[4] != 2 or head[5] != 1:
            raise LibraryFileError(f"{what}: {path!r} is not a 64-bit little-endian library")
        phoff, shoff = struct.unpack_from("<QQ", head, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", head, 0x36)
        if phoff + phentsize * phnum > size or shoff + shentsize * shnum > size or phentsize < 56:
            raise LibraryFileError(f"{what}: {path!r} is truncated or corrupt (its ELF tables lie past the "
                                   f"end of the file, {size} bytes)")
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    for i in range(phnum):
        p_offset, _, _, p_filesz = struct.unpack_from("<QQQQ", table, i * phentsize + 8)
        if p_offset + p_filesz > size:
            raise LibraryFileError(f"{what}: {path!r} is truncated (segment {i} ends at byte "
                                   f"{p_offset + p_filesz}, the file has {size} bytes)")


def check_library_file(path: str, what: str = "load_module") -> None:
    """Raise ``LibraryFileError`` unless ``path`` looks like a whole, unmodified library."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what}: path {path!r} does not exist")
    size = os.path.getsize(path)
    trailer = read_trailer(path)
    if trailer is not None:
        length, crc = trailer
        if length != size - _TRAILER.size:
            raise LibraryFileError(f"{what}: {path!r} is truncated or was modified after export (expected "
                                   f"{length + _TRAILER.size} bytes, found {size})")
        if _crc32(path, length) != crc:
            raise LibraryFileError(f"{what}: {path!r} was modified after export (checksum mismatch); "
                                   "re-export it")
        size = length
    _check_elf(path, size, what)
