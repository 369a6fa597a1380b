"""``rankmeter compare QRELS RUN [RUN ...] -m METRIC ...``: paired tests, intervals and reports."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..metrics.conventions import TOOLS as _TOOLS
from ._groups import group_by_option
from ._options import COLUMN_OPTIONS, Command, column_options, subtopics_option

TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey-hsd")

# library keywords -> this command's options, for messages (see _options.cli_spelling)
PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "n_resamples": "--resamples", "test": "--test", "metrics": "-m/--metric",
                     "k_max": "--k-max"}


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
    cls=Command,
    name="compare",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter compare qrels.txt bm25.run dense.run -m ndcg@10 -m P@10\n\n"
        "  rankmeter compare qrels.txt base=runs/a.txt new=runs/b.txt -m map --test randomization "
        "--format latex\n\n"
        "  rankmeter compare qrels.txt runs/*.txt -m ndcg@10 --pairs all --correction bh --html report.html\n\n"
        "  rankmeter compare qrels.txt runs/ -m ndcg@10,P.5,10\n\n"
        "  rankmeter compare bm25.json dense.json -m ndcg@10   (results saved by Result.save)"
    ),
)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("-m", "--metric", "--measures", "metrics", multiple=True, required=True,
              help="Metric, repeatable or comma-separated: ndcg@10, P_10, 'ap(norm=min)@5', -m ndcg@10,map, "
                   "trec_eval's -m P.5,10. With QRELS irds:DATASET_ID, --measures official: the dataset's "
                   "official measures.")
@click.option("--baseline", default=None, help="Run the others are tested against (default: the first).")
@click.option("--test", "tests", multiple=True, type=click.Choice(TESTS), default=("t",), show_default=True,
              help="Paired test, repeatable; the first gives the table markers. tukey-hsd: randomised Tukey HSD "
                   "over all the runs, blocked on topics (familywise p-values, not corrected again).")
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
@click.option("--depth", "-M", type=click.IntRange(min=1), default=None,
              help="Cut every ranking to its first N items before every metric (trec_eval -M).")
@click.option("--judged-only", "-J", is_flag=True,
              help="Remove unjudged items (and negative grades) from every ranking first (trec_eval -J).")
@click.option("--ties", type=click.Choice(["id", "average", "optimistic", "pessimistic"]), default="id",
              show_default=True,
              help="How tied scores are ordered: id (item id descending, trec_eval's rule); average (expected "
                   "value over the orders of each tied group, McSherry and Najork 2008); optimistic / "
                   "pessimistic (best / worst grade first).")
@click.option("--convention", type=click.Choice(list(_TOOLS)), default=None,
              help="Read the metric names without a tool: prefix as this tool computes them (docs/conventions.md).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "latex", "json", "csv"]), default="table",
              show_default=True, help="Output on stdout (with --group-by, csv prints the means per group).")
@click.option("--details", is_flag=True, help="json: add effect sizes, methods, settings and notes.")
@click.option("--overlap", "overlap", is_flag=True,
              help="Also report the mean rank-biased overlap (p = 0.9) of each compared pair of runs' rankings.")
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
@column_options("query", "item", "score", "grade", "rank", "subtopic")
@subtopics_option
@group_by_option
def command(qrels: str, runs: tuple[str, ...], metrics: tuple[str, ...], baseline: str | None,
            tests: tuple[str, ...], correction: str, family: str, pairs: str, alpha: float, confidence: float,
            interval: str, resamples: int, seed: int, queries: str, depth: int | None, judged_only: bool,
            ties: str, convention: str | None, fmt: str, details: bool, overlap: bool,
            html_path: str | None, k_max: int, progress: bool | None, order: str, duplicates: str,
            query_column: str | None, item_column: str | None, score_column: str | None,
            grade_column: str | None, rank_column: str | None, group_by: str | None,
            subtopic_column: str | None = None, subtopics: bool = False) -> None:
    """Compare RUNs on the judgments QRELS: means, bootstrap intervals, paired tests.

    A RUN is PATH (named by its file name without extension), NAME=PATH, or a folder
    (its files, sorted, each named by its file name without extension). Every
    run is evaluated on the same queries; a judged query missing from a run scores
    0 there (counted on stderr). A RUN may also be a result saved by Result.save (a .json
    file, compared on its per-query values); when every RUN is one, QRELS may be one too
    and no judgments are read.
    """
    from contextlib import nullcontext

    from ..compare import compare
    from ..io import read_qrels, read_run
    from ..report.terminal import print_comparison
    from ..stats.resampling import check_memory
    from ._options import check_output_path, named_runs, parse_metric_list
    from ._output import note

    if html_path is not None:
        check_output_path(html_path, "--html")
    notes: list[str] = []
    if group_by is not None:  # a bad groups file is an error before the work, not after it
        from ..stats.groups import read_groups

        read_groups(group_by, option="--group-by")
    named = named_runs(runs, notes)
    saved_first = saved_result(qrels)  # compare A.json B.json ...: saved results need no judgments
    if saved_first is not None:
        named = [(Path(qrels).name.removesuffix(".json"), qrels), *named]
    if len(named) < 2:
        from .._errors import ParameterError

        raise ParameterError(f"compare needs at least 2 runs. Got {len(named)} ({', '.join(p for _, p in named)}); "
                             "give more RUN arguments, or a folder of runs")
    if any(m.strip().lower() == "official" for m in metrics):  # QRELS irds:ID: the dataset's official measures
        from ..io.irds import expand_official

        metrics = tuple(expand_official(list(metrics), qrels))
    # each spelling its own key, as evaluate: computed and tested once (see rankmeter.compare)
    parsed, metric_notes = parse_metric_list(metrics, spellings=True)
    notes += metric_notes
    if convention is not None:
        from ..metrics.conventions import with_convention

        parsed = with_convention([m.text for m in parsed], convention, func="compare")
    # the bootstrap's memory, before any file is read
    n_pairs = (len(named) - 1 if pairs == "baseline" else len(named) * (len(named) - 1) // 2) * len(parsed)
    check_memory(resamples, len(named) * len(parsed), n_pairs, name="compare")
    from ..compare.streamed import StreamedRun
    from ..io.source import is_stream

    streams = [path for _, path in named if is_stream(path)]
    if streams and (html_path is not None or overlap):
        from .._errors import ParameterError

        what = "--html draws metric@k curves from" if html_path is not None else "--overlap compares"
        raise ParameterError(f"{what} the runs' rankings, and run {streams[0]!r} is a stream ('-', a pipe or a "
                             "FIFO), evaluated as it arrives and not kept: write it to a file first")
    for line in notes:
        note(line)
    show = sys.stderr.isatty() if progress is None else progress
    bar = _Bar() if show else None
    with bar if bar is not None else nullcontext():
        q = None if saved_first is not None else read_qrels(
            qrels, duplicates=duplicates, query=query_column, item=item_column, grade=grade_column,
            subtopics=subtopics, subtopic=subtopic_column)
        loaded: dict[str, Any] = {}
        for i, (name, path) in enumerate(named):
            result = saved_first if (i == 0 and saved_first is not None) else saved_result(path)
            if result is None and is_stream(path):  # '-', a pipe, a FIFO: evaluated as it arrives, never held
                loaded[name] = StreamedRun(path, {"order": order, "duplicates": duplicates, "query": query_column,
                                                  "item": item_column, "score": score_column, "rank": rank_column})
                continue
            loaded[name] = result if result is not None else read_run(
                path, order=order, duplicates=duplicates, query=query_column, item=item_column,
                score=score_column, rank=rank_column)
            if bar is not None:
                bar("reading runs", i + 1, len(named))
        cmp = compare(q, loaded, parsed, baseline=baseline, test=list(tests), correction=correction,
                      alpha=alpha, confidence=confidence, n_resamples=resamples, seed=seed, pairs=pairs,
                      queries=queries, family=family, interval=interval, progress=bar, depth=depth,
                      judged_only=judged_only, overlap=overlap, ties=ties)
        from ..provenance import describe_input

        cmp.provenance = cmp.provenance.with_inputs(  # the files read, where compare saw what was read from them
            ([describe_input("qrels", qrels)] if q is not None else [])
            + [describe_input(f"run:{name}", path) for name, path in named])
        views = None
        if group_by is not None:
            from ..compare.groups import compare_by_group

            views = compare_by_group(cmp, group_by, option="--group-by")
        if html_path is not None:
            cmp.to_html(html_path, k_max=k_max, progress=bar, groups=views)
    for line in cmp.notes:
        note(line)
    if views is not None:
        from . import _groups

        for line in _groups.notes_of(views):
            note(line)
    if fmt == "table":
        from rich.console import Console

        print_comparison(cmp, Console(), notes=False)
    elif fmt == "markdown":
        sys.stdout.write(cmp.to_markdown())
    elif fmt == "latex":
        sys.stdout.write(cmp.to_latex())
    elif fmt == "json":
        text = cmp.to_json(details=details)
        if views is not None:
            import json

            from .._files import json_text
            from ._groups import payload
            from ._output import json_safe

            doc = json.loads(text)
            doc["groups"] = payload(views) if len(views) > 1 else {next(iter(views)): payload(views)}
            text = json_text(json_safe(doc))
        sys.stdout.write(text + "\n")
    elif views is None:
        sys.stdout.write(cmp.to_csv())
    if views is not None and fmt != "json":
        from . import _groups

        _groups.write(views, fmt)  # csv: the means per group, instead of the comparison's table
    if html_path is not None:
        note(f"wrote {html_path}")


def saved_result(path: str) -> Any:
    """The :class:`~rankmeter.result.Result` saved in ``path`` (a ``.json`` file that ``Result.save`` wrote),
    or None for anything else (a run, judgments)."""
    if not str(path).endswith(".json") or not Path(path).is_file():
        return None
    import json

    from ..result import RESULT_FORMAT, Result, result_from_saved

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):  # not a saved result (nested too deeply: neither): read as a run
        return None
    info = data.get("rankmeter") if isinstance(data, dict) else None
    if not isinstance(info, dict) or info.get("format") != RESULT_FORMAT:
        return None
    result: Result = result_from_saved(data, source=str(path))
    return result
