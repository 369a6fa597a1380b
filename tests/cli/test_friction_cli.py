"""Issue 24 item 18: the frictions a new user hits on the command line, each through the real executable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankmeter import ParameterError
from rankmeter.metrics.rating_scale import Scale


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=300,
                         cwd=cwd)
    assert "internal error" not in out.stderr and "Traceback" not in out.stderr, out.stderr
    return out


@pytest.fixture
def ratings(tmp_path: Path) -> dict[str, Path]:
    truth = tmp_path / "truth.csv"
    truth.write_text("user,item,rating\nu1,a,5\nu1,b,4\nu2,a,3\n")
    pred = tmp_path / "pred.csv"
    pred.write_text("user,item,prediction\nu1,a,4.5\nu2,a,3.5\n")
    inf = tmp_path / "inf.csv"
    inf.write_text("user,item,prediction\nu1,a,4.5\nu1,b,inf\nu2,a,-inf\n")
    return {"truth": truth, "pred": pred, "inf": inf}


def test_missing_fill_hint_says_how(ratings: dict[str, Path]) -> None:
    out = run_cli("evaluate-ratings", str(ratings["truth"]), str(ratings["pred"]))
    assert out.returncode == 2
    assert "--missing fill=VALUE to predict VALUE for them (e.g. --missing fill=3" in out.stderr
    assert "fill with fill=" not in out.stderr


def test_infinite_predictions_name_file_and_line(ratings: dict[str, Path]) -> None:
    out = run_cli("evaluate-ratings", str(ratings["truth"]), str(ratings["inf"]))
    assert out.returncode == 2
    assert "inf.csv:3: 2 predictions are infinite, e.g. inf" in out.stderr and "'u1,b,inf'" in out.stderr


@pytest.mark.parametrize("scale", ["1-5", "1,5", "\uff11:\uff15", "1:5:6", "1 5"])
def test_scale_only_min_max_in_ascii(ratings: dict[str, Path], scale: str) -> None:
    out = run_cli("evaluate-ratings", str(ratings["truth"]), str(ratings["pred"]), "--missing", "skip", "-m", "nmae",
                  "--scale", scale)
    assert out.returncode == 2 and "must be MIN:MAX in ASCII digits" in out.stderr
    with pytest.raises(ParameterError):
        Scale.parse(scale)


def test_scale_forms_still_accepted() -> None:
    assert (Scale.parse("1:5").min, Scale.parse(" 0.5 : 5 ").min, Scale.parse("-2:2").max) == (1.0, 0.5, 2.0)
    assert Scale.parse((1, 5)).max == 5.0


def test_trec_eval_version_alone() -> None:
    out = run_cli("trec_eval", "-v")
    assert out.returncode == 0 and "trec_eval version 10.0" in out.stderr
    assert "trec_eval version 9.0.8" in run_cli("trec_eval", "-v", "--compat", "9.0.8").stderr
    missing = run_cli("trec_eval")
    assert missing.returncode == 2 and "Missing argument 'QRELS'" in missing.stderr


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    cfg = tmp_path / "small.toml"
    cfg.write_text("[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n")
    return cfg


def test_run_experiment_refuses_an_unknown_test_with_one_recommender(small_config: Path, tmp_path: Path) -> None:
    out = run_cli("run-experiment", str(small_config), "-r", "popular", "--test", "bogus", "--out",
                  str(tmp_path / "o"))
    assert out.returncode == 2 and "The --test option must be one of t, wilcoxon" in out.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [["run-experiment", "CFG", "-r", "popular"], ["demo"],
                                     ["split", "DATA", "--method", "holdout"]])
@pytest.mark.parametrize("out", ["", "  "])
def test_empty_out_refused(command: list[str], out: str, small_config: Path, tmp_path: Path) -> None:
    data = tmp_path / "inter.csv"
    data.write_text("user,item\nu1,a\nu1,b\nu2,a\nu2,c\n")
    work = tmp_path / "cwd"
    work.mkdir()  # an empty current folder: "" would have written there, or into experiment-output/
    args = [str(small_config) if a == "CFG" else str(data) if a == "DATA" else a for a in command]
    res = run_cli(*args, "--out", out, cwd=work)
    assert res.returncode == 2 and "must name a folder" in res.stderr
    assert list(work.iterdir()) == []


def test_empty_output_dir_in_config_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n[output]\ndir = ""\n')
    res = run_cli("run-experiment", str(cfg), "-r", "popular", cwd=tmp_path)
    assert res.returncode == 2 and "c.toml:4: [output] dir must name a folder" in res.stderr
    assert not (tmp_path / "experiment-output").exists()


def test_folder_of_runs_has_one_orientation(tmp_path: Path) -> None:
    """Runs as rows, metrics as columns, in the terminal as in markdown."""
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.txt").write_text("1 Q0 a 1 1.0 a\n1 Q0 b 2 0.5 a\n")
    (runs / "b.txt").write_text("1 Q0 b 1 1.0 b\n1 Q0 a 2 0.5 b\n")
    table = run_cli("evaluate", str(q), str(runs), "-m", "map,P@1").stdout
    head = next(line for line in table.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in head.split("┃")[1:-1]] == ["run", "queries", "map", "P@1"]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    assert [r[0] for r in rows] == ["a", "b"]
    md = run_cli("evaluate", str(q), str(runs), "-m", "map,P@1", "--format", "markdown").stdout
    assert md.splitlines()[0] == "| run | queries | map | P@1 |"
    assert [line.split("|")[1].strip() for line in md.splitlines()[2:4]] == ["a", "b"]
