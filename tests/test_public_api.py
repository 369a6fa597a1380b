"""The public API is what ``rankmeter.__all__`` says, no more, no less; each name resolves."""

from __future__ import annotations

import subprocess
import sys

import rankmeter

PINNED = {
    "Comparison", "Coverage", "ExperimentResult", "InputError", "Interactions", "Metric", "MetricNameError",
    "MissingExtraError", "ParameterError", "Qrels", "RankmeterError", "Result", "Run", "compare",
    "context_from_train", "datasets", "evaluate", "evaluate_ratings", "evaluate_stream", "experiment", "metrics",
    "parse_metric", "read_interactions", "read_qrels", "read_run", "recommenders", "split", "stats",
    "compare_across", "judges", "stochastic", "fuse", "fuse_optimize", "explain_diff",
}


def test_all_is_pinned() -> None:
    assert set(rankmeter.__all__) == PINNED


def test_every_name_resolves() -> None:
    for name in rankmeter.__all__:
        assert getattr(rankmeter, name) is not None, name
    assert callable(rankmeter.compare) and callable(rankmeter.experiment) and callable(rankmeter.split.holdout)


def test_errors_share_one_base() -> None:
    for cls in (rankmeter.InputError, rankmeter.MetricNameError, rankmeter.ParameterError, rankmeter.MissingExtraError):
        assert issubclass(cls, rankmeter.RankmeterError)


def test_import_is_light(tmp_path) -> None:
    """The command line's path (import, read TREC files, evaluate, to_dict) pulls in neither
    pandas, scipy nor matplotlib: their imports cost more than the evaluation of small runs."""
    (tmp_path / "q").write_text("q 0 a 1\nq 0 b 0\n")
    (tmp_path / "r").write_text("q Q0 a 1 2.0 s\nq Q0 b 2 1.0 s\nq Q0 c 3 1.0 s\n")
    code = ("import sys, rankmeter, rankmeter.cli; q = rankmeter.read_qrels(sys.argv[1]); "
            "r = rankmeter.read_run(sys.argv[2]); rankmeter.evaluate(q, r, ['ndcg@10', 'map']).to_dict();"
            "print(','.join(m for m in ('pandas', 'scipy', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "q"), str(tmp_path / "r")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_comparison_and_experiment_machinery_loads_on_first_use() -> None:
    """``import rankmeter`` (every command line run) binds compare and experiment without loading the
    statistics, the reports or the experiment's stages; they load, with the same names, when used."""
    code = ("import sys, rankmeter; before = sorted(m for m in sys.modules if m.startswith(('rankmeter.stats', "
            "'rankmeter.report', 'rankmeter.recsys.result', 'rankmeter.compare.comparison'))); "
            "from rankmeter.compare import Comparison, TESTS; from rankmeter.experiment import ExperimentResult; "
            "assert rankmeter.Comparison is Comparison and rankmeter.ExperimentResult is ExperimentResult; "
            "assert 'rankmeter.stats.tests' in sys.modules; print(before)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
