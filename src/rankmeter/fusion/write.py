"""A fused run as TREC run text: ``query Q0 item rank score tag``, rank order, scores written exactly.

Scores are written in Python's shortest round-trip form (``repr``), so reading the file
back gives the same floats, hence the same ranking (ties included: equal scores stay equal
and the tie rule orders them again, as it did here).

>>> import io
>>> from rankmeter import Run
>>> out = io.StringIO()
>>> write_trec(Run.from_columns(["q", "q"], ["a", "b"], [0.5, 1 / 3]), out, tag="rrf")
2
>>> print(out.getvalue(), end="")
q Q0 a 1 0.5 rrf
q Q0 b 2 0.3333333333333333 rrf
"""

from __future__ import annotations

import re
from typing import TextIO

from .._errors import ParameterError
from ..data import Run

__all__ = ["write_trec"]

_BLANK = re.compile(r"\s")


def write_trec(run: Run, out: TextIO, *, tag: str = "fused", first_rank: int = 1) -> int:
    """Write ``run`` as TREC run lines to ``out``; returns the number of lines."""
    if not tag or _BLANK.search(tag):
        raise ParameterError(f"The 'tag' parameter of write_trec must be one word without blanks. Got {tag!r} instead.")
    qids = run.query_ids.to_pylist()
    items = run.item_rows.to_pylist()
    scores = run.scores.tolist()
    lines = []
    for q in range(run.n_queries):
        a, b = int(run.offsets[q]), int(run.offsets[q + 1])
        qid = qids[q]
        for i in range(a, b):
            lines.append(f"{qid} Q0 {items[i]} {i - a + first_rank} {scores[i]!r} {tag}\n")
    bad = next((t for t in (*qids, *items) if _BLANK.search(t) or not t), None)
    if bad is not None:
        raise ParameterError(f"A TREC run cannot hold the id {bad!r} (empty or with a blank); write the fused run "
                             "with Run.to_arrow() instead.")
    out.write("".join(lines))
    return len(lines)
