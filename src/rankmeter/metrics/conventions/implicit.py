"""implicit's evaluation (``implicit/evaluation.pyx``): per user top-k lists, binary likes."""

from . import Entry, Tool

_SRC = "implicit/evaluation.pyx"

TOOL = Tool(
    name="implicit", title="implicit", version="0.7", repository="benfred/implicit",
    entries={
        "precision": Entry("p(norm=min,mean=pooled)", _SRC + " (precision_at_k)", cutoff="required",
                           differs="hits / min(k, R) per user, pooled: sum of hits over sum of min(k, R)"),
        "map": Entry("ap(norm=min)", _SRC + " (mean_average_precision_at_k)", cutoff="required",
                     differs="divides by min(k, R)"),
        "ndcg": Entry("ndcg", _SRC + " (ndcg_at_k)", cutoff="required",
                      cannot="implicit's nDCG uses binary gains: equal on binary judgments"),
    },
)
