"""RecBole's evaluator metrics (``recbole/evaluator/metrics.py``): binary relevance, full ranking. RecBole 1.2.1
uses numpy's removed np.float and cannot run beside rankmeter: its values were made once in a separate
environment (scripts/golden_recbole.py) and every table row below is checked against them."""

from . import Entry, Tool

_SRC = "recbole/evaluator/metrics.py"

TOOL = Tool(
    name="recbole", title="RecBole", version="1.2.1", repository="RUCAIBox/RecBole",
    entries={
        "hit": Entry("success", _SRC + " (Hit)", cutoff="required"),
        "mrr": Entry("rr", _SRC + " (MRR)", cutoff="required"),
        "recall": Entry("r", _SRC + " (Recall)", cutoff="required"),
        "precision": Entry("p", _SRC + " (Precision)", cutoff="required"),
        "ndcg": Entry("ndcg", _SRC + " (NDCG)", cutoff="required",
                      cannot="RecBole's NDCG uses binary gains: equal on binary judgments"),
        "map": Entry("ap(norm=min)", _SRC + " (MAP)", cutoff="required", differs="divides by min(k, R)"),
        "gauc": Entry("gauc(tied_pairs=half)", _SRC + " (GAUC)", cutoff="none",
                      differs="user AUCs weighted by their positives; tied pairs by average rank"),
        "shannonentropy": Entry("entropy(normalize=distinct_count,base=e)", _SRC + " (ShannonEntropy)",
                                cutoff="required", differs="natural log, divided by the distinct recommended items"),
        "tailpercentage": Entry("aplt(tail=bottom_share,share=0.1,pop=interactions)", _SRC + " (TailPercentage)",
                                cutoff="required", differs="tail: the least popular 10% of items, by rows"),
        "averagepopularity": Entry("arp(pop=interactions)", _SRC + " (AveragePopularity)", cutoff="required",
                                   differs="popularity in training rows"),
        "giniindex": Entry("gini", _SRC + " (GiniIndex)", cutoff="required"),
        "itemcoverage": Entry("catalog_coverage(denominator=all_items)", _SRC + " (ItemCoverage)",
                              cutoff="required"),
    },
    notes=("RecBole rounds its results to metric_decimal_place (4 by default); rankmeter does not round",),
)
