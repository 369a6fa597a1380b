"""`rankmeter demo` and `rankmeter run-experiment`, and the report in headless Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rankmeter.cli import main
from rankmeter.datasets import synthetic, write_udata


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_generated_data(tmp_path, capsys) -> None:
    out = tmp_path / "demo"
    code, stdout, stderr = run_cli(["demo", "--out", str(out), "--users", "200", "--items", "300",
                                    "--no-progress"], capsys)
    assert code == 0, stderr
    for name in ("report.html", "results.json", "means.csv", "experiment.toml", "data/interactions.tsv",
                 "data/item_features.tsv", "data/item_genres.tsv"):
        assert (out / name).exists(), name
    assert "ndcg@10" in stdout and "itemknn" in stdout and "full ranking" in stdout
    assert "report written to" in stderr
    res = json.loads((out / "results.json").read_text())
    assert res["data"]["users"] == 200 and set(res["means"]) == {"random", "popular", "itemknn"}
    # the written config reruns the same experiment
    code, stdout2, stderr2 = run_cli(["run-experiment", str(out / "experiment.toml"), "--no-report", "--no-progress",
                                      "--format", "json"], capsys)
    assert code == 0, stderr2
    again = json.loads(stdout2)
    assert again["means"]["popular"]["ndcg@10"] == pytest.approx(res["means"]["popular"]["ndcg@10"])


def test_demo_on_a_udata_file(tmp_path, capsys) -> None:
    path = write_udata(synthetic(n_users=120, n_items=150, seed=4), tmp_path / "u.data")
    code, stdout, stderr = run_cli(["demo", "--interactions", str(path), "--out", str(tmp_path / "o"),
                                    "--no-progress", "-k", "5"], capsys)
    assert code == 0, stderr
    assert (tmp_path / "o" / "report.html").exists() and not (tmp_path / "o" / "data").exists()
    assert "ndcg@5" in stdout


def test_run_experiment_flags(tmp_path, capsys) -> None:
    path = write_udata(synthetic(n_users=120, n_items=150, seed=4), tmp_path / "u.data")
    lists = tmp_path / "mine.tsv"
    lists.write_text("user\titem\n1\t5\n1\t5\n2\t6\n")
    code, stdout, stderr = run_cli(
        ["run-experiment", "-i", str(path), "-r", "popular", "-r", "itemknn:neighbors=5", "-r", f"mine={lists}",
         "-m", "ndcg@5", "-m", "catalog_coverage@5", "-k", "5", "--format", "json", "--out", str(tmp_path / "x"),
         "--no-progress", "--n-resamples", "100"], capsys)
    assert code == 0, stderr
    data = json.loads(stdout)
    assert data["mode"] == "full ranking"
    assert list(data["means"]) == ["popular", "itemknn", "mine"]
    assert data["validation"]["mine"]["duplicates"] == 1 and data["validation"]["mine"]["missing_users"] == 118
    assert "mine: 1 duplicate recommendations removed" in stderr
    assert (tmp_path / "x" / "report.html").exists()
    # sampled mode: labelled on stdout, stderr and in the files
    code, stdout, stderr = run_cli(
        ["run-experiment", "-i", str(path), "-r", "popular", "-r", "random", "-k", "5", "--sampled", "30",
         "--sample-seed", "7", "--out", str(tmp_path / "s"), "--no-progress", "--n-resamples", "100"], capsys)
    assert code == 0, stderr
    label = "sampled (N=30, seed=7): inflates scores vs full ranking"
    assert label in stderr and "sampled (N=30, seed=7)" in stdout
    assert json.loads((tmp_path / "s" / "results.json").read_text())["mode"] == label
    assert label in (tmp_path / "s" / "report.html").read_text() and label in (tmp_path / "s" / "means.csv").read_text()


def test_run_experiment_errors(tmp_path, capsys) -> None:
    code, _, err = run_cli(["run-experiment", "--no-report"], capsys)
    assert code == 2 and "no interactions" in err
    bad = tmp_path / "bad.toml"
    bad.write_text("[nonsense]\nx = 1\n")
    code, _, err = run_cli(["run-experiment", str(bad)], capsys)
    assert code == 2 and "unknown section [nonsense]" in err
    path = write_udata(synthetic(n_users=30, n_items=40, seed=1), tmp_path / "u.data")
    code, _, err = run_cli(["run-experiment", "-i", str(path), "-r", "bogus", "--no-report"], capsys)
    assert code == 2 and "unknown recommender 'bogus'" in err


@pytest.mark.slow
def test_make_demo_command_is_fast(tmp_path) -> None:
    """The Makefile's `rankmeter demo --out demo-output` in a fresh process: well under a minute."""
    exe = Path(sys.executable).parent / "rankmeter"
    cmd = [str(exe), "demo", "--out", str(tmp_path / "demo-output")] if exe.exists() else \
        [sys.executable, "-m", "rankmeter", "demo", "--out", str(tmp_path / "demo-output")]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 60, f"demo took {elapsed:.1f}s"
    assert (tmp_path / "demo-output" / "report.html").stat().st_size > 10_000


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_report_opens_in_headless_chromium(tmp_path) -> None:
    from rankmeter.experiment import experiment

    res = experiment(synthetic(n_users=120, n_items=150, seed=3), k=5, n_resamples=200)
    report = res.save(tmp_path)["report"]
    proc = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", report.resolve().as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert "<h2>Means</h2>" in dom and "Checks of the recommendations" in dom and "ndcg@5" in dom
    assert "Metric@k curves" in dom and "No metric@k curves" not in dom
    assert dom.count("<img") >= 2  # the comparison's figures are embedded
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         f"--user-data-dir={tmp_path / 'profile2'}", f"--screenshot={shot}", "--window-size=1280,2000",
         report.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000
