"""Issue #12, the CLI and report items: each test runs the real executable in a subprocess.

No command of these tests may print ``internal error`` (checked by ``run_cli``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=300,
                         env=env, cwd=cwd)
    assert "internal error" not in out.stderr, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return out


HOSTILE = ["q[/]1", "[red]q2", "q\x1b]8;;http://evil\x1b\\3"]


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, Path]:
    """Judgments and two runs (CSV, so ids can hold anything) whose ids are rich markup and escapes."""
    q = tmp_path / "qrels.csv"
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    with q.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["query", "item", "grade"])
        for i, qid in enumerate(HOSTILE):
            w.writerow([qid, "d1", 1])
            w.writerow([qid, f"d{i + 2}", 1])
    for path, shift in ((a, 0), (b, 1)):
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["query", "item", "score"])
            for i, qid in enumerate(HOSTILE):
                w.writerow([qid, "d1", 2 - shift])
                w.writerow([qid, "dx", 1.5])
                w.writerow([qid, f"d{i + 2}", 1 + shift])
    return {"qrels": q, "a": a, "b": b}


# --------------------------------------------------------------------------- 2: markup and escapes


def _shown(qid: str) -> str:
    """The id by the one escaping rule (issue 24.13): a literal backslash doubled, ESC escaped."""
    return qid.replace("\\", "\\\\").replace("\x1b", "\\x1b")


def test_markup_ids_printed_as_written_in_evaluate_per_query(hostile) -> None:
    out = run_cli("evaluate", str(hostile["qrels"]), str(hostile["a"]), "-m", "P@1", "--per-query")
    assert out.returncode == 0, out.stderr
    for qid in HOSTILE:
        assert _shown(qid) in out.stdout
    assert "\x1b" not in out.stdout  # no raw escape reaches the terminal


def test_markup_run_name_and_ids_in_compare(hostile) -> None:
    out = run_cli("compare", str(hostile["qrels"]), f"[/]={hostile['a']}", f"[red]b={hostile['b']}",
                  "-m", "P@1", "--resamples", "200")
    assert out.returncode == 0, out.stderr
    assert "[/] (baseline)" in out.stdout and "[red]b" in out.stdout
    assert "\x1b" not in out.stdout + out.stderr


def test_control_characters_escaped_in_notes(hostile, tmp_path) -> None:
    extra = tmp_path / "extra.csv"
    extra.write_text(hostile["a"].read_text() + "\"z\x1b[31mred\",d1,1\n")
    out = run_cli("evaluate", str(hostile["qrels"]), str(extra), "-m", "P@1")
    assert out.returncode == 0, out.stderr
    assert "z\\x1b[31mred" in out.stderr and "\x1b" not in out.stderr


def test_markup_ids_in_evaluate_ratings_per_user(tmp_path) -> None:
    t = tmp_path / "r.csv"
    t.write_text("user,item,rating,prediction\n[red]u1,a,4,3.5\n[red]u1,b,3,3\nq[/]2,a,5,4\n")
    out = run_cli("evaluate-ratings", str(t), "-m", "mae", "--per-query")
    assert out.returncode == 0, out.stderr
    assert "[red]u1" in out.stdout and "q[/]2" in out.stdout
    assert "1 user," not in out.stdout and "2 users, 3 pairs" in out.stdout  # 27: plurals


def test_one_user_is_singular(tmp_path) -> None:
    t = tmp_path / "r.csv"
    t.write_text("user,item,rating,prediction\nu1,a,4,3.5\n")
    out = run_cli("evaluate-ratings", str(t), "-m", "mae")
    assert out.returncode == 0, out.stderr
    assert "1 user, 1 pair" in out.stdout and "1 users" not in out.stdout


# --------------------------------------------------------------------------- 8, 9: refuse before the work


@pytest.fixture
def trec(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"q{i} 0 d{i} 1\nq{i} 0 e{i} 1\n" for i in range(6)))
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "bm25.txt").write_text("".join(f"q{i} Q0 d{i} 1 3 a\nq{i} Q0 x{i} 2 2 a\n" for i in range(6)))
    (runs / "dense.txt").write_text("".join(f"q{i} Q0 x{i} 1 3 b\nq{i} Q0 e{i} 2 2 b\n" for i in range(6)))
    (runs / ".DS_Store").write_text("junk")
    return {"qrels": q, "runs": runs, "bm25": runs / "bm25.txt", "dense": runs / "dense.txt"}


def test_huge_resamples_refused_naming_the_option(trec) -> None:
    out = run_cli("compare", str(trec["qrels"]), str(trec["bm25"]), str(trec["dense"]), "-m", "P@1",
                  "--resamples", "1000000000000")
    assert out.returncode == 2
    assert "--resamples" in out.stderr and "n_resamples" not in out.stderr and "TiB" in out.stderr


def test_uncreatable_html_refused_before_the_work(trec) -> None:
    out = run_cli("compare", str(trec["qrels"]), str(trec["bm25"]), str(trec["dense"]), "-m", "P@1",
                  "--html", "/proc/nope/x.html")
    assert out.returncode == 2 and "--html" in out.stderr and "/proc/nope" in out.stderr
    assert out.stdout == ""  # nothing was computed or printed


# --------------------------------------------------------------------------- 14: columns


def test_column_options_name_the_columns(tmp_path) -> None:
    q = tmp_path / "j.csv"
    r = tmp_path / "r.csv"
    q.write_text("who,what,how\nu1,i1,1\nu1,i2,0\nu2,i3,1\n")
    r.write_text("who,what,weight\nu1,i1,0.9\nu1,i2,0.8\nu2,i3,0.1\n")
    bad = run_cli("evaluate", str(q), str(r), "-m", "P@1")
    assert bad.returncode == 2 and "--query-column NAME" in bad.stderr and "query=" not in bad.stderr
    cols = ["--query-column", "who", "--item-column", "what", "--grade-column", "how", "--score-column", "weight"]
    for cmd in (["evaluate", str(q), str(r)], ["compare", str(q), f"x={r}", f"y={r}", "--resamples", "100"]):
        out = run_cli(*cmd, "-m", "P@1", "--format", "json", *cols)
        assert out.returncode == 0, out.stderr
        payload = json.loads(out.stdout)
        means = payload["mean"] if cmd[0] == "evaluate" else payload["means"]["x"]
        assert means["P@1"] == 1.0


def test_rank_column_option(tmp_path) -> None:
    q = tmp_path / "j.csv"
    r = tmp_path / "r.csv"
    q.write_text("query,item,grade\nu1,i1,1\n")
    r.write_text("query,item,score,position\nu1,i1,0.1,1\nu1,i2,0.9,2\n")
    out = run_cli("evaluate", str(q), str(r), "-m", "P@1", "--order", "rank", "--rank-column", "position",
                  "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["mean"]["P@1"] == 1.0


# --------------------------------------------------------------------------- 15: folders, several runs


def test_compare_a_folder_of_runs(trec) -> None:
    out = run_cli("compare", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1", "--format", "json", "--details",
                  "--resamples", "100")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["runs"] == ["bm25", "dense"]
    assert "skipped 1 hidden file (.DS_Store)" in out.stderr


def test_evaluate_several_runs_one_table(trec) -> None:
    out = run_cli("evaluate", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1,P@2")
    assert out.returncode == 0, out.stderr
    # runs as rows, as in markdown (issue 24 item 18): one table, a row per run
    header = next(line for line in out.stdout.splitlines() if "run" in line and "P@1" in line)
    assert "P@2" in header
    assert [line.split("│")[1].strip() for line in out.stdout.splitlines() if line.startswith("│")] == ["bm25",
                                                                                                      "dense"]
    out = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), str(trec["dense"]), "-m", "P@1",
                  "--format", "json", "--per-query")
    payload = json.loads(out.stdout)
    assert set(payload["runs"]) == {"bm25", "dense"}
    assert payload["runs"]["bm25"]["mean"]["P@1"] == 1.0 and payload["runs"]["dense"]["mean"]["P@1"] == 0.0
    assert payload["runs"]["dense"]["per_query"]["q0"]["P@1"] == 0.0
    rows = list(csv.reader(io.StringIO(run_cli("evaluate", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1",
                                               "--format", "csv").stdout)))
    assert rows == [["metric", "bm25", "dense"], ["P@1", "1.0", "0.0"]]
    rows = list(csv.reader(io.StringIO(run_cli("evaluate", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1",
                                               "--format", "csv", "-q").stdout)))
    assert rows[0] == ["run", "query", "P@1"] and ["dense", "q3", "0.0"] in rows
    lines = run_cli("evaluate", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1", "--format", "trec").stdout
    assert [ln.split("\t")[2] for ln in lines.splitlines() if ln.startswith("runid")] == ["bm25", "dense"]


# --------------------------------------------------------------------------- 16: metric lists


def test_one_metric_list_syntax_in_evaluate(trec) -> None:
    out = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), "-m", "ndcg@10,map", "-m", "P.1,2",
                  "--format", "json")
    assert out.returncode == 0, out.stderr
    assert list(json.loads(out.stdout)["mean"]) == ["ndcg@10", "map", "P_1", "P_2"]  # trec_eval comma forms expand to the names trec_eval prints
    out = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), "-m", "map", "-m", "map", "--format", "json")
    assert out.returncode == 0 and "given twice" in out.stderr


# --------------------------------------------------------------------------- 20: tables for papers


def test_evaluate_paper_formats_for_one_run(trec) -> None:
    md = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), "-m", "P@1,P@2", "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert "| run | queries | P@1 | P@2 |" in md.stdout and "| bm25 | 6 | 1.0000 | 0.5000 |" in md.stdout
    tex = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), "-m", "P@1", "--format", "latex").stdout
    assert r"\toprule" in tex and r"bm25 & 6 & 1.0000 \\" in tex
    page = run_cli("evaluate", str(trec["qrels"]), str(trec["runs"]), "-m", "P@1", "--format", "html", "-q").stdout
    assert page.startswith("<!DOCTYPE html>") and "<td class=\"l\">dense</td>" in page and "http" not in page


# --------------------------------------------------------------------------- 21: ratings labels


def test_compare_of_ratings_results_labels_the_per_user_mean() -> None:
    import pandas as pd

    from rankmeter.compare import compare
    from rankmeter.ratings.evaluate import evaluate_ratings

    t = pd.DataFrame({"user": ["u1", "u1", "u2", "u3", "u3", "u3"], "item": list("ababca"),
                      "rating": [4, 3, 5, 2, 1, 3]})
    ra = evaluate_ratings(t.assign(prediction=[3.5, 3, 4, 3, 2.5, 3]), None, ["mae", "mae(per=user)"])
    rb = evaluate_ratings(t.assign(prediction=[4, 2, 4, 2, 2, 1]), None, ["mae", "mae(per=user)"])
    c = compare(None, {"a": ra, "b": rb}, n_resamples=100)
    assert c.metrics == ("mae (mean over users)", "mae(per=user)")
    assert c.means["a"]["mae (mean over users)"] == pytest.approx(ra.mean["mae(per=user)"])
    assert c.means["a"]["mae (mean over users)"] != pytest.approx(ra.mean["mae"])
    for text in (c.to_markdown(), c.to_csv(), c.to_latex(), c.to_json()):
        assert "mae (mean over users)" in text
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    c.print(console)
    assert "mae (mean over users)" in console.export_text()


# --------------------------------------------------------------------------- 22: never cut


def _pty_run(args: list[str], columns: int = 80) -> str:
    pty = pytest.importorskip("pty")
    import select

    env = dict(os.environ, COLUMNS=str(columns), LINES="50", TERM="xterm")
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execvpe(sys.executable, [sys.executable, "-m", "rankmeter", *args], env)
    chunks = []
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


def test_compare_on_an_80_column_terminal_cuts_nothing(trec, tmp_path) -> None:
    long_a = "a_rather_long_run_name_bm25_with_rm3"
    long_b = "another_long_run_name_dense_retrieval"
    args = ["compare", str(trec["qrels"]), f"{long_a}={trec['bm25']}", f"{long_b}={trec['dense']}",
            "-m", "ndcg@10,P.1,2,3", "--resamples", "200", "--no-progress"]
    text = _pty_run(args)
    assert "…" not in text
    payload = json.loads(run_cli(*args, "--format", "json").stdout)
    for run in (long_a, long_b):
        assert run in text
        for m, (lo, hi) in payload["intervals"][run].items():
            assert f"[{lo:.4f}, {hi:.4f}]" in text, (m, text)
    for t in payload["tests"]:
        assert f"[{t['diff_interval'][0]:.4f}, {t['diff_interval'][1]:.4f}]" in text
        assert f"{t['p_value']:.3f}" in text


def test_piped_tables_keep_long_names(trec) -> None:
    metrics = ["ndcg(gain=exp)@10", "ap(norm=min)@5", "rbp(p=0.8)", "ndcg(gain=exp)@20", "ndcg(gain=exp)@30"]
    args = [a for m in metrics for a in ("-m", m)]
    out = run_cli("evaluate", str(trec["qrels"]), str(trec["bm25"]), *args, "-q")
    assert out.returncode == 0, out.stderr
    header = next(line for line in out.stdout.splitlines() if "┃ query" in line)
    assert all(m in header for m in metrics) and "…" not in out.stdout
    assert len(header) > 80  # wider than a terminal: printed whole, since a pipe has no width


# --------------------------------------------------------------------------- 23: JSON null


def test_json_writes_null_with_a_note(trec, tmp_path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("zz Q0 d1 1 1 x\n")
    out = run_cli("evaluate", str(trec["qrels"]), str(other), "-m", "P@1", "--queries", "run", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert "NaN" not in out.stdout
    payload = json.loads(out.stdout)
    assert payload["mean"]["P@1"] is None and any("P@1" in n and "null" in n for n in payload["notes"])


# --------------------------------------------------------------------------- 24: forged lines, formulas


def test_ids_cannot_forge_trec_lines_or_formulas(tmp_path) -> None:
    forged = "x\nmap                   \tall\t0.9999"
    q = tmp_path / "q.csv"
    r = tmp_path / "r.csv"
    for path, last in ((q, "grade"), (r, "score")):
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["query", "item", last])
            for qid in (forged, "=HYPERLINK(\"http://x\")", "@SUM(1)", "q1"):
                w.writerow([qid, "d1", 1])
    out = run_cli("evaluate", str(q), str(r), "-m", "P@1", "--format", "trec", "-q")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 5 and all(len(line.split("\t")) == 3 for line in lines)
    assert not any(line.startswith("map") for line in lines)
    rows = list(csv.reader(io.StringIO(run_cli("evaluate", str(q), str(r), "-m", "P@1", "--format", "csv",
                                               "-q").stdout)))
    firsts = [row[0] for row in rows]
    assert "'=HYPERLINK(\"http://x\")" in firsts and "'@SUM(1)" in firsts
    assert not any(f.startswith(("=", "@", "+")) for f in firsts)


def test_compare_csv_keeps_negative_numbers_and_markdown_escapes_names(trec) -> None:
    args = ["compare", str(trec["qrels"]), f"<script>={trec['bm25']}", f"a|b={trec['dense']}", "-m", "P@1",
            "--resamples", "100"]
    rows = list(csv.DictReader(io.StringIO(run_cli(*args, "--format", "csv").stdout)))
    diff = next(row for row in rows if row["kind"] == "diff")
    assert diff["value"] == "-1.0"  # a number we wrote: not quoted as text
    md = run_cli(*args, "--format", "markdown").stdout
    assert "<script>" not in md and "&lt;script>" in md and "a\\|b" in md


# --------------------------------------------------------------------------- 26: warnings


def test_warnings_are_one_counted_line(tmp_path) -> None:
    mod = tmp_path / "warn_cmd.py"
    mod.write_text(textwrap.dedent("""
        import click, numpy as np

        @click.command(name="warn")
        def command():
            for _ in range(3):
                np.array([1e308]) * 10
            click.echo("done")
    """))
    code = ("import sys; from rankmeter.cli import _app; "
            "_app.COMMANDS['warn'] = ('warn_cmd', 'test'); sys.exit(_app.main(['warn']) or 0)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout == "done\n"
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankmeter: warning: ") and "(3 times)" in lines[0]
    assert "overflow" in lines[0] and "RuntimeWarning" not in out.stderr


# --------------------------------------------------------------------------- 27: the user's spelling


def test_errors_say_the_option_as_written(tmp_path) -> None:
    q = tmp_path / "q.txt"
    r = tmp_path / "r.txt"
    q.write_text("q1 0 d1 1\nq1 0 d1 0\n")
    r.write_text("q1 Q0 d1 1 1 x\n")
    out = run_cli("evaluate", str(q), str(r), "-m", "P@1")
    assert out.returncode == 2 and "--duplicates max" in out.stderr and "duplicates='max'" not in out.stderr
    t = tmp_path / "t.csv"
    t.write_text("user,item,rating\nu1,a,4\nu1,a,5\n")
    out = run_cli("evaluate-ratings", str(t), str(t), "-m", "mae")
    assert out.returncode == 2 and "duplicates='" not in out.stderr
    c = tmp_path / "c.csv"
    c.write_text("user,item,rating,prediction\nu1,a,4,7\nu1,b,3,3\n")
    out = run_cli("evaluate-ratings", str(c), "-m", "mae", "--scale", "1:5")
    assert out.returncode == 0 and "(--clip clips them)" in out.stderr and "clip=True" not in out.stderr


def test_compare_of_one_run_says_so_in_cli_words(trec) -> None:
    out = run_cli("compare", str(trec["qrels"]), str(trec["bm25"]), "-m", "P@1")
    assert out.returncode == 2 and "at least 2 runs" in out.stderr and "'runs' parameter" not in out.stderr


def test_compare_family_size_is_singular(trec) -> None:
    out = run_cli("compare", str(trec["qrels"]), str(trec["bm25"]), str(trec["dense"]), "-m", "P@1",
                  "--resamples", "100", "--format", "markdown")
    assert "(1 comparison each)" in out.stdout and "1 comparisons" not in out.stdout


def test_compare_says_which_column_became_the_grade(tmp_path) -> None:
    """#12.19 in compare: the judgments reader's note and each run's judgment coverage reach stderr."""
    (tmp_path / "t.csv").write_text("user,item,rating\nu1,a,5\nu1,b,3\nu2,c,4\n")
    (tmp_path / "p.csv").write_text("user,item,score\nu1,a,0.9\nu1,c,0.5\nu2,c,0.7\n")
    out = run_cli("compare", str(tmp_path / "t.csv"), f"a={tmp_path / 'p.csv'}", f"b={tmp_path / 'p.csv'}",
                  "-m", "ndcg@10")
    assert out.returncode == 0, out.stderr
    assert "grade from column 'rating'" in out.stderr and "judgment coverage" in out.stderr
