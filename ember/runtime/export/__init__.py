"""Exporting compiled models as files people ship, and checking such files on load.

- ``seal``: an integrity trailer (length + CRC-32) appended to exported libraries, and
  the structural checks (ELF header, segments inside the file) run before ``dlopen``;
- ``aot_c``: the native entry point (one C function that runs a static-shape VM function
  without Python), compiled into the exported library for the C API;
- ``library``: ``export_executable`` (``.so`` or ``.tar`` of objects) and loading ``.tar``;
- ``blob``: bytes embedded behind a symbol in an object file, and the toolchain runner.
"""

from .seal import LibraryFileError, check_library_file, seal
