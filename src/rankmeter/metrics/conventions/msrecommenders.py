"""Microsoft Recommenders' python evaluation (``recommenders/evaluation/python_evaluation.py``)."""

from . import Entry, Tool

_SRC = "recommenders/evaluation/python_evaluation.py"

TOOL = Tool(
    name="msrecommenders", title="MS Recommenders", version="1.2", repository="recommenders-team/recommenders",
    entries={
        "precision_at_k": Entry("p", _SRC + " (precision_at_k)", cutoff="required"),
        "recall_at_k": Entry("r", _SRC + " (recall_at_k)", cutoff="required"),
        "ndcg_at_k": Entry("ndcg", _SRC + " (ndcg_at_k)", cutoff="required"),
        "map_at_k": Entry("ap", _SRC + " (map_at_k)", cutoff="required"),
        "r_precision_at_k": Entry("rprec(skip_no_hit=true)", _SRC + " (r_precision_at_k)", cutoff="required",
                                  differs="users without a hit in their top R are left out of the mean"),
        "catalog_coverage": Entry("catalog_coverage", _SRC + " (catalog_coverage)", cutoff="required"),
        "novelty": Entry("novelty", _SRC + " (novelty)", cutoff="required"),
    },
)
