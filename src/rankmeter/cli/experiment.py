"""``rankmeter run-experiment [CONFIG.toml] [options]``: the whole recommender evaluation loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .._errors import ParameterError
from ..metrics.conventions import TOOLS as _TOOLS
from ._options import Command


def _parse_recommender(text: str) -> tuple[str, Any]:
    """``popular`` | ``itemknn:neighbors=20`` | ``name=FILE`` | ``name=module:function``."""
    if "=" in text and ":" not in text.split("=", 1)[0]:
        name, _, spec = text.partition("=")
        name = name.strip()
        spec = spec.strip()
        if not name or not spec:
            raise ParameterError(f"cannot read the recommender {text!r}: expected NAME=FILE or NAME=module:function")
        from ..recsys.recommenders import is_callable_ref

        if is_callable_ref(spec) and not Path(spec).exists():
            return name, {"callable": spec}
        return name, {"lists": spec}
    kind, _, params = text.partition(":")
    out: dict[str, Any] = {"type": kind.strip()}
    for part in filter(None, (p.strip() for p in params.split(","))):
        if "=" not in part:
            raise ParameterError(f"cannot read the recommender parameter {part!r} in {text!r}: expected name=value")
        key, _, value = part.partition("=")
        values = [_number(v) for v in value.split("|")]  # a|b|c: a grid, tuned on --validation-fraction
        out[key.strip()] = values if len(values) > 1 else values[0]
    return kind.strip(), out


def _number(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value.strip()


def run(config: str | None, overrides: dict[str, Any], recommender: tuple[str, ...], out: str | None,
        fmt: str, progress: bool, report: bool, default_out: str = "experiment-output",
        interactions_default: Any = None, verbose: bool = False, group_means: bool = True) -> Any:
    """Shared by run-experiment and demo: build the arguments, run, print, write the report.

    The table comes first and fits a screen; the checks of the recommenders' output, the notes and the
    per-group gap and test tables follow with ``verbose`` (else one line counts them; they are all in the
    report); the per-group means table is printed unless ``group_means`` is False (the demo's).
    With ``--format json`` the checks and notes go to stderr as before.
    """
    import sys

    from ..recsys.experiment import config_to_arguments, experiment, read_config
    from ._output import note, write_json

    if config is not None:
        interactions, kwargs, cfg_out = config_to_arguments(read_config(config))
    else:
        interactions, kwargs, cfg_out = interactions_default, {}, None
    for key, value in overrides.items():
        if value is None:
            continue
        if key == "interactions":
            interactions = value
        elif key == "split_params":
            kwargs.setdefault("split_params", {}).update(value)
        else:
            kwargs[key] = value
    if recommender:
        recs: dict[str, Any] = {}
        for text in recommender:
            name, spec = _parse_recommender(text)
            recs[name if name not in recs else f"{name}_{len(recs) + 1}"] = spec
        kwargs["recommenders"] = recs
    if interactions is None:
        raise ParameterError("no interactions: give --interactions FILE or [data] interactions = ... in the config "
                             "(or run `rankmeter demo` for generated data)")
    if out is not None and not out.strip():  # never silently the default folder
        raise ParameterError(f"The --out option must name a folder. Got {out!r} instead.")
    target = out or cfg_out or default_out
    if report:
        from ..recsys.output import check_output_folder

        check_output_folder(target, "--out" if out or not cfg_out else f"[output] dir of {config}")
    res = experiment(interactions, progress=progress and sys.stderr.isatty(), **kwargs)
    checks = [f"{name}: {line}" for name, v in res.validation.items() for line in v.problems()]
    lines = checks + list(res.notes)
    from ..recsys.repeated import RepeatedResult

    repeated = isinstance(res, RepeatedResult)
    if isinstance(res, RepeatedResult):  # a repeated protocol: each split's checks and notes, labelled
        lines += [f"{label}: {name}: {line}" for label, f in zip(res.labels, res.folds, strict=True)
                  for name, v in f.validation.items() for line in v.problems()]
        lines += [f"{label}: {line}" for label, f in zip(res.labels, res.folds, strict=True) for line in f.notes]
    if fmt == "json" or verbose:
        for line in lines:
            note(line)
    if res.sampled:
        note(res.mode)
    if fmt == "json":
        write_json(res.to_dict())
    else:
        from ..report.terminal import print_grid

        print_grid(res.grid())
        tuned = list(res.tuning.items()) if repeated else [("", res.tuning)]
        for label, per in tuned:
            for name, t in per.items():
                note(f"{label + ': ' if label else ''}{name} tuned on the validation part by {t['metric']}: "
                     f"{t['params']}")
        if res.groups and (verbose or group_means):
            from ._groups import notes_of, tables, write
            from ._output import write_table

            if verbose:
                for line in notes_of(res.groups):
                    note(f"groups: {line}")
                write(res.groups, "table")
            else:
                t = tables(res.groups)[0]
                write_table(t.title, t.keys, t.rows, t.columns, caption=t.caption)
        n_notes = len(lines) - len(checks)
        hidden = [f"{len(checks)} check{'s' if len(checks) > 1 else ''}" if checks else "",
                  f"{n_notes} note{'s' if n_notes > 1 else ''}" if n_notes else "",
                  ("the per-group gap and test tables" if group_means else "the per-group tables")
                  if res.groups else ""]
        if not verbose and any(hidden):
            note(", ".join(h for h in hidden if h) + " not shown: --verbose" + (", or the report" if report else ""))
    if report:
        paths = res.save(target)
        note(f"report written to {paths['report']} (also {paths['json'].name}, {paths['csv'].name}); "
             f"total {res.total_seconds:.1f}s")
    return res


def _group_by(value: str | None) -> str | None:
    """``--group-by``: 'activity', or a file that must exist (checked before any work)."""
    if value is None or value == "activity":
        return value
    if not Path(value).is_file():
        raise ParameterError(f"--group-by must be 'activity' or an existing two-column file (user, group). Got "
                             f"{value!r}, which is not a file.")
    from ..compare.groups import read_groups

    read_groups(value, option="--group-by")
    return value


@click.command(
    cls=Command,
    name="run-experiment",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter run-experiment experiment.toml\n\n"
        "  rankmeter run-experiment -i u.data --split temporal --test-fraction 0.2 -k 10 --out results/\n\n"
        "  rankmeter run-experiment -i u.data -r popular -r itemknn:neighbors=20 -r mine=my_lists.tsv\n\n"
        "  rankmeter run-experiment -i ratings.csv -r mine=mypkg.recs:top_k --relevance 4 --sampled 100\n\n"
        "  rankmeter run-experiment experiment.toml --format json --no-report > results.json\n\n"
        "  rankmeter run-experiment -i u.data --categories genres.tsv --group-by activity\n\n"
        "A config can run code (callable = ..., .py recommenders) and name any path: run only configs you trust."
    ),
)
@click.argument("config", required=False, type=click.Path(dir_okay=False, exists=True))
@click.option("--interactions", "-i", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Interaction file (CSV/TSV with header, Parquet, MovieLens u.data or ratings.dat).")
@click.option("--split", "split", default=None,
              type=click.Choice(["auto", "temporal", "temporal_global", "holdout", "leave_k_out", "leave_one_out",
                                 "strong", "kfold"]),
              help="Split protocol [default: temporal, per user]; kfold: k-fold cross-validation (--folds).")
@click.option("--folds", type=click.IntRange(min=2), default=None, help="With --split kfold: the number of folds "
              "[default: 5].")
@click.option("--unit", type=click.Choice(["interactions", "users"]), default=None,
              help="With --split kfold: deal interactions [default] or users into folds (users: strong "
                   "generalisation, a fold-in share of each test user's interactions goes to training).")
@click.option("--repeats", type=click.IntRange(min=1), default=None,
              help="Repeat a random protocol (kfold, holdout, leave_k_out, strong) with seeds seed..seed+N-1; "
                   "the table shows mean ± sd over the splits.")
@click.option("--validation-fraction", type=float, default=None,
              help="Carve this share of the training rows as a validation part: a recommender given as a grid "
                   "(-r itemknn:neighbors=10|50|200) is tuned on it, refitted on train + validation.")
@click.option("--tune-metric", default=None, help="The metric grids are tuned by [default: the first per-user "
              "metric].")
@click.option("--test-fraction", type=float, default=None, help="Share of each user's interactions held out.")
@click.option("--recommender", "-r", multiple=True,
              help="Repeatable: random, popular, itemknn[:neighbors=50], NAME=FILE (top-k lists) or "
                   "NAME=module:function. Default: random, popular, itemknn.")
@click.option("--metric", "-m", "metrics", multiple=True,
              help="Metric, repeatable (default: accuracy + beyond-accuracy).")
@click.option("-k", "k", type=click.IntRange(min=1), default=None, help="List length / cut-off [default: 10].")
@click.option("--relevance", type=float, default=None, help="Test ratings >= this are relevant (default: all).")
@click.option("--min-user-interactions", type=click.IntRange(min=1), default=None)
@click.option("--min-item-interactions", type=click.IntRange(min=1), default=None)
@click.option("--features", "item_features", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Item features (item column + numeric columns) for ild (cosine).")
@click.option("--categories", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Item categories (item column + genres column, labels joined by '|') for ild (jaccard).")
@click.option("--catalog", type=click.Choice(["train", "all"]), default=None,
              help="Recommendable items: training items [default] or every item.")
@click.option("--sampled", type=click.IntRange(min=1), default=None,
              help="Sampled evaluation: rank test items among N sampled negatives (inflates scores).")
@click.option("--sample-seed", type=int, default=None)
@click.option("--sampled-strategy", type=click.Choice(["uniform", "popularity"]), default=None,
              help="With --sampled: negatives drawn uniformly [default] or in proportion to training popularity "
                   "(RecBole's popN).")
@click.option("--sampled-per", type=click.Choice(["user", "positive"]), default=None,
              help="With --sampled: N negatives per user [default] or per held-out item.")
@click.option("--sampled-correction", type=click.Choice(["none", "bv", "bias", "mle"]), default=None,
              help="With --sampled: estimate the full-ranking recall@k / ndcg@k / precision@k from the sampled "
                   "ranks (mle: Jin et al. 2021; bv, bias: Krichene & Rendle 2020) [default: none].")
@click.option("--baseline", multiple=True, help="'best' reference recommender [default], or a recommender name; "
              "repeatable: several baselines, one correction over the whole family of tests.")
@click.option("--test", "test", default=None, help="Significance test: t, wilcoxon, randomization, bootstrap.")
@click.option("--n-resamples", type=click.IntRange(min=1), default=None)
@click.option("--seed", type=int, default=None, help="Seed of the split and of the tests.")
@click.option("--out", "-o", default=None,
              help="Output directory [default: experiment-output]; new, empty, or holding only rankmeter's own "
                   "earlier output.")
@click.option("--group-by", "group_by", default=None,
              help="Results per user group: 'activity' (the test users' activity terciles low/mid/high by their "
                   "number of distinct training items; ties at a border by user id) or a two-column file (user, "
                   "group; tab, comma or space separated, optional header). Adds per-group tables, JSON and a "
                   "report section; users without a group are counted.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--no-progress", is_flag=True, help="No progress bars.")
@click.option("--verbose", "-v", is_flag=True, help="Also print the checks, the notes and the per-group tables "
              "(else counted in one line; all are in the report).")
@click.option("--no-report", is_flag=True, help="Do not write report.html / results.json / means.csv.")
@click.option("--convention", type=click.Choice(list(_TOOLS)), default=None,
              help="Read the metric names without a tool: prefix as this tool computes them (docs/conventions.md).")
@click.option("--ties", type=click.Choice(["id", "average", "optimistic", "pessimistic", "bounds"]), default=None,
              help="How tied scores are ordered (as `rankmeter evaluate --ties`): id [default], average, "
                   "optimistic, pessimistic or bounds.")
def command(config: str | None, interactions: str | None, split: str | None, test_fraction: float | None,
            recommender: tuple[str, ...], metrics: tuple[str, ...], k: int | None, relevance: float | None,
            min_user_interactions: int | None, min_item_interactions: int | None, item_features: str | None,
            categories: str | None, catalog: str | None, sampled: int | None, sample_seed: int | None,
            sampled_correction: str | None, sampled_strategy: str | None, sampled_per: str | None,
            baseline: tuple[str, ...], test: str | None, n_resamples: int | None, seed: int | None, out: str | None,
            group_by: str | None, fmt: str, no_progress: bool, no_report: bool, ties: str | None = None,
            convention: str | None = None, folds: int | None = None, unit: str | None = None,
            repeats: int | None = None, validation_fraction: float | None = None, tune_metric: str | None = None,
            verbose: bool = False) -> None:
    """Run a recommender evaluation experiment from CONFIG (TOML) and/or options.

    Loads the interactions, splits them, fits the recommenders, evaluates accuracy and
    beyond-accuracy metrics, compares against the best reference recommender with
    paired tests, prints the table and writes an HTML report. Options override the
    config file. See docs/recsys.md for the config format.
    """
    split_params: dict[str, Any] = {}
    if test_fraction is not None and split in ("leave_k_out", "leave_one_out", "strong"):
        raise click.UsageError(f"--test-fraction does not apply to --split {split} (it holds out k interactions "
                               "per user)")
    if test_fraction is not None:
        split_params["test_fraction"] = test_fraction
    for key, value in (("folds", folds), ("unit", unit), ("repeats", repeats)):
        if value is not None:
            split_params[key] = value
    overrides = {
        "interactions": interactions, "split": split, "split_params": split_params or None,
        "metrics": list(metrics) or None, "k": k, "relevance": relevance,
        "min_user_interactions": min_user_interactions, "min_item_interactions": min_item_interactions,
        "item_features": item_features, "categories": categories, "catalog": catalog, "sampled": sampled,
        "sample_seed": sample_seed, "sampled_correction": sampled_correction,
        "sampled_strategy": sampled_strategy, "sampled_per": sampled_per, "test": test,
        "validation_fraction": validation_fraction, "tune_metric": tune_metric,
        "baseline": (baseline[0] if len(baseline) == 1 else list(baseline)) if baseline else None,
        "n_resamples": n_resamples, "seed": seed, "groups": _group_by(group_by), "ties": ties,
        "convention": convention,
    }
    run(config, overrides, recommender, out, fmt, not no_progress, not no_report, verbose=verbose)
