"""Checks on the project's layout that CI relies on."""

import collections
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_test_file_basenames_are_unique():
    names = collections.Counter(p.name for p in (ROOT / "tests").rglob("test_*.py"))
    assert not [n for n, c in names.items() if c > 1], "rename duplicated test files (see docs/dev/TEAM_NOTES.md)"


def test_runtime_imports_no_compiler_package():
    pattern = re.compile(r"^\s*(from|import) ember\.(relax|tir|te|topi|script|meta_schedule|dlight|codegen|arith|driver)\b")
    offenders = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in (ROOT / "ember" / "runtime").rglob("*.py")
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.match(line)
    ]
    assert not offenders, offenders


def test_readme_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text()
    head = text[: text.index("## ")]
    assert "pip install" in head and "examples/quickstart.py" in head and "pytest" in head
    assert "pytest" in (ROOT / ".ci" / "run").read_text()
