"""The experiment's inputs: interactions (or generated data), item features, item categories."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from .._errors import InputError
from ..data.ids import as_string_array

__all__ = ["load_interactions", "read_item_features", "read_categories", "resolve_features", "resolve_categories"]


def load_interactions(interactions: Any, columns: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """(Interactions, item features, categories) from the input."""
    from ..io.interactions import read_interactions
    from .datasets import SyntheticData

    feats = cats = None
    if isinstance(interactions, SyntheticData):
        feats, cats = interactions.item_features, interactions.categories
        interactions = interactions.interactions
    data = read_interactions(interactions, **{k: v for k, v in columns.items() if v is not None})
    return data, feats, cats


def read_item_features(path: str | Path) -> tuple[pa.Array, np.ndarray]:
    """Item features from a CSV/TSV/Parquet file: an item column and numeric columns."""
    from ..io.tables import ITEM_NAMES, pick_columns, read_table_file

    p = Path(path)
    table = read_table_file(p, sep="\t" if p.suffix.lower() in (".tsv", ".tab") else None)
    item = pick_columns(table, {"item": ITEM_NAMES}, {}, str(path))["item"]
    num = [c for c in table.column_names if c != item and (pa.types.is_integer(table.schema.field(c).type)
                                                           or pa.types.is_floating(table.schema.field(c).type))]
    if not num:
        raise InputError(f"no numeric feature column besides {item!r}", source=str(path))
    mat = np.column_stack([np.asarray(table.column(c).to_numpy(zero_copy_only=False), dtype=np.float64) for c in num])
    return as_string_array(table.column(item)), mat


def read_categories(path: str | Path, sep: str = "|") -> dict[str, frozenset[str]]:
    """Item categories from a CSV/TSV file: an item column and a column of labels joined by ``sep``
    (``genres``, ``categories``, ``category``, ``labels``, ``tags``); one row per item, or several
    rows per item (one label each). A file named ``u.item`` (or ``*.item``) is MovieLens' movie
    list with 19 genre flags (:func:`rankmeter.datasets.read_movielens_genres`)."""
    from ..io.tables import ITEM_NAMES, pick_columns, read_table_file

    p = Path(path)
    if p.suffix.lower() == ".item":
        from .datasets import read_movielens_genres

        return read_movielens_genres(p)
    table = read_table_file(p, sep="\t" if p.suffix.lower() in (".tsv", ".tab") else None)
    cols = pick_columns(table, {"item": ITEM_NAMES, "labels": ("genres", "genre", "categories", "category",
                                                               "labels", "label", "tags", "tag")}, {}, str(path))
    out: dict[str, set[str]] = {}
    items = as_string_array(table.column(cols["item"])).to_pylist()
    labels = table.column(cols["labels"]).to_pylist()
    for it, lab in zip(items, labels, strict=True):
        s = out.setdefault(it, set())
        if lab is not None and str(lab) != "":
            s.update(x for x in str(lab).split(sep) if x)
    return {k: frozenset(v) for k, v in out.items()}


def resolve_features(value: Any) -> Any:
    if isinstance(value, (str, Path)):
        return read_item_features(value)
    return value


def resolve_categories(value: Any) -> Any:
    if isinstance(value, (str, Path)):
        return read_categories(value)
    return value
