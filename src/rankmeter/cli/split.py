"""``rankmeter split``: split an interaction file into train and test files.

Writes ``OUT/train.parquet`` and ``OUT/test.parquet`` (k-fold: ``OUT/fold-1/train.parquet``
...), every input column kept, rows in input order, and ``OUT/summary.json`` with the
counts; prints a short summary on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .._files import write_text

METHODS = ("holdout", "temporal", "leave-k-out", "kfold", "strong")

# options that only make sense for some methods (None: the option was not given)
_APPLIES = {
    "test_fraction": ("holdout", "temporal"),
    "per_user": ("holdout", "temporal", "kfold"),
    "k": ("temporal", "leave-k-out"),
    "folds": ("kfold",),
    "by": ("leave-k-out",),
    "seed": ("holdout", "leave-k-out", "kfold", "strong"),
    "cutoff": ("temporal", "strong"),
    "test_span": ("temporal",),
    "time_unit": ("temporal", "strong"),
    "unit": ("kfold",),
    "test_users": ("strong",),
    "validation_users": ("strong",),
    "heldout": ("strong",),
    "heldout_fraction": ("strong",),
    "heldout_n": ("strong",),
    "validation_fraction": ("holdout", "temporal", "leave-k-out", "kfold"),
}


@click.command(
    name="split",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter split u.data --method holdout --per-user --test-fraction 0.2 --out out/\n\n"
        "  rankmeter split ratings.parquet --method temporal --cutoff 2024-06-01 --out out/\n\n"
        "  rankmeter split u.data --method leave-k-out --k 1 --by time --out out/\n\n"
        "  rankmeter split u.data --method kfold --folds 5 --per-user --seed 7 --out out/\n\n"
        "  rankmeter split u.data --method strong --test-users 0.2 --validation-users 0.1 --heldout fraction "
        "--heldout-fraction 0.2 --out out/\n\n"
        "  rankmeter split u.data --method holdout --seed 1 --out out/ --overwrite   (replace the earlier split)"
    ),
)
@click.argument("interactions", metavar="INTERACTIONS")
@click.option("--method", type=click.Choice(METHODS), required=True, help="Splitting protocol.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--test-fraction", type=float, default=None,
              help="Test fraction in (0, 1) (holdout default 0.2; temporal: latest fraction).")
@click.option("--per-user", is_flag=True, default=None,
              help="Within each user (holdout, temporal) / user-stratified folds (kfold).")
@click.option("--k", "k", type=int, default=None,
              help="Test interactions per user (leave-k-out default 1; temporal --per-user: latest k).")
@click.option("--folds", type=int, default=None, help="Number of folds (kfold, default 5).")
@click.option("--by", type=click.Choice(["time", "random"]), default=None,
              help="leave-k-out: latest (default) or random.")
@click.option("--seed", type=int, default=None, help="Random seed (default 0).")
@click.option("--cutoff", default=None, help="temporal: test = timestamp >= CUTOFF (number or ISO date/time).")
@click.option("--test-span", type=float, default=None, help="temporal: test the last fraction of the time span.")
@click.option("--time-unit", type=click.Choice(["s", "ms", "us", "ns"]), default=None,
              help="What numeric timestamps count, for a date --cutoff.")
@click.option("--unit", type=click.Choice(["interactions", "users"]), default=None,
              help="kfold: deal interactions (default) or users into folds.")
@click.option("--validation-fraction", type=float, default=None,
              help="Also carve this share of the training rows into validation.{parquet,csv}, by the method's own "
                   "rule (latest for temporal / leave-k-out by time, else random).")
@click.option("--test-users", type=float, default=None, help="strong: share of users tested (default 0.2).")
@click.option("--validation-users", type=float, default=None, help="strong: share of validation users (default 0).")
@click.option("--heldout", type=click.Choice(["fraction", "last", "time"]), default=None,
              help="strong: how each evaluated user's history is held out (default fraction; time uses --cutoff).")
@click.option("--heldout-fraction", type=float, default=None,
              help="strong --heldout fraction: share held out (default 0.2).")
@click.option("--heldout-n", type=int, default=None, help="strong --heldout last: latest rows held out (default 1).")
@click.option("--min-user-interactions", type=int, default=1, show_default=True,
              help="Filter users with fewer rows first.")
@click.option("--min-item-interactions", type=int, default=1, show_default=True,
              help="Filter items with fewer rows first.")
@click.option("--iterate-filters", is_flag=True, help="Repeat the filters until they hold (k-core).")
@click.option("--small-users", type=click.Choice(["train", "drop", "error"]), default="train", show_default=True,
              help="Users too small for the protocol: keep in train, drop, or fail.")
@click.option("--drop-cold-users", is_flag=True, help="Remove test rows whose user has no train row.")
@click.option("--drop-cold-items", is_flag=True, help="Remove test rows whose item has no train row.")
@click.option("--user", "user_col", default=None, help="User column (detected by default).")
@click.option("--item", "item_col", default=None, help="Item column (detected by default).")
@click.option("--rating", "rating_col", default=None, help="Rating column (checked to be numeric; kept either way).")
@click.option("--timestamp", "timestamp_col", default=None, help="Timestamp column (detected by default).")
@click.option("--sep", default=None, help="Field separator of a text file (default: guessed; '::' for ml-1m).")
@click.option("--header/--no-header", default=None, help="Whether a text file has a header line (default: guessed).")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet", show_default=True,
              help="Output file format.")
@click.option("--overwrite", is_flag=True,
              help="Replace the split rankmeter wrote in --out before (the files its summary.json lists); "
                   "other files there are left alone.")
def command(interactions: str, method: str, out_dir: str, fmt: str, overwrite: bool, **options: Any) -> None:
    """Split INTERACTIONS into train and test files (hold-out, temporal, leave-k-out, k-fold).

    INTERACTIONS is a CSV/TSV file with a header, a Parquet file, a MovieLens u.data
    (user item rating timestamp, tab-separated) or ratings.dat ('::') file.
    """
    from ..split import read_input

    given = {name: options[name] for name in _APPLIES if options.get(name) is not None}
    for name in given:
        if method not in _APPLIES[name]:
            flag = "--" + name.replace("_", "-")
            raise click.UsageError(
                f"{flag} does not apply to --method {method} (it applies to "
                f"{', '.join(_APPLIES[name])})"
            )
    if not out_dir.strip():  # Path("") is the current folder: never silently
        raise click.UsageError(f"--out must name a folder. Got {out_dir!r} instead.")
    out = _prepare_out(Path(out_dir), overwrite, fmt, method, options.get("folds"))
    needs_time = method == "temporal" or (method == "leave-k-out" and (options["by"] or "time") == "time") or (
        method == "strong" and options["heldout"] in ("last", "time"))
    if options["by"] == "random" and method == "leave-k-out" and options["seed"] is None:
        options["seed"] = 0
    timestamp_col = options["timestamp_col"]
    data = read_input(
        interactions,
        user=options["user_col"],
        item=options["item_col"],
        rating=options["rating_col"] or False,
        timestamp=timestamp_col if (needs_time or timestamp_col) else False,
        sep=options["sep"],
        header=options["header"],
    )
    common = dict(
        min_user_interactions=options["min_user_interactions"],
        min_item_interactions=options["min_item_interactions"],
        iterate_filters=options["iterate_filters"],
        small_users=options["small_users"],
        drop_cold_users=options["drop_cold_users"],
        drop_cold_items=options["drop_cold_items"],
    )
    seed = options["seed"] if options["seed"] is not None else 0
    per_user = bool(options["per_user"])
    if method == "holdout":
        from ..split import holdout

        test_fraction = options["test_fraction"] if options["test_fraction"] is not None else 0.2
        result: Any = holdout(data, test_fraction=test_fraction, per_user=per_user, seed=seed,
                              validation_fraction=options["validation_fraction"], **common)
    elif method == "temporal":
        from ..split import temporal

        result = temporal(
            data,
            test_fraction=options["test_fraction"],
            cutoff=_parse_cutoff(options["cutoff"]),
            test_span=options["test_span"],
            per_user=per_user,
            k=options["k"],
            time_unit=options["time_unit"],
            validation_fraction=options["validation_fraction"],
            **common,
        )
    elif method == "leave-k-out":
        from ..split import leave_k_out

        if options["by"] != "random" and options["seed"] is not None:
            raise click.UsageError("--seed applies to --method leave-k-out only with --by random")
        result = leave_k_out(
            data, k=options["k"] if options["k"] is not None else 1, by=options["by"] or "time", seed=seed,
            validation_fraction=options["validation_fraction"], **common
        )
    elif method == "strong":
        from ..split import strong

        if options["drop_cold_users"] or options["drop_cold_items"]:
            raise click.UsageError("--drop-cold-users / --drop-cold-items do not apply to --method strong "
                                   "(its test users are cold by design; their fold-in rows are given)")
        result = strong(
            data,
            test_users=options["test_users"] if options["test_users"] is not None else 0.2,
            validation_users=options["validation_users"] or 0.0,
            heldout=options["heldout"] or "fraction",
            heldout_fraction=options["heldout_fraction"] if options["heldout_fraction"] is not None else 0.2,
            heldout_n=options["heldout_n"] if options["heldout_n"] is not None else 1,
            cutoff=_parse_cutoff(options["cutoff"]),
            time_unit=options["time_unit"],
            seed=seed,
            **{k: v for k, v in common.items() if not k.startswith("drop_cold")},
        )
    else:
        from ..split import kfold

        result = kfold(
            data,
            folds=options["folds"] if options["folds"] is not None else 5,
            unit=options["unit"] or "interactions",
            per_user=per_user,
            seed=seed,
            validation_fraction=options["validation_fraction"],
            **common,
        )
    _write_all(result, data, out, fmt, interactions)


def _prepare_out(out: Path, overwrite: bool, fmt: str, method: str, folds: int | None) -> Path:
    """Check --out before any work: writable, and empty unless --overwrite (which removes only
    the files of the split rankmeter wrote there before)."""
    from .._errors import InputError
    from ..split.output import check_writable_folder, folder_entries

    check_writable_folder(out, "--out")
    entries = folder_entries(out)
    if not entries:
        return out
    leftovers = _interrupted(out)
    if leftovers is not None:  # only what an interrupted split left (no complete split): replaced without --overwrite
        _remove(out, leftovers)
        click.echo(f"rankmeter split: removed the {len(leftovers)} files an interrupted split left in {out}",
                   err=True)
        entries = folder_entries(out)
        if not entries:
            return out
    if not overwrite:
        shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
        raise InputError(f"--out is not empty (it holds {shown}): choose an empty or new folder, or pass "
                         "--overwrite to replace the split rankmeter wrote there", source=str(out))
    own = _own(out)
    ext = "parquet" if fmt == "parquet" else "csv"
    if method == "kfold":
        planned = [out / f"fold-{i + 1}" / f"{part}.{ext}" for i in range(folds or 5)
                   for part in ("train", "test", "validation")]
    elif method == "strong":
        from ..split.strong import PARTS

        planned = [out / f"{part}.{ext}" for part in PARTS]
    else:
        planned = [out / f"train.{ext}", out / f"test.{ext}", out / f"validation.{ext}"]
    planned.append(out / "summary.json")
    own_set = {p.resolve() for p in own}
    clash = [p for p in planned if p.exists() and p.resolve() not in own_set]
    if clash:
        raise InputError(f"--overwrite: {clash[0]} exists and is not a file of the split rankmeter wrote there "
                         "(its summary.json does not list it); move it away or choose another folder", source=str(out))
    _remove(out, own)
    if own:
        click.echo(f"rankmeter split: --overwrite removed the {len(own)} files of the previous split in {out}",
                   err=True)
    left = folder_entries(out)
    if left:
        click.echo(f"rankmeter split: kept {len(left)} entries of {out} that rankmeter did not write: "
                   + ", ".join(left[:5]) + (", ..." if len(left) > 5 else ""), err=True)
    return out


def _own(out: Path) -> list[Path]:
    """The files rankmeter's earlier splits wrote in ``out``: listed by its summary.json or its manifest (complete
    or pending), the manifest itself, and temporary files an interrupted write left."""
    from .._files import is_temporary
    from ..recsys.output import MANIFEST, own_files
    from ..split.output import own_split_files

    found = {p.resolve(): p for p in own_split_files(out)}
    listed = [out / name for name in own_files(out)] + [out / MANIFEST]
    listed += [p for p in out.rglob("*") if is_temporary(p.name)]
    for p in listed:
        if p.is_file():
            found.setdefault(p.resolve(), p)
    return list(found.values())


def _interrupted(out: Path) -> list[Path] | None:
    """The files in ``out`` when all of them are what an interrupted split left (its manifest lists files still
    pending, and nothing else is there); else None."""
    from .._files import is_temporary
    from ..recsys.output import MANIFEST, complete_files, own_files

    own = own_files(out)
    if not (own - complete_files(out)) and not any(is_temporary(p.name) for p in out.rglob("*")):
        return None
    files = [p for p in out.rglob("*") if not p.is_dir()]
    for p in files:
        rel = p.relative_to(out).as_posix()
        if rel not in own and rel != MANIFEST and not is_temporary(p.name):
            return None
    return files


def _remove(out: Path, files: list[Path]) -> None:
    for p in files:
        try:
            p.unlink()
        except FileNotFoundError:
            pass
    for d in sorted({p.parent for p in files} - {out}, key=lambda d: -len(d.parts)):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()


def _parse_cutoff(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _write_all(result: Any, data: Any, out: Path, fmt: str, source: str) -> None:
    from ..recsys.output import begin_files
    from ..split import Folds, StrongSplit

    out.mkdir(parents=True, exist_ok=True)
    ext = "parquet" if fmt == "parquet" else "csv"
    # every file whole or not at all, listed in the folder's manifest as pending first, then as complete
    # strong generalization without validation users: no (empty) validation files, and the summary says so
    strong_parts = [part for part in result.masks if not (part.startswith("validation") and
                                                          result.summary.users["validation"] == 0)] \
        if isinstance(result, StrongSplit) else []
    if isinstance(result, StrongSplit):
        planned = [f"{part}.{ext}" for part in strong_parts]
    elif isinstance(result, Folds):
        planned = [f"fold-{i + 1}/{part}.{ext}" for i, fold in enumerate(result) for part in _parts(fold)]
    else:
        planned = [f"{part}.{ext}" for part in _parts(result)]
    begin_files(out, [*planned, "summary.json"])
    if isinstance(result, StrongSplit):
        summary = result.summary.to_dict()
        files = {}
        for part in strong_parts:
            mask = result.masks[part]
            path = out / f"{part}.{ext}"
            _write_rows(data.table, mask, path, ext)
            files[part] = str(path)
        summary["files"] = files
        u = result.summary.users
        lines = [_headline(summary, source)]
        lines += _common_lines(summary)
        lines.append(f"  users: {u['train']} train, {u['validation']} validation, {u['test']} test "
                     f"({u['small']} too small to evaluate)")
        for part, c in result.summary.parts.items():
            if part in files:
                lines.append(f"  {part}: {_counts(c)} -> {files[part]}")
        if len(strong_parts) < len(result.masks):
            lines.append("  validation: 0 users (--validation-users): no validation files written")
    elif isinstance(result, Folds):
        summary = result.summary.to_dict()
        for i, fold in enumerate(result):
            folder = out / f"fold-{i + 1}"
            folder.mkdir(exist_ok=True)
            files = _write_split(fold, data, folder, ext)
            summary["folds"][i]["files"] = files
        lines = [_headline(result.summary.to_dict(), source)]
        lines += _common_lines(summary)
        for i, fold in enumerate(result):
            s = fold.summary
            lines.append(
                f"  fold {i + 1}: train {_counts(s.train)}; test {_counts(s.test)}; "
                f"cold in test: {s.cold.users} users, {s.cold.items} items"
                + (f" ({s.cold.dropped_rows} rows dropped)" if s.cold.dropped_rows else "")
            )
    else:
        files = _write_split(result, data, out, ext)
        summary = result.summary.to_dict()
        summary["files"] = files
        s = result.summary
        lines = [_headline(summary, source)]
        lines += _common_lines(summary)
        lines.append(f"  train: {_counts(s.train)} -> {files['train']}")
        lines.append(f"  test:  {_counts(s.test)} -> {files['test']}")
        if s.validation is not None:
            lines.append(f"  validation: {_counts(s.validation)} -> {files['validation']}")
        lines.append(
            f"  cold in test: {s.cold.users} users ({s.cold.user_rows} rows), "
            f"{s.cold.items} items ({s.cold.item_rows} rows)"
            + (f"; {s.cold.dropped_rows} rows dropped" if s.cold.dropped_rows else "")
        )
    summary["source"] = source
    summary["format"] = fmt
    path = out / "summary.json"
    _done(path, lambda: write_text(path, json.dumps(summary, indent=2, default=str) + "\n"))
    lines.append(f"  summary: {path}")
    click.echo("\n".join(lines), err=True)


def _parts(split: Any) -> list[str]:
    return ["train", "test"] + (["validation"] if getattr(split, "validation_mask", None) is not None else [])


def _done(path: Path, write: Any) -> None:
    """``write()`` (whole or not at all), then ``path`` listed as complete in the manifest of the split's folder
    (the folder above a fold's)."""
    from ..recsys.output import MANIFEST, record_files

    write()
    top = path.parent if (path.parent / MANIFEST).exists() else path.parent.parent
    record_files(top, [path.relative_to(top).as_posix()])


def _write_split(split: Any, data: Any, folder: Path, ext: str) -> dict[str, str]:
    files = {}
    parts = [("train", split.train_mask), ("test", split.test_mask)]
    if getattr(split, "validation_mask", None) is not None:
        parts.append(("validation", split.validation_mask))
    for part, mask in parts:
        path = folder / f"{part}.{ext}"
        _write_rows(data.table, mask, path, ext)
        files[part] = str(path)
    return files


def _write_rows(table: Any, mask: Any, path: Path, ext: str) -> None:
    """Write the rows of ``table`` selected by ``mask``, batch by batch (bounded memory), whole or not at all
    (a temporary name, renamed when complete), then list the file as complete in the folder's manifest."""
    _done(path, lambda: _write_rows_to(table, mask, path, ext))


def _write_rows_to(table: Any, mask: Any, final: Path, ext: str) -> None:
    from .._files import atomic_path

    with atomic_path(final) as path:
        _write_batches(table, mask, path, ext)


def _write_batches(table: Any, mask: Any, path: Path, ext: str) -> None:
    import pyarrow as pa

    schema = table.schema
    if ext == "csv":
        schema = pa.schema(
            [pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema]
        )
    if ext == "parquet":
        import pyarrow.parquet as pq

        # dictionary pages pay off for repeated text ids; for numbers they cost twice the CPU
        texty = [
            f.name for f in schema
            if pa.types.is_dictionary(f.type) or pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
            or pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type)
        ]
        writer: Any = pq.ParquetWriter(str(path), schema, use_dictionary=texty or False)
    else:
        import pyarrow.csv as pacsv

        writer = pacsv.CSVWriter(str(path), schema)
    try:
        start = 0
        for batch in table.to_batches(max_chunksize=1 << 20):
            part = batch.filter(pa.array(mask[start : start + batch.num_rows]))
            start += batch.num_rows
            if part.num_rows:
                if ext == "csv" and part.schema != schema:
                    part = pa.RecordBatch.from_arrays(
                        [c.cast(f.type) for c, f in zip(part.columns, schema, strict=True)], schema=schema
                    )
                writer.write_batch(part)
        if ext == "parquet" and start == 0:
            from .._compute import empty_table  # (not Schema.empty_table(): it imports pandas)

            writer.write_table(empty_table(table.schema))
    finally:
        writer.close()


def _counts(c: Any) -> str:
    return f"{c.rows} rows, {c.users} users, {c.items} items"


def _headline(summary: dict[str, Any], source: str) -> str:
    params = summary["params"]
    shown = ", ".join(
        f"{k}={v}" for k, v in params.items()
        if k not in ("min_user_interactions", "min_item_interactions", "iterate_filters", "filter_rounds",
                     "small_users", "drop_cold_users", "drop_cold_items", "tie_rule", "threshold_time")
        and v is not None
    )
    i = summary["input"]
    return (
        f"rankmeter split: {summary['method']} ({shown}) of {source}: "
        f"{i['rows']} rows, {i['users']} users, {i['items']} items"
    )


def _common_lines(summary: dict[str, Any]) -> list[str]:
    lines = []
    f = summary["filtered"]
    p = summary["params"]
    if f["rows"] or p["min_user_interactions"] > 1 or p["min_item_interactions"] > 1:
        lines.append(
            f"  filtered (min {p['min_user_interactions']} per user, {p['min_item_interactions']} per item"
            f"{', iterated' if p['iterate_filters'] else ''}): {f['rows']} rows, "
            f"{f['users']} users, {f['items']} items removed"
        )
    s = summary["small_users"]
    if s["users"]:
        what = "kept in train" if s["policy"] == "train" else "dropped"
        lines.append(f"  small users ({s['rule']}): {s['users']} users, {s['rows']} rows, {what}")
    if p.get("threshold_time") or p.get("threshold") is not None:
        when = p.get("threshold_time") or p.get("threshold")
        lines.append(f"  test from timestamp >= {when}")
    return lines
