"""Issue 24 item 9: an integer timestamp beyond 64 bits is refused with its line, never re-typed to float."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankmeter import InputError
from rankmeter.cli import main
from rankmeter.io.interactions import read_interactions


@pytest.mark.parametrize("big", ["99999999999999999999", "-99999999999999999999", "9" * 5000])
def test_big_integer_timestamp_refused_with_its_line(tmp_path: Path, big: str) -> None:
    f = tmp_path / "inter.csv"
    f.write_text(f"user,item,rating,timestamp\nu1,a,5,1\nu1,b,4,2\nu1,c,3,{big}\nu2,a,5,3\n")
    with pytest.raises(InputError, match="does not fit in a signed 64-bit integer") as info:
        read_interactions(f)
    assert info.value.line == 4


def test_split_cli_refuses_instead_of_writing_floats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "inter.tsv"
    f.write_text("user\titem\trating\ttimestamp\nu1\ta\t5\t1\nu1\tb\t4\t99999999999999999999\nu2\ta\t5\t3\n")
    with pytest.raises(SystemExit) as info:
        main(["split", str(f), "--method", "temporal", "--out", str(tmp_path / "out")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "inter.tsv:3: timestamp 99999999999999999999 does not fit" in err
    assert not (tmp_path / "out" / "train.parquet").exists()


def test_floats_written_as_floats_are_kept(tmp_path: Path) -> None:
    """A float column the user wrote as floats (1.5, 1e20) is theirs: read as float64, no error."""
    f = tmp_path / "inter.csv"
    f.write_text("user,item,timestamp\nu1,a,1.5\nu1,b,1e20\nu2,a,100000000000000000000.0\n")
    data = read_interactions(f)
    assert data.time_values().tolist() == [1.5, 1e20, 1e20]


def test_in_range_integers_stay_integers(tmp_path: Path) -> None:
    f = tmp_path / "inter.csv"
    f.write_text(f"user,item,timestamp\nu1,a,1\nu1,b,{2**63 - 1}\nu2,a,{-(2**63)}\n")
    assert read_interactions(f).time_values().tolist() == [1, 2**63 - 1, -(2**63)]
