"""Microsoft Recommenders' python evaluation (``recommenders/evaluation/python_evaluation.py``): binary
relevance (ndcg_at_k's default score_type="binary"; its natural-log discount cancels in the ratio); the
functions return the mean over the users present in both frames."""

from . import Entry, Tool

_SRC = "recommenders/evaluation/python_evaluation.py"

TOOL = Tool(
    name="msrecommenders", title="MS Recommenders", version="1.2.1", repository="recommenders-team/recommenders",
    entries={
        "precision_at_k": Entry("p", _SRC + ":448 (precision_at_k)", cutoff="required"),
        "recall_at_k": Entry("r", _SRC + ":499 (recall_at_k)", cutoff="required"),
        "ndcg_at_k": Entry("ndcg", _SRC + ":601 (ndcg_at_k)", cutoff="required"),
        "map_at_k": Entry("ap(norm=min)", _SRC + ":788 (map_at_k)", cutoff="required",
                          differs="divides by min(k, R)"),
        "r_precision_at_k": Entry("rprec(skip_no_hit=true)", _SRC + ":544 (r_precision_at_k)", cutoff="required",
                                  differs="the list cut at k first; users without a hit in their top min(k, R) "
                                          "are left out of the mean"),
        "catalog_coverage": Entry("catalog_coverage", _SRC + ":1645 (catalog_coverage)", cutoff="required"),
        "novelty": Entry("novelty", _SRC + ":1404 (novelty)", cutoff="required"),
    },
)
