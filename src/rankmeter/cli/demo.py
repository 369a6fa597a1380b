"""``rankmeter demo``: generate a realistic data set (or read yours) and run the main experiment on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

_CONFIG = """# The experiment `rankmeter demo` ran; rerun it with:
#   rankmeter run-experiment {config}
[data]
interactions = "data/interactions.tsv"     # u.data layout: user, item, rating, timestamp
item_features = "data/item_features.tsv"   # for ild (cosine)
categories = "data/item_genres.tsv"        # for ild(distance=jaccard) and calibration (miscalibration)

[split]
method = "temporal"        # each user's latest interactions are the test set
test_fraction = 0.2

[recommenders]
random = {{ seed = {seed} }}
popular = {{}}
itemknn = {{ neighbors = 50 }}

[evaluation]
k = {k}
baseline = "best"          # compare against the best reference recommender
test = "t"
correction = "holm"
seed = {seed}
groups = "activity"        # results per user group: activity terciles (low, mid, high)

[output]
dir = "."
"""


@click.command(
    name="demo",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter demo                                  (generated data, report in demo-output/)\n\n"
        "  rankmeter demo --users 500 --items 800 --seed 3 --out small-demo/\n\n"
        "  rankmeter demo -i ml-100k/u.data -k 20           (your MovieLens file instead)\n\n"
        "  rankmeter demo -i ml-100k/u.data --categories ml-100k/u.item   (with its genres: calibration)\n\n"
        "  rankmeter demo --sampled 100                     (sampled evaluation, labelled as inflating scores)\n\n"
        "Then rerun or edit the experiment: rankmeter run-experiment demo-output/experiment.toml"
    ),
)
@click.option("--interactions", "-i", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Run on this file instead of generated data (e.g. MovieLens u.data: user, item, rating, "
                   "timestamp, tab-separated).")
@click.option("--categories", type=click.Path(dir_okay=False, exists=True), default=None,
              help="With --interactions: item genres for ild (jaccard) and calibration, e.g. MovieLens' u.item "
                   "(19 genre flags) or an item column + a genres column 'a|b|c'.")
@click.option("--out", "-o", default="demo-output", show_default=True, help="Output directory.")
@click.option("--users", type=click.IntRange(min=2), default=1000, show_default=True,
              help="Users of the generated data set.")
@click.option("--items", type=click.IntRange(min=2), default=2000, show_default=True,
              help="Items of the generated data set.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the generated data, the random recommender and the tests.")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True, help="List length / cut-off.")
@click.option("--sampled", type=click.IntRange(min=1), default=None,
              help="Sampled evaluation with N negatives per user (inflates scores; labelled).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
@click.option("--verbose", "-v", is_flag=True, help="Also print the notes and the per-group tables (they are in "
              "the report).")
def command(interactions: str | None, categories: str | None, out: str, users: int, items: int, seed: int, k: int,
            sampled: int | None, no_progress: bool, verbose: bool = False) -> None:
    """Run the recommender evaluation loop end to end and write an HTML report.

    With no data: generates a realistic implicit-feedback data set (power-law item
    popularity, users with latent tastes, genres, timestamps, ratings 1-5) with
    --users x --items, deterministically from --seed, writes it under OUT/data/ with the
    config that reruns the experiment (OUT/experiment.toml). Then: per-user temporal
    split, random / most-popular / item-kNN recommenders, accuracy, beyond-accuracy,
    popularity-bias and calibration metrics, paired tests against the best baseline,
    results per user activity tercile, OUT/report.html.
    """
    from .._errors import ParameterError
    from .._files import write_text
    from ..recsys.output import begin_files, check_output_folder, record_files
    from ._output import note
    from .experiment import run

    if categories is not None and interactions is None:
        raise ParameterError("--categories goes with --interactions (the generated data has its own genres)")

    if not out.strip():  # Path("") is the current folder: never silently
        raise ParameterError(f"The --out option must name a folder. Got {out!r} instead.")
    out_dir = check_output_folder(Path(out), "--out")
    overrides: dict[str, Any] = {"k": k, "sampled": sampled, "seed": seed, "groups": "activity",
                 "recommenders": {"random": {"seed": seed}, "popular": {}, "itemknn": {"neighbors": 50}}}
    if interactions is None:
        from ..recsys.datasets import synthetic

        data = synthetic(n_users=users, n_items=items, seed=seed)
        config = out_dir / "experiment.toml"
        names = ["data/interactions.tsv", "data/item_features.tsv", "data/item_genres.tsv", config.name]
        out_dir.mkdir(parents=True, exist_ok=True)
        begin_files(out_dir, names)  # listed as pending, then as complete: an interrupted demo is recognised
        paths = data.write(out_dir / "data")
        write_text(config, _CONFIG.format(config=config, seed=seed, k=k))
        record_files(out_dir, [p.relative_to(out_dir).as_posix() for p in paths.values()] + [config.name])
        note(f"generated {len(data)} interactions of {data.n_users} users x {data.n_items} items "
             f"(seed {seed}) in {paths['interactions']}; rerun with: rankmeter run-experiment {config}")
        overrides.update(split="temporal", item_features=data.item_features, categories=data.categories)
        source: Any = data
    else:
        overrides.update(split="auto", categories=categories)
        source = interactions
    run(None, overrides, (), str(out_dir), "table", not no_progress, True, interactions_default=source,
        verbose=verbose, group_means=False)
