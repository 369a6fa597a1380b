"""``irds:DATASET_ID`` judgments end to end, on a small dataset registered here through ir_datasets' own API
(tests cannot download): the library, ``read_qrels``, ``-m official`` / ``--measures official`` and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ir_datasets = pytest.importorskip("ir_datasets")

import rankmeter  # noqa: E402
from rankmeter._errors import InputError, ParameterError  # noqa: E402
from rankmeter.io import read_qrels  # noqa: E402

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq3 0 d9 0\n"
SUBQRELS = "q1 1 d1 1\nq1 2 d3 1\nq2 1 d4 1\n"
RUN = "q1 Q0 d3 1 3.0 r\nq1 Q0 d1 2 2.0 r\nq1 Q0 d2 3 1.0 r\nq2 Q0 d5 1 2.0 r\nq2 Q0 d4 2 1.0 r\n"

REGISTER = '''
import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecQrels, TrecSubQrels
from ir_datasets.util import LocalDownload


class Doc:
    def __init__(self, measures):
        self._measures = measures

    def documentation(self):
        return {{"official_measures": self._measures}} if self._measures else {{}}


def register(folder):
    defs = {{0: "not relevant", 1: "relevant", 2: "highly relevant"}}
    for name, measures in (("official", ["nDCG@10", "RR@10", "AP"]), ("plain", None)):
        qrels = TrecQrels(LocalDownload(folder + "/qrels.txt"), defs)
        ir_datasets.registry.register("rankmeter-test/" + name, Dataset(qrels, Doc(measures)))
    sub = TrecSubQrels(LocalDownload(folder + "/subqrels.txt"), defs)
    ir_datasets.registry.register("rankmeter-test/diversity", Dataset(sub, Doc(["alpha_nDCG@20"])))
'''


def _register(folder: Path) -> None:
    if "rankmeter-test/official" in ir_datasets.registry._registered:
        return
    scope: dict[str, Any] = {}
    exec(REGISTER.format(), scope)  # the same code the CLI test's bootstrap runs
    scope["register"](str(folder))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("irds")
    (folder / "qrels.txt").write_text(QRELS)
    (folder / "subqrels.txt").write_text(SUBQRELS)
    (folder / "run.txt").write_text(RUN)
    _register(folder)
    return folder


def test_read_qrels_equals_the_file(data: Path) -> None:
    assert read_qrels("irds:rankmeter-test/official").to_dict() == read_qrels(str(data / "qrels.txt")).to_dict()


def test_evaluate_official_measures_equal_the_file_route(data: Path) -> None:
    res = rankmeter.evaluate("irds:rankmeter-test/official", str(data / "run.txt"), "official")
    assert list(res.mean) == ["nDCG@10", "RR@10", "AP"]
    direct = rankmeter.evaluate(str(data / "qrels.txt"), str(data / "run.txt"), ["nDCG@10", "RR@10", "AP"])
    assert res.mean == direct.mean
    assert res.provenance.to_dict()["data"]["inputs"][0] == {"role": "qrels", "path": "irds:rankmeter-test/official",
                                                             "kind": "ir_datasets"}


def test_compare_with_official_measures(data: Path) -> None:
    from rankmeter.compare import compare

    run = str(data / "run.txt")
    cmp = compare("irds:rankmeter-test/official", {"a": run, "b": run}, "official", n_resamples=50)
    assert cmp.metrics == ("nDCG@10", "RR@10", "AP")
    direct = compare(str(data / "qrels.txt"), {"a": run, "b": run}, ["nDCG@10", "RR@10", "AP"], n_resamples=50)
    assert cmp.means == direct.means


def test_official_without_declared_measures_is_an_error_naming_the_dataset(data: Path) -> None:
    with pytest.raises(ParameterError, match="rankmeter-test/plain.*declares no official measures"):
        rankmeter.evaluate("irds:rankmeter-test/plain", str(data / "run.txt"), "official")
    with pytest.raises(ParameterError, match="irds:DATASET_ID"):
        rankmeter.evaluate(str(data / "qrels.txt"), str(data / "run.txt"), ["official"])


def test_unknown_dataset_and_missing_subtopics_are_input_errors(data: Path) -> None:
    with pytest.raises(InputError, match="no dataset 'rankmeter-test/nope'"):
        read_qrels("irds:rankmeter-test/nope")
    with pytest.raises(InputError, match="have no subtopics"):
        read_qrels("irds:rankmeter-test/official", subtopics=True)


def test_subtopic_judgments(data: Path) -> None:
    via = rankmeter.evaluate(read_qrels("irds:rankmeter-test/diversity", subtopics=True), str(data / "run.txt"),
                             ["alpha_nDCG@20"])
    direct = rankmeter.evaluate(read_qrels(str(data / "subqrels.txt"), subtopics=True), str(data / "run.txt"),
                                ["alpha_nDCG@20"])
    assert via.mean == direct.mean and via.n_queries == 2


@pytest.mark.slow  # three command-line processes
def test_cli_end_to_end(data: Path, tmp_path: Path) -> None:
    boot = tmp_path / "boot.py"
    boot.write_text(REGISTER.format() + textwrap.dedent(f"""
        import sys
        register({str(data)!r})
        from rankmeter.cli import console_main
        sys.argv = ["rankmeter", *sys.argv[1:]]
        console_main()
    """))

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(boot), *args], capture_output=True, text=True, timeout=120)

    out = cli("evaluate", "irds:rankmeter-test/official", str(data / "run.txt"), "--measures", "official",
              "--format", "json")
    assert out.returncode == 0, out.stderr
    direct = rankmeter.evaluate(str(data / "qrels.txt"), str(data / "run.txt"), ["nDCG@10", "RR@10", "AP"])
    assert json.loads(out.stdout)["mean"] == pytest.approx(direct.mean, abs=0)
    bad = cli("evaluate", "irds:rankmeter-test/plain", str(data / "run.txt"), "-m", "official")
    assert bad.returncode == 2 and "rankmeter-test/plain" in bad.stderr and "Traceback" not in bad.stderr
    both = cli("compare", "irds:rankmeter-test/official", f"a={data / 'run.txt'}", f"b={data / 'run.txt'}",
               "--measures", "official", "--format", "json", "--resamples", "50")
    assert both.returncode == 0, both.stderr
    assert list(json.loads(both.stdout)["means"]["a"]) == ["nDCG@10", "RR@10", "AP"]
    sub = cli("evaluate", "--subtopics", "irds:rankmeter-test/diversity", str(data / "run.txt"), "-m", "official",
              "--format", "json")
    assert sub.returncode == 0, sub.stderr
    assert list(json.loads(sub.stdout)["mean"]) == ["alpha_nDCG@20"]
