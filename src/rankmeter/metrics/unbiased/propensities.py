"""Read observation propensities per (user, item) from a file or a table, for ``propensity=given``.

The IPS and SNIPS metrics (``ips_recall(propensity=given)@10``, ``snips_ndcg(propensity=given)@10``...)
read ``context["propensity"]``: a mapping item -> p (one propensity per item, for every user) or a
table of (query, item, propensity) rows (one per user and item). :func:`read_propensities` reads
such a table from CSV/TSV/Parquet (or a DataFrame, an Arrow table, a mapping of columns) and
checks it: ids are text as written, every propensity a number in [0, 1], no (query, item) pair twice;
a bad row is an :class:`~rankmeter._errors.InputError` naming the file and line.

>>> import pyarrow as pa
>>> t = read_propensities(pa.table({"user": ["u1", "u1"], "item": ["a", "b"], "propensity": [0.5, 0.25]}))
>>> t.column_names, t.column("query").to_pylist()
(['query', 'item', 'propensity'], ['u1', 'u1'])
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ... import _compute as C
from ..._errors import InputError
from ...data.ids import as_string_array

__all__ = ["read_propensities"]


def read_propensities(source: Any, *, query: str | None = None, item: str | None = None,
                      propensity: str = "propensity") -> pa.Table:
    """A (query, item, propensity) table from a path or an in-memory table, checked row by row.

    ``query`` and ``item`` name the columns (None: detected, ``user``/``query``/``qid``... and
    ``item``/``doc``...); ``propensity`` names the propensity column.
    """
    from ...io.interactions import read_interactions

    data = read_interactions(source, user=query, item=item, rating=propensity, timestamp=False)
    t = data.table
    q = as_string_array(t.column(data.user))
    i = as_string_array(t.column(data.item))
    p = np.asarray(t.column(data.rating).to_numpy(), dtype=np.float64)

    def where(row: int) -> dict[str, Any]:
        line = None if data.first_line is None else data.first_line + row
        return {"source": data.source or "propensities", "line": line}

    bad = np.flatnonzero(~(np.isfinite(p) & (p >= 0) & (p <= 1)))
    if len(bad):
        r = int(bad[0])
        raise InputError(f"{len(bad)} propensities are not numbers in [0, 1], e.g. {float(p[r])!r} for "
                         f"({q[r].as_py()!r}, {i[r].as_py()!r}) in column {data.rating!r}", **where(r))
    table = pa.table({"query": q, "item": i, "propensity": pa.array(p, pa.float64())})
    if len(table) > 1:
        qc = np.asarray(C.dictionary_encode(q).indices.to_numpy(), dtype=np.int64)
        ic = np.asarray(C.dictionary_encode(i).indices.to_numpy(), dtype=np.int64)
        key = qc * (int(ic.max()) + 1) + ic
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        if len(same):
            r = int(order[same[0] + 1])  # the second row of the first repeated pair
            raise InputError(f"{len(same)} rows repeat a (query, item) pair that already has a propensity, e.g. "
                             f"({q[r].as_py()!r}, {i[r].as_py()!r})", **where(r))
    return table
