"""Issue 24 item 18: docs/intent.md's worked example runs on its own, as a reader copies it (its imports included)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_worked_example_runs_in_a_fresh_namespace() -> None:
    page = (ROOT / "docs" / "intent.md").read_text(encoding="utf-8")
    start = page.index("A worked example (ndeval's own)")
    block = re.search(r"```python\n(.*?)```", page[start:], re.S)
    assert block is not None
    exec(compile(block.group(1), "docs/intent.md (worked example)", "exec"), {"__name__": "__docs__"})
