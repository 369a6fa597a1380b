"""``rankmeter compare QRELS RUN [RUN ...] -m METRIC ...``: paired tests, intervals and reports."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

TESTS = ("t", "wilcoxon", "randomization", "bootstrap")


def _split_metrics(values: tuple[str, ...]) -> list[str]:
    """Each -m value may hold several metrics separated by commas outside parentheses."""
    out: list[str] = []
    for v in values:
        depth, cur = 0, ""
        for ch in v:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if ch == "," and depth == 0:
                if cur.strip():
                    out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            out.append(cur.strip())
    return out


def _named_runs(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """``NAME=PATH`` or ``PATH`` (named by the file name without extension)."""
    from .._errors import ParameterError

    out: list[tuple[str, str]] = []
    for a in args:
        if "=" in a and not os.path.exists(a):
            name, path = a.split("=", 1)
            if not name or not path:
                raise ParameterError(f"a run is PATH or NAME=PATH. Got {a!r} instead.")
        else:
            path = a
            name = Path(a).name
            for suffix in (".gz", ".bz2", ".xz", ".zst"):
                if name.endswith(suffix):
                    name = name[: -len(suffix)]
            name = Path(name).stem or name
        out.append((name, path))
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ParameterError(f"two runs are named {dup[0]!r}; name them with NAME=PATH")
    return out


class _Bar:
    """A rich progress display on stderr, one line per task, created as tasks appear."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("{task.description:<20}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(stderr=True), transient=False)
        self.tasks: dict[str, Any] = {}

    def __call__(self, task: str, done: int, total: int) -> None:
        if task not in self.tasks:
            self.tasks[task] = self.progress.add_task(task, total=total)
        self.progress.update(self.tasks[task], completed=done, total=total)

    def __enter__(self) -> "_Bar":
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()


@click.command(
    name="compare",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter compare qrels.txt bm25.run dense.run -m ndcg@10 -m P@10\n\n"
        "  rankmeter compare qrels.txt base=runs/a.txt new=runs/b.txt -m map --test randomization "
        "--format latex\n\n"
        "  rankmeter compare qrels.txt runs/*.txt -m ndcg@10 --pairs all --correction bh --html report.html"
    ),
)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("-m", "--metric", "metrics", multiple=True, required=True,
              help="Metric, repeatable (or comma-separated): ndcg@10, P_10, 'ap(norm=min)@5'.")
@click.option("--baseline", default=None, help="Run the others are tested against (default: the first).")
@click.option("--test", "tests", multiple=True, type=click.Choice(TESTS), default=("t",), show_default=True,
              help="Paired test, repeatable; the first gives the table markers.")
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Multiple-testing correction.")
@click.option("--family", type=click.Choice(["metric", "all"]), default="metric", show_default=True,
              help="Correct within each metric, or over all metrics together.")
@click.option("--pairs", type=click.Choice(["baseline", "all"]), default="baseline", show_default=True,
              help="Test each run against the baseline, or every pair.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level (adjusted p < alpha).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Bootstrap interval level.")
@click.option("--interval", type=click.Choice(["bca", "percentile"]), default="bca", show_default=True,
              help="Bootstrap interval method.")
@click.option("--resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Bootstrap resamples and random sign patterns.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Random seed.")
@click.option("--queries", type=click.Choice(["judged", "qrels", "common"]), default="judged", show_default=True,
              help="Judged queries with a relevant item (missing from a run: scores 0), every judged query, or "
                   "judged queries present in every run.")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "latex", "json", "csv"]), default="table",
              show_default=True, help="Output on stdout.")
@click.option("--details", is_flag=True, help="json: add effect sizes, methods, settings and notes.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a self-contained HTML report (needs matplotlib).")
@click.option("--k-max", type=click.IntRange(min=1), default=100, show_default=True,
              help="HTML: metric@k curves for k = 1..K.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending) or by the files' rank column.")
@click.option("--duplicates", type=click.Choice(["error", "max", "first", "last"]), default="error",
              show_default=True, help="What to do with a repeated (query, item) row.")
def command(qrels: str, runs: tuple[str, ...], metrics: tuple[str, ...], baseline: str | None,
            tests: tuple[str, ...], correction: str, family: str, pairs: str, alpha: float, confidence: float,
            interval: str, resamples: int, seed: int, queries: str, fmt: str, details: bool,
            html_path: str | None, k_max: int, progress: bool | None, order: str, duplicates: str) -> None:
    """Compare RUNs on the judgments QRELS: means, bootstrap intervals, paired tests.

    A RUN is PATH (named by its file name without extension) or NAME=PATH. Every
    run is evaluated on the same queries; a judged query missing from a run scores
    0 there (counted on stderr).
    """
    from contextlib import nullcontext

    from ..compare import compare
    from ..io import read_qrels, read_run
    from ..metrics.registry import parse_metrics
    from ._output import note

    named = _named_runs(runs)
    parsed = parse_metrics(_split_metrics(metrics))
    show = sys.stderr.isatty() if progress is None else progress
    bar = _Bar() if show else None
    with bar if bar is not None else nullcontext():
        q = read_qrels(qrels, duplicates=duplicates)
        loaded = {}
        for i, (name, path) in enumerate(named):
            loaded[name] = read_run(path, order=order, duplicates=duplicates)
            if bar is not None:
                bar("reading runs", i + 1, len(named))
        cmp = compare(q, loaded, parsed, baseline=baseline, test=list(tests), correction=correction,
                      alpha=alpha, confidence=confidence, n_resamples=resamples, seed=seed, pairs=pairs,
                      queries=queries, family=family, interval=interval, progress=bar)
        if html_path is not None:
            cmp.to_html(html_path, k_max=k_max, progress=bar)
    for line in cmp.notes:
        note(line)
    if fmt == "table":
        from rich.console import Console

        console = Console(width=None if sys.stdout.isatty() else 200, soft_wrap=False)
        console.print(cmp.to_table())
        console.print(cmp.to_tests_table(compact=console.width < 120))
        console.print(cmp.describe(), style="dim")
    elif fmt == "markdown":
        sys.stdout.write(cmp.to_markdown())
    elif fmt == "latex":
        sys.stdout.write(cmp.to_latex())
    elif fmt == "json":
        sys.stdout.write(cmp.to_json(details=details) + "\n")
    else:
        sys.stdout.write(cmp.to_csv())
    if html_path is not None:
        note(f"wrote {html_path}")
