"""Files written whole or not at all, and a manifest that lists only complete files (issue 32.3), step by step."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rankmeter._files import atomic_path, is_temporary, remove_stale, write_text
from rankmeter.recsys.output import MANIFEST, check_output_folder, complete_files, own_files
from rankmeter.recsys.result import ExperimentResult

from ._cli import run


class _Fake:
    """What ExperimentResult.save calls, writing through the atomic writer; ``fail`` interrupts the report."""

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def to_json(self, path: Path) -> None:
        write_text(path, json.dumps({"ok": 1}) + "\n")

    def to_csv(self, path: Path) -> None:
        write_text(path, "mode,metric\nfull,1\n")

    def to_html(self, path: Path) -> None:
        with atomic_path(path) as tmp:
            tmp.write_text("<!DOCTYPE html><html>half")
            if self.fail:
                raise KeyboardInterrupt  # as a signal would, in the middle of the report
            tmp.write_text("<!DOCTYPE html><html></html>\n")


def test_an_interrupted_save_leaves_complete_files_and_a_true_manifest(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        ExperimentResult.save(_Fake(fail=True), tmp_path)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST, "means.csv", "results.json"]
    assert complete_files(tmp_path) == {"means.csv", "results.json"}  # only complete files
    assert own_files(tmp_path) == {"means.csv", "results.json", "report.html"}  # the report: pending
    assert check_output_folder(tmp_path, "--out") == tmp_path  # a later run recognises it all
    ExperimentResult.save(_Fake(fail=False), tmp_path)  # type: ignore[arg-type]
    assert complete_files(tmp_path) == {"means.csv", "results.json", "report.html"}
    assert "pending" not in json.loads((tmp_path / MANIFEST).read_text())


def test_temporary_files_of_dead_processes_are_recognised_and_removed(tmp_path: Path) -> None:
    dead = tmp_path / f".report.html.{2 ** 22 + 12345}-0a1b2c3d.rankmeter-tmp"
    live = tmp_path / f".means.csv.{os.getpid()}-0a1b2c3d.rankmeter-tmp"
    dead.write_text("half")
    live.write_text("being written")
    assert is_temporary(dead.name) and is_temporary(live.name) and not is_temporary("report.html")
    assert check_output_folder(tmp_path, "--out") == tmp_path  # neither is someone else's file
    assert not dead.exists() and live.exists()  # a live process's file is left alone
    assert remove_stale(tmp_path) == []
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="notes.txt"):
        check_output_folder(tmp_path, "--out")


def test_split_replaces_what_an_interrupted_split_left_without_overwrite(tmp_path: Path) -> None:
    data = tmp_path / "inter.csv"
    data.write_text("user,item,timestamp\n" + "".join(f"u{u},i{(u * 7 + j) % 13},{j}\n" for u in range(12)
                                                        for j in range(6)))
    out = tmp_path / "out"
    (out / "fold-1").mkdir(parents=True)
    (out / MANIFEST).write_text(json.dumps({"written_by": "rankmeter", "files": ["fold-1/train.parquet"],
                                            "pending": ["fold-1/test.parquet", "summary.json"]}))
    (out / "fold-1" / "train.parquet").write_bytes(b"PAR1")  # listed: rankmeter's own (its content is not read)
    (out / "fold-1" / f".test.parquet.{2 ** 22 + 7}-00000000.rankmeter-tmp").write_bytes(b"PAR1 half")
    proc = run("split", str(data), "--out", str(out), "--method", "kfold", "--folds", "2")
    assert proc.returncode == 0, proc.stderr
    assert b"an interrupted split left" in proc.stderr
    parts = {f"fold-{i}/{p}.parquet" for i in (1, 2) for p in ("train", "test")}
    assert complete_files(out) == {"summary.json", *parts}
    assert not [p for p in out.rglob("*") if is_temporary(p.name)]
    # a complete split is not replaced without --overwrite
    proc = run("split", str(data), "--out", str(out), "--method", "kfold", "--folds", "2")
    assert proc.returncode == 2 and b"--overwrite" in proc.stderr
