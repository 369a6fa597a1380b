"""Cornac's ranking metrics (``cornac/metrics/ranking.py``): binary relevance (the user's positive items),
so its graded metrics (NDCG, NCRR) equal rankmeter's on binary judgments."""

from . import Entry, Tool

_SRC = "cornac/metrics/ranking.py"

TOOL = Tool(
    name="cornac", title="Cornac", version="3.0.1", repository="PreferredAI/cornac",
    entries={
        "precision": Entry("p", _SRC + ":315 (Precision)"),
        "recall": Entry("r", _SRC + ":352 (Recall)"),
        "fmeasure": Entry("f", _SRC + ":389 (FMeasure)"),
        "hitratio": Entry("success", _SRC + ":277 (HitRatio)"),
        "ndcg": Entry("ndcg", _SRC + ":49 (NDCG)"),
        "ncrr": Entry("ndcg(discount=reciprocal)", _SRC + ":126 (NCRR)", differs="discount 1/i",
                      cannot="Cornac's NCRR ideal has min(R, length of the list within k) items: equal where the "
                             "list holds at least k items"),
        "mrr": Entry("rr", _SRC + ":183 (MRR)", cutoff="none"),
        "auc": Entry("auc(tied_pairs=zero)", _SRC + ":434 (AUC)", cutoff="none",
                     differs="a tied (relevant, non-relevant) pair counts 0"),
        "map": Entry("ap", _SRC + ":488 (MAP)", cutoff="none",
                     cannot="Cornac ranks tied scores by scipy.stats.rankdata(..., 'max'), for the rank and for "
                            "the relevant items above it, which is no order of the items: equal on tie-free runs"),
    },
)
