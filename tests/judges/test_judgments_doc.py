"""docs/judgments.md's worked example runs as written on trec_eval's qrels.test (skips without ../shared),
and its commented figures are what it computes."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("RANKMETER_SHARED", ROOT.parent / "shared"))


def _blocks() -> list[str]:
    text = (ROOT / "docs" / "judgments.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.skipif(not (SHARED / "data/trec_eval/qrels.test").is_file(), reason="../shared/data is absent")
def test_the_worked_example_runs_and_gives_its_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RANKMETER_SHARED", str(SHARED))
    ns: dict[str, object] = {}
    for code in _blocks():
        exec(compile(code, "docs/judgments.md", "exec"), ns)
    ag, jc, res, st = ns["ag"], ns["jc"], ns["res"], ns["st"]
    assert ag.pairs == {"both": 3681, "only_a": 0, "only_b": 0}  # type: ignore[attr-defined]
    assert round(ag.kappa(), 3) == 0.484 and round(ag.alpha("nominal"), 3) == 0.478  # type: ignore[attr-defined]
    assert {m: round(t, 3) for m, t in jc.tau.items()} == {"ndcg@10": 0.333, "P@20": 0.667}  # type: ignore[attr-defined]
    assert (len(jc.flips), jc.decisions) == (0, 12)  # type: ignore[attr-defined]
    b = res.bounds["ap"].mean()  # type: ignore[attr-defined]
    assert (round(b["low"], 3), round(b["high"], 3)) == (0.083, 0.414)
    assert ns["p"].size == 106  # type: ignore[attr-defined]
    assert round(st.mean["EE-L"], 4) == 1.6228  # type: ignore[attr-defined]
