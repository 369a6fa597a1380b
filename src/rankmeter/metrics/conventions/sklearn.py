"""scikit-learn's ranking metrics (``sklearn/metrics/_ranking.py``): nDCG and DCG average the gains of
tied items (McSherry and Najork's form, ``_tie_averaged_dcg``, with ``ignore_ties=False``)."""

from . import Entry, Tool

_SRC = "sklearn/metrics/_ranking.py"  # scikit-learn 1.9.1
_IDEAL = ("scikit-learn builds the ideal from the scored items only (y_true of the scored items): equal where "
          "every judged item of a query is scored")

TOOL = Tool(
    name="sklearn", title="scikit-learn", version="1.9.1", repository="scikit-learn/scikit-learn",
    entries={
        "ndcg": Entry("ndcg", _SRC + ":1959 (ndcg_score), :1898 (_ndcg_sample_scores), :1715 (_tie_averaged_dcg)",
                      ties="average",
                      differs="tied scores averaged", cannot=_IDEAL),
        "ndcg_score": Entry("ndcg", _SRC + ":1959 (ndcg_score)", ties="average", differs="tied scores averaged",
                            cannot=_IDEAL),
        "dcg": Entry("dcg", _SRC + ":1789 (dcg_score), :1715 (_tie_averaged_dcg)", ties="average",
                     differs="tied scores averaged"),
        "dcg_score": Entry("dcg", _SRC + ":1789 (dcg_score)", ties="average", differs="tied scores averaged"),
        "roc_auc": Entry("auc(tied_pairs=half)", _SRC + ":511 (roc_auc_score)", cutoff="none",
                         differs="a tied (relevant, non-relevant) pair counts 1/2",
                         cannot="scikit-learn's AUC reads the scored items only, as rankmeter's auc does"),
        "roc_auc_score": Entry("auc(tied_pairs=half)", _SRC + ":511 (roc_auc_score)", cutoff="none",
                               differs="a tied pair counts 1/2"),
        "average_precision": Entry(
            "ap", _SRC + ":128 (average_precision_score)", cutoff="none",
            cannot="scikit-learn counts tied items together at their score threshold and divides by the relevant "
                   "items among the scored ones: equal on tie-free runs that score every judged item"),
    },
)
