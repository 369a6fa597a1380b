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
        "ndcg": Entry("ndcg(discount=jarvelin)", _SRC + " (ndcg, _dcg: divides by max(1, log2 i))",
                      differs="the ratings as gains, ranks 1 and 2 undiscounted (Järvelin's discount)"),
        "recip_rank": Entry("rr", _SRC + " (recip_rank)"),
        "hit": Entry("success", _SRC + " (hit)"),
    },
    notes=("LensKit 0.14 needs pandas < 3: its values were made once in a separate environment "
           "(scripts/golden_lenskit.py); it counts every test item as relevant, whatever its rating",),
)
