"""torchmetrics' retrieval metrics (``torchmetrics/functional/retrieval/``), version 1.8 or later.

nDCG averages tied gains (``_tie_average_dcg``); the other metrics take ``torch.topk`` / ``argsort`` of the
scores, whose order among ties is not specified. Queries without a relevant item score 0 and stay in the
mean (``empty_target_action="neg"``, the default): ``queries="qrels"`` reproduces that. From 1.8 (PR #3160)
an item scored <= 0 never counts as relevant in precision, recall, MAP and MRR."""

from . import Entry, Tool

_SRC = "torchmetrics/functional/retrieval/"
_TOPK = "torchmetrics orders tied scores as torch.topk does (unspecified): equal on runs without ties only"
_SCORED = ("torchmetrics builds the ideal and the recall denominator from the scored items only: equal where "
           "every judged item is scored")
_NONPOS = "from torchmetrics 1.8 an item scored <= 0 is never relevant: equal on runs with positive scores"
_FLOAT = "torchmetrics computes in float32: equal within about 1e-7"

TOOL = Tool(
    name="torchmetrics", title="torchmetrics", version="1.9.0", repository="Lightning-AI/torchmetrics",
    entries={
        "ndcg": Entry("ndcg", _SRC + "ndcg.py:71 (retrieval_normalized_dcg), :22 (_tie_average_dcg)", ties="average",
                      differs="tied scores averaged", cannot=f"{_SCORED}; {_FLOAT}"),
        "precision": Entry("p", _SRC + "precision.py:22 (retrieval_precision)",
                           cannot=f"{_TOPK}; {_NONPOS}; {_FLOAT}"),
        "recall": Entry("r", _SRC + "recall.py:22 (retrieval_recall)",
                        cannot=f"{_TOPK}; {_SCORED}; {_NONPOS}; {_FLOAT}"),
        "map": Entry("ap(norm=retrieved)", _SRC + "average_precision.py:22 (retrieval_average_precision)",
                     differs="divides by the relevant items retrieved within k",
                     cannot=f"{_TOPK}; {_NONPOS}; {_FLOAT}"),
        "mrr": Entry("rr", _SRC + "reciprocal_rank.py:22 (retrieval_reciprocal_rank)",
                     cannot=f"{_TOPK}; {_NONPOS}; {_FLOAT}"),
        "hit_rate": Entry("success", _SRC + "hit_rate.py:22 (retrieval_hit_rate)", cannot=_TOPK),
        "auroc": Entry("auc(missing_class=0)", _SRC + "auroc.py:22 (retrieval_auroc)",
                       differs="0 where the top k holds one class only", cannot=_TOPK),
    },
    notes=("torchmetrics keeps queries without a relevant item, scored 0 (empty_target_action='neg'): "
           "evaluate with queries='qrels' to reproduce its mean",),
)
