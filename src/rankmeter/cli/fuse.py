"""``rankmeter fuse RUN... -m rrf``: fuse runs into one TREC run (rank fusion, normalisation, tuned weights)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ._options import COLUMN_OPTIONS, column_options

PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "method": "-m/--method", "weights": "-w/--weights", "k": "-k",
                     "depth": "--depth", "norm": "--norm", "folds": "--folds",
                     "n_trials": "--trials", "step": "--step", "seed": "--seed", "search": "--search",
                     "metric": "--metric", "chunk_rows": "--chunk-rows", "threads": "--threads"}


@click.command(
    name="fuse",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter fuse bm25.run dense.run -m rrf -o hybrid.run\n\n"
        "  rankmeter fuse bm25=bm25.run dense=dense.run -m wsum -w bm25=0.3,dense=0.7 --norm min-max\n\n"
        "  rankmeter fuse a.run b.run c.run -m 'mnz(count=nonzero)' --depth 1000\n\n"
        "  rankmeter fuse bm25.run dense.run -m wsum --optimize qrels.txt --metric ndcg@10 --folds 5 "
        "--save-params wsum.json -o tuned.run\n\n"
        "  rankmeter fuse bm25.run dense.run -m probfuse --params probfuse.json"
    ),
)
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--method", default="rrf", show_default=True,
              help="Fusion method, as ranx spells it (rrf, sum, mnz, anz, max, min, med, gmnz, isr, log_isr, "
                   "logn_isr, wsum, wmnz, mixed, rbc, bordafuse, w_bordafuse, condorcet, w_condorcet, probfuse, "
                   "segfuse, slidefuse, posfuse, bayesfuse, mapfuse) or an alias (comb_sum, combmnz...), with "
                   "parameters in parentheses: 'mnz(count=nonzero)', 'gmnz(gamma=0.5)'.")
@click.option("--norm", default="min-max", show_default=True,
              help="Score normalisation per run and query: min-max, min-max-inverted, max, sum, zmuv, rank, borda, "
                   "none.")
@click.option("-k", "k", type=float, default=None, help="RRF's constant (default 60).")
@click.option("-w", "--weights", default=None,
              help="Weights of the weighted methods: one per run in order (0.3,0.7) or by name (bm25=0.3,dense=0.7).")
@click.option("-p", "--param", "param_texts", multiple=True, help="A method parameter, NAME=VALUE (repeatable).")
@click.option("--params", "params_file", type=click.Path(dir_okay=False),
              help="A JSON file of parameters (as --save-params writes them: trained probabilities, weights...).")
@click.option("--depth", type=int, default=None, help="Keep the first N documents of each query (default: all).")
@click.option("--tag", default=None, help="The run tag written in the last column (default: the method).")
@click.option("-o", "--output", default=None, help="Write the fused run to this file (default: stdout).")
@click.option("--optimize", "qrels", default=None,
              help="Tune weights and parameters (or train a supervised method) on these judgments, with k-fold "
                   "cross-validation over queries; the report goes to stderr.")
@click.option("--metric", default="ndcg@10", show_default=True, help="What --optimize maximises.")
@click.option("--folds", type=int, default=5, show_default=True, help="Cross-validation folds of --optimize.")
@click.option("--search", type=click.Choice(["grid", "random"]), default="grid", show_default=True,
              help="Grid or seeded random search.")
@click.option("--trials", "n_trials", type=int, default=50, show_default=True, help="Draws of --search random.")
@click.option("--step", type=float, default=0.1, show_default=True, help="Step of the weight grid.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds and the random search.")
@click.option("--save-params", default=None, help="Write the parameters --optimize chose to this JSON file.")
@click.option("--chunk-rows", type=int, default=None,
              help="Fuse files larger than memory chunk by chunk, about N rows at a time (each file grouped by "
                   "query, the files in one query order); the same numbers as without.")
@click.option("--threads", type=int, default=None, help="Threads fusing chunks (with --chunk-rows; default 2).")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank each input by score (ties: item id descending) or by its rank column.")
@click.option("--duplicates", type=click.Choice(["error", "max", "first", "last"]), default="error",
              show_default=True, help="What to do with a repeated (query, item) row.")
@column_options("query", "item", "score", "rank")
def command(runs: tuple[str, ...], method: str, norm: str, k: float | None, weights: str | None,
            param_texts: tuple[str, ...], params_file: str | None, depth: int | None, tag: str | None,
            output: str | None, qrels: str | None, metric: str, folds: int, search: str, n_trials: int, step: float,
            seed: int, save_params: str | None, chunk_rows: int | None, threads: int | None, order: str,
            duplicates: str, query_column: str | None,
            item_column: str | None, score_column: str | None, rank_column: str | None) -> None:
    """Fuse RUNS (PATH, NAME=PATH or a folder of runs) into one run, written as TREC run lines.

    Queries are the union of the runs' queries; ties in fused score are ordered by item id
    descending (trec_eval's rule), so the output does not depend on the inputs' order. What
    was assumed or missing (a run without some query, weights not given) is said on stderr.
    """
    from .._errors import ParameterError
    from ..fusion import fuse, fuse_optimize
    from ..fusion.spec import parse_spec
    from ..fusion.write import write_trec
    from ..io import read_run
    from ._options import check_output_path, named_runs
    from ._output import note

    notes: list[str] = []
    named = named_runs(runs, notes)
    for line in notes:
        note(line)
    for path in (output, save_params):
        if path is not None:
            check_output_path(path, "--output" if path is output else "--save-params")
    w = _weights(weights) if weights is not None else None
    norm_arg = None if norm.lower() == "none" else norm
    if chunk_rows is not None:
        if qrels is not None:
            raise ParameterError("--chunk-rows fuses with given parameters: train with --optimize first (in memory) "
                                 "and pass --params FILE")
        from ..fusion.stream import fuse_files

        params_given = dict(_read_params(params_file)) if params_file is not None else {}
        for text in param_texts:
            key, eq, value = text.partition("=")
            if not eq or not key.strip():
                raise ParameterError(f"-p/--param is NAME=VALUE. Got {text!r} instead.")
            params_given[key.strip()] = value.strip()
        summary = fuse_files(dict(named), method, output=output if output is not None else sys.stdout,
                             norm=norm_arg, weights=w, k=k, params=params_given or None, depth=depth, tag=tag,
                             chunk_rows=chunk_rows, threads=threads, order=order)
        for line in summary.notes:
            note(line)
        return
    loaded = {name: read_run(path, order=order, duplicates=duplicates, query=query_column, item=item_column,
                             score=score_column, rank=rank_column) for name, path in named}
    params: dict[str, Any] = {}
    if params_file is not None:
        params.update(_read_params(params_file))
    for text in param_texts:
        key, eq, value = text.partition("=")
        if not eq or not key.strip():
            raise ParameterError(f"-p/--param is NAME=VALUE. Got {text!r} instead.")
        params[key.strip()] = value.strip()
    if qrels is not None:
        if w is not None or k is not None:
            raise ParameterError("--optimize chooses the weights and k: leave -w/--weights and -k out (a fixed "
                                 "parameter goes in -p NAME=VALUE)")
        if save_params is None and output is None:
            note("--optimize without --save-params: the chosen parameters are only in this report")
        res = fuse_optimize(qrels, loaded, method, metric, norm=norm_arg, search=search, step=step, n_trials=n_trials,
                            folds=folds, seed=seed, params=params or None, depth=depth)
        for f in res.folds:
            note(f"fold {f.fold + 1}: {len(f.queries)} held-out queries, {metric} {f.train_score:.4f} on the others "
                 f"(tuned), {f.heldout_score:.4f} held out")
        note(f"{metric}: {res.heldout:.4f} held out ({folds}-fold cross-validation), {res.score:.4f} tuned on all "
             f"queries (optimistic); chosen: {_shown(res.params)}")
        params = dict(res.params)
        if save_params is not None:
            with open(save_params, "w", encoding="utf-8") as fh:
                json.dump({"method": method, "norm": norm_arg, "params": params}, fh, indent=1)
        fused = fuse(loaded, res.method, norm=norm_arg, params=params, depth=depth)
    else:
        fused = fuse(loaded, method, norm=norm_arg, weights=w, k=k, params=params or None, depth=depth)
    for line in fused.notes:
        note(line)
    run_tag = tag or parse_spec(method)[0]
    if output is None:
        write_trec(fused, sys.stdout, tag=run_tag)
    else:
        with open(output, "w", encoding="utf-8") as fh:
            write_trec(fused, fh, tag=run_tag)


def _weights(text: str) -> Any:
    from .._errors import ParameterError

    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        if parts and all("=" in p for p in parts):
            return {p.split("=", 1)[0].strip(): float(p.split("=", 1)[1]) for p in parts}
        return [float(p) for p in parts]
    except ValueError:
        raise ParameterError(f"-w/--weights is numbers (0.3,0.7) or NAME=NUMBER pairs. Got {text!r} instead.") \
            from None


def _read_params(path: str) -> dict[str, Any]:
    from .._errors import InputError
    from ..io.source import read_text_file

    text = read_text_file(path)  # compressed copies read; UTF-16, binary data and /dev/zero refused by name
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"cannot read the parameters: {exc}", source=path) from None
    except RecursionError:
        raise InputError("cannot read the parameters: arrays or objects nested too deeply", source=path) from None
    if isinstance(data, dict) and isinstance(data.get("params"), dict):
        data = data["params"]
    if not isinstance(data, dict):
        raise InputError("a parameters file holds a JSON object {name: value} (or {\"params\": {...}})",
                         source=path)
    return dict(data)


def _shown(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={'<trained, ' + str(len(v)) + ' runs>' if k in ('probs', 'log_odds') else v}"
                     for k, v in params.items()) or "nothing to choose"
