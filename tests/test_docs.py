"""The documentation reads the registry: docs/metrics.md must match it."""

from __future__ import annotations

from pathlib import Path

from rankmeter.metrics.catalogue import render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_metric_catalogue_is_up_to_date() -> None:
    page = (ROOT / "docs" / "metrics.md").read_text()
    assert page == render_markdown(), "docs/metrics.md is stale: run `rankmeter metrics --markdown > docs/metrics.md`"


def test_readme_quick_start_has_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme


# =========================================================================== the examples run as written
#
# Every ```python and ```sh block of README.md and docs/*.md runs here, in a folder holding the files
# the examples name (made by `example_files`). Python blocks of one page share one namespace, in page
# order; blocks written as a doctest (">>>") are checked as doctests. A shell block may only run
# `rankmeter ...` commands (through this Python's `-m rankmeter`), each of which must exit 0 without an
# internal error. A block that cannot run here (installing, Spark, a sketch) carries the marker
#
#     <!-- docs-test: skip (the reason) -->
#
# on the line just before its opening fence. Python blocks may use the names of `FRAGMENT_NAMES`
# (values an example only sketches: `qrels`, `r1`, `r2`, `df`, ...).

import doctest
import os
import re
import shlex
import subprocess
import sys

import pytest

_FENCE = re.compile(r"^```(\w*)\s*$")
_SKIP = re.compile(r"<!--\s*docs-test:\s*skip\b.*-->")
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
# pages another helper owns: their examples run, and a failure is expected until they are fixed there
OTHERS: dict[str, str] = {}


def _blocks(page: str) -> list[tuple[int, str, str, bool]]:
    """(line, language, code, skipped) of each python/sh block of a page."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m:
            lang, start = m.group(1), i
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            skipped = start > 0 and bool(_SKIP.search(lines[start - 1]))
            if lang in ("python", "sh"):
                out.append((start + 1, lang, "\n".join(lines[start + 1:j]), skipped))
            i = j + 1
        else:
            i += 1
    return out


def _cases() -> list[object]:
    cases = []
    for page in PAGES:
        for line, lang, code, skipped in _blocks(page):
            marks = []
            if skipped:
                marks.append(pytest.mark.skip(reason="marked <!-- docs-test: skip -->"))
            elif page in OTHERS:
                marks.append(pytest.mark.xfail(reason=OTHERS[page], strict=False))
            cases.append(pytest.param(page, line, lang, code, id=f"{page}:{line}", marks=marks))
    return cases


def _write_examples(d: Path) -> None:
    """The files the examples name, small enough for the whole page to run in seconds."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    queries = [f"q{i}" for i in range(30)]
    qrels = [(q, f"d{j}", int(rng.integers(0, 3)) if j else 1) for q in queries for j in range(8)]
    (d / "qrels.txt").write_text("".join(f"{q} 0 {doc} {g}\n" for q, doc, g in qrels))
    # docs/intent.md: judgments by subtopic (ndeval's query subtopic item grade) for the same documents
    sub_rng = np.random.default_rng(18)  # its own generator: the other files stay as they were
    (d / "diversity.qrels").write_text("".join(f"{q} {s} d{j} {int(sub_rng.integers(0, 2))}\n" for q in queries
                                               for s in (1, 2, 3) for j in sub_rng.choice(8, 4, replace=False)))
    pd.DataFrame(qrels, columns=["query", "item", "grade"]).to_parquet(d / "qrels.parquet")

    def run(tag: str, boost: float) -> list[tuple[str, str, float]]:
        rows = []
        for q in queries:
            for j in range(12):
                rows.append((q, f"d{j}", float(rng.random() + (boost if j < 4 else 0.0))))
        return rows

    (d / "runs").mkdir()
    for name, boost in (("run.txt", 0.3), ("bm25.run", 0.2), ("dense.run", 0.5), ("hybrid.run", 0.6),
                        ("rerank.run", 0.4), ("runs/a.txt", 0.2), ("runs/b.txt", 0.5)):
        rows = run(name, boost)
        (d / name).write_text("".join(f"{q} Q0 {doc} {i % 12 + 1} {s:.6f} {Path(name).stem}\n"
                                      for i, (q, doc, s) in enumerate(rows)))
    frame = pd.DataFrame(run("p", 0.3), columns=["query", "item", "score"])
    frame.to_parquet(d / "run.parquet")
    frame.to_parquet(d / "huge-run.parquet")

    # interactions, MovieLens style: user item rating timestamp (2024)
    users, items = 60, 80
    rows = []
    for u in range(1, users + 1):
        for i in rng.choice(items, 15, replace=False):
            rows.append((u, int(i) + 1, int(rng.integers(1, 6)), int(1704067200 + rng.integers(0, 200 * 86400))))
    inter = pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])
    (d / "ml-100k").mkdir()
    for path in ("u.data", "ml-100k/u.data"):
        inter.to_csv(d / path, sep="\t", header=False, index=False)
    inter.to_parquet(d / "ratings.parquet")
    inter.rename(columns={"user": "userId", "item": "movieId"}).to_csv(d / "ratings.csv", index=False)  # MovieLens
    test = inter.sample(frac=0.2, random_state=0)
    for path in ("u.test", "test.tsv"):
        test.to_csv(d / path, sep="\t", header=False, index=False)
    pred = test[["user", "item"]].assign(prediction=np.clip(test["rating"] + rng.normal(0, 0.8, len(test)), 1, 5))
    # like real predictions, some test pairs have none: the examples must say what happens to them
    pred = pred.iloc[: int(len(pred) * 0.9)]
    pred.to_csv(d / "predictions.csv", index=False)
    pred.to_parquet(d / "predictions.parquet")
    # docs/ratings.md's cost matrix has the levels 1, 2, 3
    three = test[["user", "item"]].assign(rating=rng.integers(1, 4, len(test)),
                                          prediction=rng.integers(1, 4, len(test)))
    three.to_csv(d / "both.csv", index=False)
    # docs/beyond.md's --group-by file: query -> group
    (d / "groups.tsv").write_text("query\tgroup\n" + "".join(f"q{i}\t{'odd' if i % 2 else 'even'}\n" for i in range(30)))
    (d / "experiment.toml").write_text('[data]\ninteractions = "u.data"\n\n[evaluation]\nk = 5\n'
                                       'n_resamples = 200\n\n[output]\ndir = "experiment-output"\n')


FRAGMENT_NAMES = ("qrels", "r1", "r2", "df")


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("examples")
    _write_examples(d)
    return d


_NAMESPACES: dict[str, dict[str, object]] = {}


def _namespace(page: str, d: Path) -> dict[str, object]:
    if page not in _NAMESPACES:
        import pandas as pd

        from rankmeter.io import read_qrels, read_run

        _NAMESPACES[page] = {
            "__name__": f"docs:{page}",
            "qrels": read_qrels(str(d / "qrels.txt")).to_dict(),
            "r1": read_run(str(d / "bm25.run")),
            "r2": read_run(str(d / "dense.run")),
            "df": pd.read_parquet(d / "ratings.parquet"),
        }
    return _NAMESPACES[page]


_DONE: dict[str, set[int]] = {}


def _run_earlier_blocks(page: str, line: int, ns: dict[str, object]) -> None:
    """A page's python blocks build on each other (imports, names), in page order. Under xdist the
    blocks of one page may run on different workers, so run the earlier ones here first if this
    worker has not; their own tests report their failures."""
    done = _DONE.setdefault(page, set())
    for at, lang, code, skipped in _blocks(page):
        if at >= line:
            break
        if lang != "python" or skipped or at in done:
            continue
        done.add(at)
        try:
            if code.lstrip().startswith(">>>"):
                test = doctest.DocTestParser().get_doctest(code, ns, f"{page}:{at}", page, at)
                doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).run(
                    test, clear_globs=False, out=lambda _text: None)
            else:
                exec(compile(code, f"{page}:{at}", "exec"), ns)
        except Exception:  # noqa: BLE001  (reported by that block's own test)
            pass
    done.add(line)


def _commands(code: str) -> list[list[str]]:
    joined = re.sub(r"\\\n\s*", " ", code)
    return [argv for line in joined.splitlines() if (argv := shlex.split(line, comments=True))]


@pytest.mark.slow
@pytest.mark.parametrize("page,line,lang,code", _cases())
def test_documented_example_runs(page: str, line: int, lang: str, code: str, example_dir: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(example_dir)
    if lang == "sh":
        for argv in _commands(code):
            assert argv[0] == "rankmeter", (f"{page}:{line}: `{' '.join(argv)}` cannot run here; mark the block "
                                            "with <!-- docs-test: skip (reason) -->")
            out = subprocess.run([sys.executable, "-m", "rankmeter", *argv[1:]], capture_output=True, text=True,
                                 timeout=600, cwd=example_dir, env={**os.environ, "MPLBACKEND": "Agg"})
            assert "internal error" not in out.stderr, out.stderr
            assert out.returncode == 0, f"{page}:{line}: {' '.join(argv)}\n{out.stderr}"
        return
    ns = _namespace(page, example_dir)
    _run_earlier_blocks(page, line, ns)
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, ns, f"{page}:{line}", page, line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, clear_globs=False)
        assert runner.failures == 0, f"{page}:{line}: a doctest example failed (see the output above)"
    else:
        exec(compile(code, f"{page}:{line}", "exec"), ns)


# =========================================================================== no internal source labels
#
# The project's source documents are numbered internally ("seed 000" = Apache Hivemall's documentation,
# "seed 002" = python-recsys's, ...). Users do not know those numbers: what they read (README, docs,
# docstrings, and the source text generally) names the source itself.

import ast

_SEED_LABEL = re.compile(r"\bseeds?[ _]0\d\d\b|\bseeds'", re.IGNORECASE)
_SEED_ALIAS = "SEED_004_COSTS"  # the deprecated name of ASYMMETRIC_LIKE_COSTS, kept importable


def _labels(text: str) -> list[str]:
    return [m.group(0) for m in _SEED_LABEL.finditer(text.replace(_SEED_ALIAS, ""))]


def test_user_documentation_names_sources_not_seed_numbers() -> None:
    hits = [f"{page}: {label}" for page in PAGES for label in _labels((ROOT / page).read_text(encoding="utf-8"))]
    assert not hits, "write the source (e.g. \"Apache Hivemall's documentation\"), not its seed number:\n" + \
        "\n".join(hits)


def test_docstrings_and_source_name_sources_not_seed_numbers() -> None:
    hits = []
    for path in sorted((ROOT / "src" / "rankmeter").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                hits += [f"{where}: docstring of {getattr(node, 'name', 'the module')}: {label}"
                         for label in _labels(ast.get_docstring(node) or "")]
        hits += [f"{where}:{i}: {label}" for i, line in enumerate(text.splitlines(), 1) for label in _labels(line)]
    assert not hits, "write the source (e.g. \"Apache Hivemall's documentation\"), not its seed number:\n" + \
        "\n".join(hits)
