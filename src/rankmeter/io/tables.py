"""Columnar inputs: CSV/TSV and Parquet files, pandas and polars DataFrames, pyarrow Tables.

Column names are given or detected (case-insensitive) from the usual spellings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pyarrow as pa

from .._errors import InputError

__all__ = ["QUERY_NAMES", "ITEM_NAMES", "GRADE_NAMES", "SCORE_NAMES", "RANK_NAMES", "to_arrow", "pick_columns",
           "read_table_file"]

QUERY_NAMES = ("query", "query_id", "qid", "topic", "topic_id", "user", "user_id", "userid", "uid")
ITEM_NAMES = ("item", "item_id", "itemid", "iid", "doc", "doc_id", "docid", "docno", "document", "document_id",
              "movie_id", "product_id")
GRADE_NAMES = ("relevance", "rel", "grade", "label", "judgment", "judgement", "rating", "gain", "relevance_grade")
SCORE_NAMES = ("score", "prediction", "predicted", "pred", "rating", "similarity", "sim", "weight")
RANK_NAMES = ("rank", "position", "pos")


def is_frame(obj: Any) -> bool:
    mod = type(obj).__module__
    return isinstance(obj, (pa.Table, pa.RecordBatch)) or mod.startswith("pandas") or mod.startswith("polars")


def to_arrow(obj: Any, source: str = "<table>") -> pa.Table:
    """A pyarrow Table from a pandas/polars DataFrame, a RecordBatch or a Table."""
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    mod = type(obj).__module__
    if mod.startswith("polars"):
        if type(obj).__name__ == "LazyFrame":
            obj = obj.collect()
        return obj.to_arrow()  # type: ignore[no-any-return]
    if mod.startswith("pandas"):
        try:
            return pa.Table.from_pandas(obj, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError(f"cannot convert the DataFrame: {exc}", source=source) from None
    raise InputError(f"not a table: {type(obj).__name__}", source=source)


def pick_columns(
    table: pa.Table,
    wanted: Mapping[str, Sequence[str]],
    given: Mapping[str, str | None],
    source: str,
    optional: Sequence[str] = (),
) -> dict[str, str]:
    """Resolve role -> column name, from explicit names or by detection."""
    lower = {c.lower(): c for c in table.column_names}
    out: dict[str, str] = {}
    used: set[str] = set()
    for role, candidates in wanted.items():
        name = given.get(role)
        if name is not None:
            if name not in table.column_names:
                raise InputError(
                    f"no column {name!r} for the {role} (columns: {', '.join(table.column_names)})", source=source)
            out[role] = name
            used.add(name)
            continue
        for c in candidates:
            if c in lower and lower[c] not in used:
                out[role] = lower[c]
                used.add(lower[c])
                break
        else:
            if role in optional:
                continue
            raise InputError(
                f"cannot find the {role} column among {', '.join(table.column_names)}; name it with "
                f"{role}=... (CLI: --{role}-column), or use one of: {', '.join(candidates[:6])}",
                source=source,
            )
    return out


def read_table_file(path: str | Path, sep: str | None = None) -> pa.Table:
    """Read a CSV/TSV (with a header row) or Parquet file."""
    p = Path(path)
    suffix = "".join(p.suffixes[-2:]).lower() if p.suffix.lower() in (".gz", ".bz2", ".zst") else p.suffix.lower()
    if not p.exists():
        raise InputError("no such file", source=str(path))
    if p.stat().st_size == 0:
        raise InputError("the file is empty", source=str(path))
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            return pq.read_table(p)
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(f"not a readable Parquet file ({exc})", source=str(path)) from None
    import pyarrow.csv as pacsv

    if sep is None:
        sep = "\t" if ".tsv" in suffix or ".tab" in suffix else ","
    try:
        return pacsv.read_csv(p, parse_options=pacsv.ParseOptions(delimiter=sep))
    except pa.ArrowInvalid as exc:
        msg = str(exc)
        line = None
        import re

        m = re.search(r"[Rr]ow #(\d+)", msg)
        if m:
            line = int(m.group(1)) + 1  # pyarrow counts data rows from 1 after the header
        raise InputError(f"cannot parse as {'TSV' if sep == chr(9) else 'CSV'}: {msg.splitlines()[0]}",
                         source=str(path), line=line) from None
