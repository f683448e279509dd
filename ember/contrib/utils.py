"""``tvm.contrib.utils``: ``tempdir()``, a temporary directory for exported libraries.

TVM tutorials write ``temp = utils.tempdir(); lib.export_library(temp.relpath("m.so"))``.
The directory is removed when the object is garbage collected (or on ``remove()``),
unless ``keep_for_debug`` is set.
"""

from __future__ import annotations

import os
import shutil
import tempfile

__all__ = ["TempDirectory", "tempdir"]


class TempDirectory:
    """A directory that deletes itself; ``relpath(name)`` gives a path inside it."""

    def __init__(self, custom_path: str | None = None, keep_for_debug: bool = False):
        if custom_path is not None:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = os.path.abspath(custom_path)
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="ember_")
        self._owned = custom_path is None and not keep_for_debug

    def relpath(self, name: str) -> str:
        """The absolute path of ``name`` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self) -> list[str]:
        return os.listdir(self.temp_dir)

    def remove(self) -> None:
        if self._owned and os.path.isdir(self.temp_dir):
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        self._owned = False

    def __enter__(self) -> TempDirectory:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()

    def __del__(self):
        try:
            self.remove()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self) -> str:
        return f"TempDirectory({self.temp_dir!r})"


def tempdir(custom_path: str | None = None, keep_for_debug: bool = False) -> TempDirectory:
    """A fresh temporary directory (or ``custom_path``, which is kept)."""
    return TempDirectory(custom_path, keep_for_debug)
