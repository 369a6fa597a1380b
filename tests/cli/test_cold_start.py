"""The evaluate command stays light at start-up: no pandas, no pyarrow.compute wrappers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


@pytest.mark.parametrize("run", [
    "q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 2.0 s\nq1 Q0 d9 3 1.0 s\nq2 Q0 d3 1 0.5 s\n",
    # not grouped by query: the regrouping route (its empty tables once cost 0.15 s of pandas imports)
    "q1 Q0 d1 0 2.0 s\nq2 Q0 d3 0 0.5 s\nq1 Q0 d2 0 2.0 s\nq1 Q0 d9 0 1.0 s\n",
], ids=["grouped", "not-grouped"])
def test_evaluate_imports_neither_pandas_nor_pyarrow_compute(tmp_path: Path, run: str) -> None:
    # q3 is judged but missing from the run: the empty-ranking path stays light too
    (tmp_path / "q.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq3 0 d4 1\n")
    (tmp_path / "r.txt").write_text(run)
    code = textwrap.dedent(f"""
        import sys
        sys.argv = ["rankmeter", "evaluate", {str(tmp_path / "q.txt")!r}, {str(tmp_path / "r.txt")!r},
                    "-m", "ndcg@10", "-m", "map", "-m", "P@1", "--format", "json"]
        from rankmeter.cli._app import main
        try:
            main()
        except SystemExit:
            pass
        print([m for m in ("pandas", "pyarrow.compute") if m in sys.modules])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert '"P@1": 0.3333' in out  # q1: d1 and d2 tie, d2 (ids descending) first and not relevant; q3 scores 0
    assert out.strip().splitlines()[-1] == "[]"
