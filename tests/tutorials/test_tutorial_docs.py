"""Every page of docs/tutorials runs: its ```python blocks, in order, in one namespace."""

import pathlib
import re
import runpy

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tutorials"
PAGES = sorted(p for p in DOCS.glob("*.md") if p.name not in ("README.md", "gaps.md"))
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def test_pages_exist():
    assert len(PAGES) >= 6


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "\n".join(_BLOCK.findall(page.read_text()))
    assert source, f"{page.name} has no python blocks"
    script = tmp_path / f"tutorial_{page.stem}.py"  # a real file, so TVMScript can read its source
    script.write_text(source)
    runpy.run_path(str(script), run_name=f"tutorial_{page.stem}")
