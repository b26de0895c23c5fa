"""The examples of docs/engine.md run and print what the page says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_docs_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the records example writes match.json
    blocks = _blocks()
    assert len(blocks) == 4
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(DOC), "exec"), namespace)
    lines = out.getvalue().splitlines()
    # the first example's figures, as the page quotes them
    assert lines[0] == "0 1"
    assert "[73, 107] 1 10" in lines
    assert sum("'type': 'pishti'" in line for line in lines) == 2
    assert (tmp_path / "match.json").is_file()
    # the batch engine's example (numpy is in the research extra)
    assert lines[-2:] == ["[9.73, 9.61]", "[12, 4]"]
