"""Cornac's ranking metrics (``cornac/metrics/ranking.py``): binary relevance (the user's positive items),
so its graded metrics (NDCG, NCRR) equal rankmeter's on binary judgments."""

from . import Entry, Tool

_SRC = "cornac/metrics/ranking.py"

TOOL = Tool(
    name="cornac", title="Cornac", version="3.0", repository="PreferredAI/cornac",
    entries={
        "precision": Entry("p", _SRC + " (Precision)"),
        "recall": Entry("r", _SRC + " (Recall)"),
        "fmeasure": Entry("f", _SRC + " (FMeasure)"),
        "hitratio": Entry("success", _SRC + " (HitRatio)"),
        "ndcg": Entry("ndcg", _SRC + " (NDCG)"),
        "ncrr": Entry("ndcg(discount=reciprocal)", _SRC + " (NCRR)", differs="discount 1/i",
                      cannot="Cornac's NCRR ideal has min(R, length of the list within k) items: equal where the "
                             "list holds at least k items"),
        "mrr": Entry("rr", _SRC + " (MRR)", cutoff="none"),
        "auc": Entry("auc(tied_pairs=zero)", _SRC + " (AUC)", cutoff="none",
                     differs="a tied (relevant, non-relevant) pair counts 0"),
        "map": Entry("ap", _SRC + " (MAP)", cutoff="none",
                     cannot="Cornac ranks tied scores by scipy.stats.rankdata(..., 'max'), for the rank and for "
                            "the relevant items above it, which is no order of the items: equal on tie-free runs"),
    },
)
