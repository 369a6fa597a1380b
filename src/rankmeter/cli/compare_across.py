"""``rankmeter compare-across ml=out-ml/ books=out-books/ -m ndcg@10 --baseline popular``: the same models
on several data sets, from saved experiment results (:func:`rankmeter.compare_across`)."""

from __future__ import annotations

import sys

import click


@click.command(
    name="compare-across",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter compare-across ml=ml-output/ books=books-output/ lastfm=lastfm-output/ -m ndcg@10\n\n"
        "  rankmeter compare-across a=a/results.json b=b/results.json -m recall@20 --baseline popular --format markdown"
    ),
)
@click.argument("saved", nargs=-1, required=True, metavar="NAME=RESULT [NAME=RESULT ...]")
@click.option("-m", "--metric", "metric", default=None,
              help="The metric compared (default: the only one the results share).")
@click.option("--baseline", default=None, help="The model each other model's difference is taken from "
                                                "(random-effects meta-analysis).")
@click.option("--posthoc", type=click.Choice(["nemenyi", "holm"]), default="nemenyi", show_default=True,
              help="Post-hoc test after Friedman's test (Demšar 2006).")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="Significance level.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "html", "json"]), default="markdown",
              show_default=True, help="Output format (html: with the critical-difference diagram).")
def command(saved: tuple[str, ...], metric: str | None, baseline: str | None, posthoc: str, alpha: float,
            fmt: str) -> None:
    """Compare the same models on several data sets: per-data-set means, Friedman's rank test with a post-hoc
    test and the critical-difference diagram, and with --baseline a random-effects meta-analysis.

    Each RESULT is what `rankmeter run-experiment` wrote (its folder or its results.json), named by NAME.
    """
    from .._errors import ParameterError
    from ..compare.across import compare_across
    from ..recsys.result import ExperimentResult
    from ._output import note, write_json

    results = {}
    for arg in saved:
        name, sep, path = arg.partition("=")
        if not sep or not name or not path:
            raise ParameterError(f"each RESULT is NAME=PATH (a data set's name and its saved experiment). Got {arg!r}")
        if name in results:
            raise ParameterError(f"the data set name {name!r} is given twice")
        results[name] = ExperimentResult.load(path)
    res = compare_across(results, metric, baseline=baseline, posthoc=posthoc, alpha=alpha)
    for line in res.notes:
        note(line)
    if fmt == "json":
        fr = res.friedman
        write_json({
            "metric": res.metric, "baseline": res.baseline,
            "means": {d: {m: float(res.means.loc[d, m]) for m in res.means.columns} for d in res.means.index},
            "overall": res.overall,
            "friedman": None if fr is None else {
                "statistic": fr.statistic, "p_value": fr.p_value, "mean_ranks": fr.mean_ranks,
                "critical_difference": fr.critical_difference, "posthoc": fr.posthoc,
                "pairs": [{"a": a, "b": b, "p": p, "p_adjusted": q} for a, b, p, q in fr.pairs]},
            "meta": {m: {"mu": x.mu, "se": x.se, "ci_low": x.ci_low, "ci_high": x.ci_high, "tau2": x.tau2,
                         "q": x.q, "i2": x.i2, "k": x.k} for m, x in res.meta.items()},
        })
    elif fmt == "html":
        sys.stdout.write(res.to_html())
    else:
        sys.stdout.write(res.to_markdown())
