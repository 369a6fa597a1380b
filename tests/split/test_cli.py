"""``rankmeter split``: files written, summary.json, stderr summary, exit code 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from rankmeter.cli import main
from rankmeter.split import holdout, kfold, leave_k_out, temporal

ROOT = Path(__file__).resolve().parents[2]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def udata(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 400
    lines = [
        f"{u}\t{i}\t{r}\t{t}"
        for u, i, r, t in zip(rng.integers(1, 30, n), rng.integers(1, 80, n), rng.integers(1, 6, n), rng.integers(8e8, 9e8, n))
    ]
    path = tmp_path / "u.data"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_holdout_per_user_writes_parquet_and_summary(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(
        ["split", str(udata), "--method", "holdout", "--per-user", "--test-fraction", "0.25", "--seed", "3", "--out", str(out)],
        capsys,
    )
    assert code == 0, stderr
    train, test = pq.read_table(out / "train.parquet"), pq.read_table(out / "test.parquet")
    assert train.column_names == test.column_names == ["user", "item", "rating", "timestamp"]
    expected = holdout(udata, test_fraction=0.25, per_user=True, seed=3)
    assert train.equals(expected.train) and test.equals(expected.test)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "holdout" and summary["params"]["seed"] == 3
    assert summary["train"]["rows"] == train.num_rows and summary["test"]["rows"] == test.num_rows
    assert summary["input"]["rows"] == 400 == train.num_rows + test.num_rows + summary["dropped_rows"]
    assert summary["files"]["train"].endswith("train.parquet")
    assert "holdout" in stderr and "train:" in stderr and "cold in test" in stderr
    assert stdout == ""


def test_temporal_cutoff_csv(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    code, _, stderr = run_cli(
        ["split", str(udata), "--method", "temporal", "--cutoff", "1998-01-01", "--time-unit", "s",
         "--format", "csv", "--out", str(out)],
        capsys,
    )
    assert code == 0, stderr
    test = pacsv.read_csv(out / "test.csv")
    assert test.num_rows and min(test.column("timestamp").to_pylist()) >= 883612800
    assert (out / "train.csv").exists()
    assert json.loads((out / "summary.json").read_text())["params"]["threshold"] == 883612800


def test_temporal_span_and_per_user_k(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["split", str(udata), "--method", "temporal", "--test-span", "0.2", "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    code, _, err = run_cli(
        ["split", str(udata), "--method", "temporal", "--per-user", "--k", "2", "--out", str(tmp_path / "b")], capsys
    )
    assert code == 0, err
    expected = temporal(udata, per_user=True, k=2)
    assert pq.read_table(tmp_path / "b" / "test.parquet").equals(expected.test)
    assert "small users" in err or expected.summary.small_users.users == 0


def test_leave_k_out(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["split", str(udata), "--method", "leave-k-out", "--k", "1", "--by", "random",
                            "--seed", "5", "--out", str(tmp_path / "l")], capsys)
    assert code == 0, err
    expected = leave_k_out(udata, by="random", seed=5)
    assert pq.read_table(tmp_path / "l" / "test.parquet").equals(expected.test)


def test_kfold_writes_a_folder_per_fold(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "k"
    code, _, err = run_cli(["split", str(udata), "--method", "kfold", "--folds", "3", "--per-user", "--out", str(out)], capsys)
    assert code == 0, err
    expected = kfold(udata, folds=3, per_user=True)
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["folds"]) == 3
    for i in range(3):
        folder = out / f"fold-{i + 1}"
        assert pq.read_table(folder / "train.parquet").equals(expected[i].train)
        assert pq.read_table(folder / "test.parquet").equals(expected[i].test)
        assert summary["folds"][i]["files"]["test"].endswith(f"fold-{i + 1}/test.parquet")
    assert "fold 3:" in err


def test_filters_and_cold_options(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(
        ["split", str(udata), "--method", "holdout", "--min-user-interactions", "10", "--min-item-interactions", "3",
         "--drop-cold-items", "--out", str(tmp_path / "f")],
        capsys,
    )
    assert code == 0, err
    summary = json.loads((tmp_path / "f" / "summary.json").read_text())
    assert summary["filtered"]["rows"] > 0 and "filtered" in err
    assert summary["params"]["drop_cold_items"] is True


def test_csv_input_keeps_every_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.csv"
    path.write_text("UserId,ItemId,extra,Time\n" + "".join(f"u{i % 4},i{i % 7},e{i},{i}\n" for i in range(40)))
    code, _, err = run_cli(["split", str(path), "--method", "holdout", "--out", str(tmp_path / "o"), "--format", "csv"], capsys)
    assert code == 0, err
    train = pacsv.read_csv(tmp_path / "o" / "train.csv")
    assert train.column_names == ["UserId", "ItemId", "extra", "Time"] and train.num_rows == 32


@pytest.mark.parametrize(
    "args, message",
    [
        (["--method", "holdout", "--test-fraction", "1.5"], "The --test-fraction option"),
        (["--method", "leave-k-out", "--k", "1000"], "The --k option"),
        (["--method", "kfold", "--folds", "100000"], "The --folds option"),
        (["--method", "temporal", "--cutoff", "1998-01-01"], "--time-unit s"),
        (["--method", "holdout", "--user", "nope"], "no column 'nope'"),
        (["--method", "leave-k-out", "--k", "12", "--small-users", "error"], "choose --small-users train"),
    ],
)
def test_bad_input_exits_2_with_one_line(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = run_cli(["split", str(udata), *args, "--out", str(tmp_path / "x")], capsys)
    assert code == 2
    assert message in err and err.startswith("rankmeter: error:") and err.count("\n") == 1
    assert not (tmp_path / "x" / "train.parquet").exists()


def test_temporal_without_timestamp_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.csv"
    path.write_text("user,item\na,b\na,c\n")
    code, _, err = run_cli(["split", str(path), "--method", "temporal", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "needs a timestamp column" in err and err.count("\n") == 1


def test_missing_file_and_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["split", str(tmp_path / "none.csv"), "--method", "holdout", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "no such file" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("user,item\na,b\nc\n")
    code, _, err = run_cli(["split", str(bad), "--method", "holdout", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and f"{bad}:3:" in err


def test_option_for_another_method_is_a_usage_error(udata: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["split", str(udata), "--method", "holdout", "--folds", "3", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "--folds does not apply to --method holdout" in err
    code, _, err = run_cli(["split", str(udata), "--method", "leave-k-out", "--seed", "3", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "--by random" in err


def test_real_entry_point(udata: Path, tmp_path: Path) -> None:
    out = tmp_path / "p"
    done = subprocess.run(
        [sys.executable, "-m", "rankmeter", "split", str(udata), "--method", "leave-k-out", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out / "test.parquet").num_rows == leave_k_out(udata).summary.test.rows
    bad = subprocess.run(
        [sys.executable, "-m", "rankmeter", "split", str(udata), "--method", "holdout", "--test-fraction", "0", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_empty_test_part_still_writes_a_readable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"user": [1, 1, 2], "item": [1, 2, 3], "ts": [1, 2, 3]}), path)
    code, _, err = run_cli(["split", str(path), "--method", "temporal", "--cutoff", "10", "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert pq.read_table(tmp_path / "o" / "test.parquet").num_rows == 0
    assert pq.read_table(tmp_path / "o" / "train.parquet").num_rows == 3


# --------------------------------------------------------------------------- output folder, empty input

def _split_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "split", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)
    assert "internal error" not in proc.stderr + proc.stdout
    return proc


def _small_csv(path: Path) -> Path:
    path.write_text("user,item,timestamp\n1,a,1\n1,b,2\n1,c,3\n2,a,1\n2,c,5\n2,d,6\n3,a,2\n3,b,4\n", encoding="utf-8")
    return path


def test_uncreatable_out_is_an_error_before_the_work(tmp_path: Path) -> None:
    data = _small_csv(tmp_path / "d.csv")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in ("/proc/nope/x", str(blocker / "sub")):
        proc = _split_cli(str(data), "--method", "holdout", "--out", out)
        assert proc.returncode == 2 and "--out" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    proc = _split_cli(str(data), "--method", "holdout", "--out", str(blocker))
    assert proc.returncode == 2 and "file" in proc.stderr


def test_non_empty_out_needs_overwrite_which_removes_only_own_files(tmp_path: Path) -> None:
    data = _small_csv(tmp_path / "d.csv")
    out = tmp_path / "out"
    assert _split_cli(str(data), "--method", "kfold", "--folds", "2", "--out", str(out)).returncode == 0
    assert (out / "fold-2" / "test.parquet").exists()
    proc = _split_cli(str(data), "--method", "holdout", "--out", str(out))
    assert proc.returncode == 2 and "not empty" in proc.stderr and "--overwrite" in proc.stderr
    (out / "notes.txt").write_text("mine")
    proc = _split_cli(str(data), "--method", "holdout", "--format", "csv", "--out", str(out), "--overwrite")
    assert proc.returncode == 0, proc.stderr
    # the k-fold files are gone (no stale folds next to the new split), the user's file stays
    # (and the folder's manifest, which lists the complete files: issue 32.3)
    assert sorted(p.name for p in out.iterdir()) == [".rankmeter-files.json", "notes.txt", "summary.json", "test.csv",
                                                     "train.csv"]
    assert json.loads((out / "summary.json").read_text())["method"] == "holdout"


def test_overwrite_refuses_to_replace_a_file_rankmeter_did_not_write(tmp_path: Path) -> None:
    data = _small_csv(tmp_path / "d.csv")
    out = tmp_path / "out"
    out.mkdir()
    (out / "train.parquet").write_text("someone else's")
    proc = _split_cli(str(data), "--method", "holdout", "--out", str(out), "--overwrite")
    assert proc.returncode == 2 and "train.parquet" in proc.stderr
    assert (out / "train.parquet").read_text() == "someone else's"


@pytest.mark.parametrize("method", ["holdout", "temporal", "leave-k-out", "kfold"])
@pytest.mark.parametrize("header", ["user,item,rating,timestamp\n", "user,item\n"])
def test_header_only_input_is_one_no_rows_error(tmp_path: Path, method: str, header: str) -> None:
    data = tmp_path / "empty.csv"
    data.write_text(header, encoding="utf-8")
    extra = ["--per-user"] if method == "holdout" else []
    proc = _split_cli(str(data), "--method", method, "--out", str(tmp_path / "out"), *extra)
    assert proc.returncode == 2, proc.stderr
    assert "no rows" in proc.stderr and "type null" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_empty_table_is_a_no_rows_error_in_the_api() -> None:
    from rankmeter import InputError

    with pytest.raises(InputError, match="no rows"):
        holdout({"user": [], "item": []}, per_user=True)
