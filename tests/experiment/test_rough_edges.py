"""Issue #12 for the experiment: callables, config checking, output folders, repeated pairs, the report, help.

CLI behaviour runs the real executable in a subprocess; no output may say ``internal error``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from rankmeter import InputError, ParameterError, RankmeterError
from rankmeter.datasets import synthetic, write_udata
from rankmeter.experiment import config_to_arguments, experiment, read_config


def rankmeter(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)
    assert "internal error" not in proc.stdout + proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def udata(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("data")
    return write_udata(synthetic(n_users=80, n_items=100, seed=5), d / "u.data")


# --------------------------------------------------------------------------- #12.1 module:function

RECS = '''
def top(train, users, k):
    return {u: ["1", "2", "3"] for u in users}

def broken(train, users, k):
    raise ValueError("my own bug")
'''


def test_module_function_recommender_from_the_cli(tmp_path, udata) -> None:
    (tmp_path / "myrecs.py").write_text(RECS)
    proc = rankmeter("run-experiment", "-i", str(udata), "-r", "popular", "-r", "mine=myrecs:top", "-k", "3",
                     "--no-report", "--no-progress", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)["means"]) == {"popular", "mine"}


def test_module_function_recommender_from_a_config(tmp_path, udata) -> None:
    (tmp_path / "myrecs.py").write_text(RECS)
    cfg = tmp_path / "exp.toml"
    cfg.write_text(f'[data]\ninteractions = "{udata}"\n[recommenders]\npopular = {{}}\n'
                   'a = { callable = "myrecs.py:top" }\nb = { callable = "myrecs:top" }\n[evaluation]\nk = 3\n')
    proc = rankmeter("run-experiment", str(cfg), "--no-report", "--no-progress", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)["means"]) == {"popular", "a", "b"}


def test_errors_of_module_function_recommenders(tmp_path, udata) -> None:
    (tmp_path / "myrecs.py").write_text(RECS)
    (tmp_path / "badimport.py").write_text("raise RuntimeError('broken at import')\n")
    base = ["run-experiment", "-i", str(udata), "-r", "popular", "--no-report", "--no-progress", "-k", "3", "-r"]
    proc = rankmeter(*base, "x=nosuchmodule_xyz:top", cwd=tmp_path)
    assert proc.returncode == 2 and "'nosuchmodule_xyz'" in proc.stderr
    proc = rankmeter(*base, "mine=myrecs:broken", cwd=tmp_path)
    assert proc.returncode == 2 and "'mine'" in proc.stderr and "ValueError: my own bug" in proc.stderr
    assert "please report" not in proc.stderr
    proc = rankmeter(*base, "x=badimport:top", cwd=tmp_path)
    assert proc.returncode == 2 and "broken at import" in proc.stderr and "'badimport'" in proc.stderr


def test_user_object_errors_are_theirs(udata) -> None:
    class Mine:
        def fit(self, train):
            raise KeyError("no such column in my model")

        def recommend(self, users, k, **kw):
            return {}

    with pytest.raises(RankmeterError, match=r"'mine' raised KeyError in fit\(\)"):
        experiment(str(udata), recommenders={"mine": Mine()}, k=3)


# --------------------------------------------------------------------------- #12.7 config checking

def _config(tmp_path: Path, udata: Path, body: str) -> Path:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[data]\ninteractions = "{udata}"\n{body}')
    return cfg


@pytest.mark.parametrize("body, words", [
    ("[evaluation]\nmetrics = 5\n", ["c.toml:4", "[evaluation] metrics", "integer 5"]),
    ("[split]\nmethod = \"holdout\"\nnope = 1\n", ["c.toml:5", "[split] nope"]),
    ("[split]\nmethod = \"holdout\"\nk = 2\n", ["[split] k", "'holdout'"]),
    ("[evaluation]\nexclude_seen = \"false\"\n", ["[evaluation] exclude_seen", "boolean", "'false'"]),
    ("[evaluation]\nk = 2.5\n", ["[evaluation] k", "integer"]),
    ("[evaluation]\nalpha = 2\n", ["[evaluation] alpha"]),
    ("[evaluation]\ncatalog = \"everything\"\n", ["[evaluation] catalog", "'train', 'all'"]),
    ("[recommenders]\nknn = { type = \"itemknn\", neighbours = 3 }\n", ["knn.neighbours"]),
    ("[recommenders]\nknn = 3\n", ["[recommenders] knn", "integer 3"]),
])
def test_config_values_are_checked_against_the_schema(tmp_path, udata, body, words) -> None:
    cfg = _config(tmp_path, udata, body)
    proc = rankmeter("run-experiment", str(cfg), "--no-report", "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)


def test_generate_users_must_be_an_integer(tmp_path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[data]\ngenerate = { users = "abc" }\n')
    proc = rankmeter("run-experiment", str(cfg), "--no-report", "--no-progress")
    assert proc.returncode == 2 and "[data] generate.users" in proc.stderr and "'abc'" in proc.stderr


def test_exclude_seen_false_is_read_as_false(tmp_path, udata) -> None:
    args = config_to_arguments(read_config(_config(tmp_path, udata, "[evaluation]\nexclude_seen = false\n")))[1]
    assert args["exclude_seen"] is False


def test_binary_lists_file_is_named(tmp_path, udata) -> None:
    (tmp_path / "bin.tsv").write_bytes(bytes(range(256)) * 8)
    cfg = _config(tmp_path, udata, '[recommenders]\nmine = { lists = "bin.tsv" }\n')
    proc = rankmeter("run-experiment", str(cfg), "--no-report", "--no-progress")
    assert proc.returncode == 2 and "bin.tsv" in proc.stderr


def test_binary_config_file(tmp_path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_bytes(b"\xff\xfe\x00binary")
    proc = rankmeter("run-experiment", str(cfg), "--no-report", "--no-progress")
    assert proc.returncode == 2 and "c.toml" in proc.stderr


def test_experiment_metrics_must_be_names(udata) -> None:
    with pytest.raises(ParameterError, match="'metrics' parameter of experiment"):
        experiment(str(udata), metrics=5, k=3)


# --------------------------------------------------------------------------- #12.7 / #12.32 output folder

def test_output_dir_that_is_a_file(tmp_path, udata) -> None:
    (tmp_path / "taken").write_text("x")
    cfg = _config(tmp_path, udata, '[output]\ndir = "taken"\n')
    proc = rankmeter("run-experiment", str(cfg), "--no-progress")
    assert proc.returncode == 2 and "taken" in proc.stderr and "[output] dir" in proc.stderr


def test_output_dir_with_foreign_files_is_refused_before_the_work(tmp_path, udata) -> None:
    out = tmp_path / "results"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    cfg = _config(tmp_path, udata, '[output]\ndir = "results"\n[evaluation]\nmetrics = ["P@3"]\n')
    proc = rankmeter("run-experiment", str(cfg), "--no-progress")
    assert proc.returncode == 2 and "thesis.tex" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    # a folder holding only rankmeter's own earlier output is replaced
    (out / "thesis.tex").unlink()
    assert rankmeter("run-experiment", str(cfg), "--no-progress", "-k", "3").returncode == 0
    proc = rankmeter("run-experiment", str(cfg), "--no-progress", "-k", "4", "-m", "P@4")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "results.json").read_text())["k"] == 4


def test_uncreatable_output_is_refused_before_the_work(udata) -> None:
    proc = rankmeter("run-experiment", "-i", str(udata), "--out", "/proc/nope/x", "--no-progress")
    assert proc.returncode == 2 and "/proc/nope/x" in proc.stderr


@pytest.mark.slow
def test_demo_rerun_into_its_own_folder(tmp_path) -> None:
    out = tmp_path / "demo"
    args = ("demo", "--out", str(out), "--users", "60", "--items", "80", "--no-progress", "-k", "3")
    assert rankmeter(*args).returncode == 0
    assert rankmeter(*args).returncode == 0  # its own files only: allowed
    proc = rankmeter("run-experiment", str(out / "experiment.toml"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    (out / "extra.txt").write_text("x")
    assert rankmeter(*args).returncode == 2


# --------------------------------------------------------------------------- #12.28 repeated pairs

def _with_repeats() -> pa.Table:
    rows = [(f"u{u}", f"i{(u * 7 + j * 3) % 40}", j) for u in range(30) for j in range(12)]
    rows += [(u, i, t + 100) for (u, i, t) in rows[::5]]  # 72 pairs seen again later
    return pa.table({"user": [r[0] for r in rows], "item": [r[1] for r in rows], "timestamp": [r[2] for r in rows]})


def test_repeated_pairs_and_test_rows_in_train_are_reported() -> None:
    res = experiment(_with_repeats(), k=5, n_resamples=100, metrics=["ndcg@5", "recall@5"])
    assert res.data["repeated_pairs"] == 72 and res.data["repeated_rows"] == 72
    assert res.split["test_rows_in_train"] > 0
    assert any("72 (user, item) pairs occur more than once" in n for n in res.notes)
    assert any(f"{res.split['test_rows_in_train']} of" in n and "exclude_seen" in n for n in res.notes)
    html = res.to_html()
    assert "Repeated (user, item) pairs" in html and "already in the user&#x27;s train set" in html


def test_test_rows_in_train_against_a_slow_reference() -> None:
    from rankmeter.split import temporal

    table = _with_repeats()
    s = temporal(table, per_user=True, test_fraction=0.2)
    tr, te = s.table("train"), s.table("test")
    seen = set(zip(tr.column("user").to_pylist(), tr.column("item").to_pylist()))
    expected = sum((u, i) in seen for u, i in zip(te.column("user").to_pylist(), te.column("item").to_pylist()))
    res = experiment(table, split=(tr, te), k=5, n_resamples=100)
    assert res.split["test_rows_in_train"] == expected > 0


def test_cli_prints_the_repeated_pairs(tmp_path) -> None:
    t = _with_repeats()
    path = tmp_path / "r.csv"
    path.write_text("user,item,timestamp\n" + "".join(
        f"{u},{i},{ts}\n" for u, i, ts in zip(*(t.column(c).to_pylist() for c in t.column_names))))
    proc = rankmeter("run-experiment", "-i", str(path), "--no-report", "--no-progress", "-k", "5",
                     "--verbose")
    assert proc.returncode == 0, proc.stderr
    assert "72 (user, item) pairs occur more than once" in proc.stderr and "exclude_seen" in proc.stderr


# --------------------------------------------------------------------------- #12.29 the report

@pytest.fixture(scope="module")
def report_res():
    return experiment(synthetic(n_users=150, n_items=200, seed=2), k=5, n_resamples=200,
                      metrics=["ndcg@5", "recall@5", "arp@5", "novelty@5", "catalog_coverage@5"])


def test_report_has_curves_and_speaks_of_users(report_res) -> None:
    html = report_res.to_html()
    assert "Metric@k curves" in html and "precomputed" not in html and "No metric@k curves" not in html
    assert html.count("<img") >= 4
    text = re.sub(r"<[^>]+>|data:image/png;base64,[A-Za-z0-9+/=]+", " ", html)
    assert "quer" not in text.lower()  # no "query"/"queries": rows are users
    assert "users" in text


def test_curves_agree_with_the_means_at_k(report_res) -> None:
    from rankmeter.report.experiment import curves

    c = curves(report_res, report_res.k)
    for name, arr in c["ndcg@k"].items():
        assert arr[-1] == pytest.approx(report_res.results[name].mean["ndcg@5"])


def test_underflowing_p_values_are_not_zero() -> None:
    from rankmeter.report.experiment import fmt_pvalue

    assert fmt_pvalue(0.0) == "< 1e-300" and fmt_pvalue(5e-324) == "< 1e-300"
    assert fmt_pvalue(1e-299) == "1.0e-299" and fmt_pvalue(0.5) == "0.500"


def test_report_writes_underflowed_p_values_as_bounds(report_res) -> None:
    import dataclasses

    cmp = report_res.comparison
    tests = [dataclasses.replace(t, p_value=0.0, p_adjusted=0.0) for t in cmp.tests]
    res = dataclasses.replace(report_res, comparison=dataclasses.replace(cmp, tests=tests))
    html = res.to_html()
    table = html[html.index("<h2>Paired tests</h2>"):]
    table = table[:table.index("</table>")]
    assert table.count("&lt; 1e-300") == 2 * len(tests)
    assert not re.search(r">0(\.0+)?<", table)


def test_difference_bars_are_sorted_by_improvement() -> None:
    from rankmeter.report.experiment import improvement_order

    rng = np.random.default_rng(0)
    d = rng.normal(size=50)
    for hib in (True, False):
        gain = (d if hib else -d)[improvement_order(d, hib)]
        assert np.all(np.diff(gain) <= 0)  # most improved first, whatever the direction


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(_chromium() is None, reason="chromium is not installed")
def test_report_needs_no_horizontal_scrolling_at_1400px(report_res, tmp_path) -> None:
    page = report_res.to_html()
    probe = tmp_path / "probe.html"
    # the report has no script; the copy measures the page width once laid out
    probe.write_text(page.replace("</body>", "<script>document.body.setAttribute('data-width', "
                                             "document.documentElement.scrollWidth)</script></body>"))
    proc = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         "--window-size=1400,1000", "--dump-dom", probe.resolve().as_uri()],
        capture_output=True, text=True, timeout=120)
    m = re.search(r'data-width="(\d+)"', proc.stdout)
    assert m, proc.stderr[-2000:]
    assert int(m.group(1)) <= 1400
    assert "@media print" in page


# --------------------------------------------------------------------------- #12.33 help

@pytest.mark.parametrize("command", ["run-experiment", "demo"])
def test_help_has_examples(command) -> None:
    proc = rankmeter(command, "--help")
    assert proc.returncode == 0 and "Examples:" in proc.stdout
    assert proc.stdout.count(f"rankmeter {command}") >= 3


def test_run_experiment_help_says_a_config_is_code() -> None:
    assert "only configs you trust" in rankmeter("run-experiment", "--help").stdout


def test_the_documented_config_passes_the_schema(tmp_path) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "recsys.md").read_text()
    block = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    cfg = tmp_path / "doc.toml"
    cfg.write_text(block)
    interactions, kwargs, out = config_to_arguments(read_config(cfg))
    assert interactions.endswith("u.data") and kwargs["k"] == 10 and out.endswith("experiment-output")
    assert kwargs["recommenders"]["other"] == {"callable": "mypkg.recs:recommend"}


def test_the_ratio_sweep_example_of_docs_split_runs(tmp_path, monkeypatch) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "split.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "most_popular" in b)
    table = synthetic(n_users=50, n_items=60, seed=1).interactions.to_pandas()
    table.rename(columns={"user": "userId", "item": "movieId"}).to_csv(tmp_path / "ratings.csv", index=False)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "docs/split.md", "exec"), scope)
    assert set(scope["sweep"].mean) == {"ndcg@10", "P@10"}


def test_recommender_names_with_markup_print_as_written() -> None:
    import io

    from rich.console import Console

    res = experiment(synthetic(n_users=60, n_items=80, seed=1), k=3, n_resamples=100,
                     recommenders={"[red]x": "popular", "[/]": "random"})
    buf = io.StringIO()
    res.print(Console(file=buf, width=200))
    text = buf.getvalue()
    assert "[red]x (baseline)" in text and "[/]" in text


def test_split_parameters_of_another_method_are_refused(udata) -> None:
    with pytest.raises(ParameterError, match=r"'k' does not apply to split='holdout'"):
        experiment(str(udata), split="holdout", split_params={"k": 2})
    proc = rankmeter("run-experiment", "-i", str(udata), "--split", "leave_k_out", "--test-fraction", "0.2",
                     "--no-report", "--no-progress")
    assert proc.returncode == 2 and "--test-fraction" in proc.stderr and "leave_k_out" in proc.stderr


def test_temporal_cutoff_without_a_default_fraction(udata) -> None:
    res = experiment(str(udata), split="temporal", split_params={"per_user": False, "test_span": 0.3},
                     recommenders=("popular",), metrics=["P@3"], k=3)
    assert res.split["params"].get("test_fraction") is None


def test_means_csv_is_spreadsheet_safe(udata, tmp_path) -> None:
    """#12.24: a recommender named like a formula is quoted in means.csv; control characters escaped in the table."""
    res = experiment(str(udata), recommenders={"=HYPERLINK(1)": "popular", "a\x1b[31mb": "random"}, k=3,
                     metrics=["P@3"], n_resamples=50)
    csv_text = res.to_csv(tmp_path / "means.csv")
    assert "\n'=HYPERLINK(1)," in csv_text and "\x1b" not in csv_text
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(res.table())
    shown = console.export_text()
    assert "\x1b[31m" not in shown and "\\x1b" in shown


def test_run_experiment_piped_never_cuts_names(udata, tmp_path) -> None:
    """#12.22: piped to a file, long metric and recommender names are printed whole."""
    long_metric = "ndcg(gain=exp,discount=jarvelin)@5"
    names = [f"a_rather_long_recommender_name_{i}=popular" for i in range(3)]
    args = ["run-experiment", "-i", str(udata), "-m", long_metric, "-m", "P@5", "-k", "5", "--no-report"]
    for n in names:
        args += ["-r", n]
    out = rankmeter(*args, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert long_metric in out.stdout and "…" not in out.stdout
    for n in names:
        assert n.split("=")[0] in out.stdout
