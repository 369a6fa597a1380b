"""``rankmeter evaluate-ratings TRUTH [PREDICTIONS] -m METRIC ...``"""

from __future__ import annotations

import click

from ._options import Command

# library keywords -> this command's options, for messages (see _options.cli_spelling)
PARAMETER_OPTIONS = {"user": "--user-column", "item": "--item-column", "rating": "--rating-column",
                     "prediction": "--prediction-column", "metrics": "-m/--metric"}


@click.command(cls=Command, name="evaluate-ratings", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("truth", type=click.Path(dir_okay=True))
@click.argument("predictions", type=click.Path(dir_okay=True), required=False)
@click.option("-m", "--metric", "metrics", multiple=True,
              help="Metric, repeatable (default: mae and rmse): mae, mse, rmse, nmae, nrmse, cost, spearman, "
                   "kendall, kendall_distance, roc_auc; 'mae(per=user)' averages per user, 'rmse(per=item)' per "
                   "item, plain mae is over all pairs. `rankmeter metrics` lists them.")
@click.option("--scale", default=None, metavar="MIN:MAX",
              help="The rating scale, e.g. 1:5: true ratings outside it are an error; nmae/nrmse divide by "
                   "MAX - MIN. Without it they use the range of the true ratings.")
@click.option("--missing", default="fail", show_default=True, metavar="fail|skip|fill=VALUE",
              help="Test pairs without a prediction: fail, skip them (counted), or fill them with VALUE (counted).")
@click.option("--cost", "cost", default=None, metavar="SPEC",
              help="Cost matrix of the cost metric, d(predicted, true): inline 'P,T=C;...' "
                   "(e.g. '3,1=5;2,1=3;3,2=3;1,2=1;2,3=1;1,3=2'), or a JSON or CSV (predicted,true,cost) file.")
@click.option("--clip", is_flag=True, help="Clip predictions outside --scale to it (they are counted either way).")
@click.option("--duplicates", type=click.Choice(["error", "first", "last"]), default="error", show_default=True,
              help="What to do with a repeated (user, item) row.")
@click.option("--per-query", "-q", is_flag=True, help="Also print each user's values.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="Output format.")
@click.option("--user-column", default=None, help="Name of the user column (default: detected).")
@click.option("--item-column", default=None, help="Name of the item column (default: detected).")
@click.option("--rating-column", default=None, help="Name of the true rating column (default: detected).")
@click.option("--prediction-column", default=None, help="Name of the prediction column (default: detected).")
def command(truth: str, predictions: str | None, metrics: tuple[str, ...], scale: str | None, missing: str,
            cost: str | None, clip: bool, duplicates: str, per_query: bool, fmt: str, user_column: str | None,
            item_column: str | None, rating_column: str | None, prediction_column: str | None) -> None:
    """Evaluate predicted ratings against true ratings, joined on (user, item).

    TRUTH holds user, item and rating; PREDICTIONS holds user, item and the
    prediction. Without PREDICTIONS, TRUTH holds both the rating and the
    prediction. Files may be CSV/TSV with a header, Parquet, or MovieLens-style
    headerless 'user item rating timestamp' (tab) and 'user::item::rating::ts'
    files; columns are detected or named with the --*-column options.
    """
    from ..ratings.evaluate import evaluate_ratings
    from ._output import note, undefined_means, write_csv, write_json, write_table

    result = evaluate_ratings(
        truth, predictions, list(metrics) or ["mae", "rmse"], scale=scale, missing=missing, cost=cost, clip=clip,
        duplicates=duplicates, user=user_column, item=item_column, rating=rating_column,
        prediction=prediction_column,
    )
    for line in result.notes:
        note(line)
    if result.scale is not None and result.scale.source == "data" and any(
            "uses_scale" in m.spec.properties for m in result.metrics):
        note(f"no --scale given: r_max - r_min is the range of the true ratings, "
             f"{result.scale.min:g}:{result.scale.max:g}")
    names = list(result.mean)
    means = result.mean
    undefined = undefined_means(means, unit="user", fmt=fmt)
    for line in undefined:
        note(line)
    if fmt == "json":
        payload = result.to_dict(per_query=per_query)
        if undefined:
            payload["notes"] = list(payload.get("notes", [])) + undefined
        write_json(payload)
        return
    per_rows = []
    if per_query:
        cols = [result.values[m] for m in names]
        per_rows = [([uid], [float(c[i]) for c in cols]) for i, uid in enumerate(result.queries)]
    if fmt == "csv":
        if per_query:
            write_csv(["user"], per_rows + [(["all"], [means[m] for m in names])], names)
        else:
            write_csv(["metric"], [([m], [means[m]]) for m in names], ["mean"])
        return
    cov = result.coverage
    pairs = getattr(cov, "pairs", None)
    caption = (f"{result.n_queries} user{'s' if result.n_queries != 1 else ''}, "
               + (f"{pairs} pair{'s' if pairs != 1 else ''}" if pairs is not None else "? pairs"))
    if per_query:
        write_table("per user", ["user"], per_rows, names)
    write_table("rankmeter evaluate-ratings", ["metric"], [([m], [means[m]]) for m in names], ["value"],
                caption=caption)
