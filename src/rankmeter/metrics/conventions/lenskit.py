"""LensKit's top-N metrics (``lenskit/metrics/topn.py``); it needs pandas < 3 and cannot run beside rankmeter."""

from . import Entry, Tool

_SRC = "lenskit/metrics/topn.py"

TOOL = Tool(
    name="lenskit", title="LensKit", version="0.14.4", repository="lenskit/lkpy",
    entries={
        "precision": Entry("p(norm=retrieved)", _SRC + ":23 (precision: ngood / len(recs[:k]))",
                           differs="divides by the list's length within k",
                           cannot="LensKit's bulk implementation (topn.py:47, _bulk_precision) divides by k "
                                  "instead: p"),
        "recall": Entry("p(norm=min)", _SRC + ":63 (recall: ngood / min(len(truth), k); its docstring says max)",
                        differs="hits / min(k, R)"),
        "ndcg": Entry("ndcg(discount=jarvelin)", _SRC + ":270 (ndcg), :202 (_dcg: divides by max(1, log2 i))",
                      differs="the ratings as gains, ranks 1 and 2 undiscounted (Järvelin's discount)"),
        "recip_rank": Entry("rr", _SRC + ":160 (recip_rank)"),
        "hit": Entry("success", _SRC + ":106 (hit)"),
    },
    notes=("LensKit 0.14 needs pandas < 3: its values were made once in a separate environment "
           "(scripts/golden_lenskit.py); it counts every test item as relevant, whatever its rating",),
)
