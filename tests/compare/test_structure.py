"""compare/ is a package of stages; reports never import it; stats' helpers are public (#13.4, #12.9)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import ParameterError

SRC = Path(rankmeter.__file__).resolve().parent


def _runtime_imports(path: Path) -> list[str]:
    """Modules a file imports outside ``if TYPE_CHECKING:`` blocks (relative ones resolved)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    found: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.ImportFrom):
                base = package.split(".")
                if child.level:
                    base = base[: len(base) - child.level + 1]
                    found.append(".".join(base + ([child.module] if child.module else [])))
                else:
                    found.append(child.module or "")
            elif isinstance(child, ast.Import):
                found.extend(a.name for a in child.names)
            visit(child)

    visit(tree)
    return found


def test_reports_never_import_compare() -> None:
    for path in (SRC / "report").glob("*.py"):
        bad = [m for m in _runtime_imports(path) if m.startswith("rankmeter.compare")]
        assert not bad, f"{path.name} imports {bad}"


def test_compare_imports_reports_only_when_rendering() -> None:
    assert (SRC / "compare" / "stages.py").is_file()
    for path in (SRC / "compare").glob("*.py"):
        tree = ast.parse(path.read_text())
        top = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module and "report" in n.module]
        assert not top, f"{path.name} imports the reports at module level"


def test_public_names_kept() -> None:
    from rankmeter.compare import TEST_NAMES, TESTS, Comparison, PairTest, Settings, compare
    from rankmeter.compare.stages import align, check_settings, correct, evaluate_runs, pair_tests, resample
    from rankmeter.stats import canonical_correction, resampling

    assert rankmeter.compare is compare and callable(check_settings)
    assert Comparison and PairTest and Settings and TESTS == tuple(TEST_NAMES)
    assert canonical_correction("fdr") == "bh" and callable(resampling.bootstrap_sums)
    assert all(callable(f) for f in (align, correct, evaluate_runs, pair_tests, resample))


def test_resamples_beyond_memory_refused_up_front() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"x": {"q1": ["a"], "q2": ["c"]}, "y": {"q1": ["c"], "q2": ["b"]}}
    with pytest.raises(ParameterError, match=r"'n_resamples' parameter of compare .* TiB"):
        rankmeter.compare(qrels, runs, ["P@1"], n_resamples=10**12)


def test_memory_estimate_and_limit() -> None:
    from rankmeter.stats.resampling import check_memory, memory_needed

    assert memory_needed(1000, 6, 4) == 8 * 1000 * 10 + 16 * 1000 * 6
    check_memory(1000, 6, 4, available=memory_needed(1000, 6, 4))  # exactly fits
    with pytest.raises(ParameterError, match="use at most 999 resamples"):
        check_memory(1000, 6, 4, available=memory_needed(1000, 6, 4) - 1)
    # the estimate holds the real arrays of the bootstrap
    from rankmeter.stats import resampling as R

    X = np.random.default_rng(0).random((50, 6))
    boot = R.bootstrap_sums(X, np.zeros(6, dtype=int), n_resamples=1000, rng=np.random.default_rng(1))
    assert boot.sums.nbytes <= memory_needed(1000, 6, 4)


def test_to_html_refuses_a_missing_folder_before_rendering(monkeypatch, tmp_path) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"x": {"q1": ["a"], "q2": ["c"]}, "y": {"q1": ["c"], "q2": ["b"]}}
    cmp = rankmeter.compare(qrels, runs, ["P@1"], n_resamples=50)
    import rankmeter.report as report

    def boom(*args, **kwargs):  # the rendering must not start
        raise AssertionError("rendered before checking the path")

    monkeypatch.setattr(report, "to_html", boom)
    with pytest.raises(ParameterError, match="does not exist"):
        cmp.to_html(tmp_path / "nope" / "x.html")
    with pytest.raises(ParameterError, match="must name a file"):
        cmp.to_html(tmp_path)
