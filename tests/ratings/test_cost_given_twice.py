"""Issue 24 item 10: a cost matrix entry given twice is an error naming the pair, in every form."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankmeter import InputError, ParameterError
from rankmeter.metrics.rating_costs import CostMatrix


@pytest.mark.parametrize("spec", ["4.5,5=1;4.5,5=2", "4.5,5=1; d(4.5, 5.0)=1", "4.5,5=1\n4.50,5=3"])
def test_inline(spec: str) -> None:
    with pytest.raises(ParameterError, match=r"the cost d\(4\.5,5\) is given twice"):
        CostMatrix.from_any(spec)


def test_mapping_keys_that_name_one_pair() -> None:
    with pytest.raises(ParameterError, match=r"d\(4\.5,5\) is given twice, 1 then 2.*'4\.50,5'"):
        CostMatrix.from_any({(4.5, 5): 1, "4.50,5": 2})


def test_csv_file_names_both_lines(tmp_path: Path) -> None:
    f = tmp_path / "cost.csv"
    f.write_text("predicted,true,cost\n4.5,5,1\n4,4,0\n4.5,5.0,2\n")
    with pytest.raises(InputError, match=r"given twice, 1 then 2.*line 2 gave it first") as info:
        CostMatrix.from_any(str(f))
    assert info.value.line == 4


@pytest.mark.parametrize("text", ['{"4.5,5": 1, "4.5,5": 2}', '{"4.5,5": 1, "4.50,5": 2}',
                                  '{"levels": [1, 2], "matrix": [[0, 1], [1, 0]], "levels": [1, 3]}'])
def test_json_file(tmp_path: Path, text: str) -> None:
    f = tmp_path / "cost.json"
    f.write_text(text)
    with pytest.raises(InputError, match="given twice"):
        CostMatrix.from_any(str(f))


def test_once_each_is_accepted() -> None:
    cm = CostMatrix.from_any("4.5,5=1;5,4.5=2")
    assert (cm.cost(4.5, 5), cm.cost(5, 4.5)) == (1.0, 2.0)


def test_cli(tmp_path: Path) -> None:
    data = tmp_path / "ratings.csv"
    data.write_text("user,item,rating,prediction\nu1,a,5,4.5\nu1,b,4,4\n")
    out = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(data), "-m", "cost",
                          "--cost", "4.5,5=1;4.5,5=2;4,4=0"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "rankmeter: error: the cost d(4.5,5) is given twice, 1 then 2" in out.stderr
