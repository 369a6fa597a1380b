"""LensKit's top-N metrics (``lenskit/metrics/topn.py``); it needs pandas < 3 and cannot run beside rankmeter."""

from . import Entry, Tool

_SRC = "lenskit/metrics/topn.py"

TOOL = Tool(
    name="lenskit", title="LensKit", version="0.14", repository="lenskit/lkpy",
    entries={
        "precision": Entry("p(norm=retrieved)", _SRC + " (precision: ngood / len(recs[:k]))",
                           differs="divides by the list's length within k",
                           cannot="LensKit's bulk implementation (_bulk_precision) divides by k instead: p"),
        "recall": Entry("p(norm=min)", _SRC + " (recall: ngood / min(len(truth), k); its docstring says max)",
                        differs="hits / min(k, R)"),
        "ndcg": Entry("ndcg", _SRC + " (ndcg)"),
        "recip_rank": Entry("rr", _SRC + " (recip_rank)"),
        "hit": Entry("success", _SRC + " (hit)"),
    },
    notes=("LensKit's definitions are read from its source and documentation, not run here (pandas < 3)",),
)
