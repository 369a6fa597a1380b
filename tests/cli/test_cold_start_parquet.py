"""The evaluate command on Parquet files stays light at start-up too: no pandas, no pyarrow.compute."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("ints", [False, True])  # integer ids: matched to the judged ids' decimal text
def test_evaluate_parquet_imports_neither_pandas_nor_pyarrow_compute(tmp_path: Path, stream: bool, ints: bool) -> None:
    def ids(values: list[str]) -> list:
        return [int(v[1:]) for v in values] if ints else values

    pq.write_table(pa.table({"query": ids(["q1", "q1", "q2"]), "item": ids(["d1", "d2", "d3"]),
                             "grade": [1.0, 0.0, 2.0]}), tmp_path / "q.parquet")
    pq.write_table(pa.table({"query": ids(["q1", "q1", "q1", "q2"]), "item": ids(["d9", "d1", "d2", "d3"]),
                             "score": [1.0, 2.0, 2.0, 0.5]}), tmp_path / "r.parquet")
    extra = ["--chunk-rows", "2"] if stream else []
    code = textwrap.dedent(f"""
        import sys
        sys.argv = ["rankmeter", "evaluate", {str(tmp_path / "q.parquet")!r}, {str(tmp_path / "r.parquet")!r},
                    "-m", "P@1", "--format", "json", *{extra!r}]
        from rankmeter.cli._app import main
        try:
            main()
        except SystemExit:
            pass
        print([m for m in ("pandas", "pyarrow.compute", "pyarrow.dataset") if m in sys.modules])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert '"P@1": 0.5' in out  # q1: d1 and d2 tie, d2 (ids descending) first and not relevant; q2: d3
    assert out.strip().splitlines()[-1] == "[]"


def test_a_missing_parquet_column_is_still_an_error(tmp_path: Path) -> None:
    from rankmeter._errors import InputError
    from rankmeter.io.source import open_input
    from rankmeter.io.tables import read_parquet

    pq.write_table(pa.table({"a": [1]}), tmp_path / "t.parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_parquet(open_input(tmp_path / "t.parquet"), columns=["b"])
    assert read_parquet(open_input(tmp_path / "t.parquet"), columns=["a"]).column_names == ["a"]
