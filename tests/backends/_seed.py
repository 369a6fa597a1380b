"""Seed 000 (Apache Hivemall's ranking measures page): its tables, queries and values."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scale.md"

TRUTH = [(u, i) for u in (1, 2, 3) for i in (1, 2, 4)]
REC = [(u, i, s) for u in (1, 2, 3) for i, s in ((1, 10.0), (3, 8.0), (2, 6.0), (6, 2.0))]
RECREL = [(u, i, s, r) for u in (1, 2, 3)
          for i, s, r in ((1, 10.0, 5.0), (3, 8.0, 2.0), (2, 6.0, 4.0), (6, 2.0, 1.0), (4, 1.0, 3.0))]

# seed 000's printed values (Hivemall's arithmetic; rankmeter is within 1 ulp, see docs/scale.md)
BINARY = {
    "recall": 0.6666666666666666, "recall_at_2": 0.3333333333333333,
    "precision": 0.5, "precision_at_2": 0.5,
    "average_precision": 0.5555555555555555, "average_precision_at_2": 0.3333333333333333,
    "auc": 0.75, "auc_at_2": 1.0,
    "mrr": 1.0, "mrr_at_2": 1.0,
    "ndcg": 0.7039180890341349, "ndcg_at_2": 0.6131471927654585,
}
GRADED = {"ndcg_at_2": 0.8128912838590544, "ndcg_at_3": 0.9187707805346093}
ULP = 1e-15  # a few units in the last place of numbers below 1


def doc_query(label: str) -> str:
    """The SQL block of docs/scale.md whose first line is ``-- test: <label>``."""
    text = DOCS.read_text(encoding="utf-8")
    for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S):
        first, _, body = block.partition("\n")
        if first.strip() == f"-- test: {label}":
            return body.strip().rstrip(";")
    raise LookupError(f"no SQL block '-- test: {label}' in {DOCS}")
