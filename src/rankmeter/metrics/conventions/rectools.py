"""RecTools' metrics (``rectools/metrics/``): recommendation lists with ranks, binary relevance."""

from . import Entry, Tool

_SRC = "rectools/metrics/"

TOOL = Tool(
    name="rectools", title="RecTools", version="0.19.0", repository="MobileTeleSystems/RecTools",
    entries={
        "ndcg": Entry("ndcg(ideal=k)", _SRC + "ranking.py:313 (NDCG, divide_by_achievable=False)", cutoff="required",
                      differs="the ideal assumes k relevant items"),
        "ndcg_achievable": Entry("ndcg", _SRC + "ranking.py:313 (NDCG(divide_by_achievable=True))", cutoff="required"),
        "map": Entry("ap", _SRC + "ranking.py:109 (MAP)", cutoff="required"),
        "map_divide_by_k": Entry("ap(norm=k)", _SRC + "ranking.py:109 (MAP(divide_by_k=True))", cutoff="required",
                                 differs="divides by k"),
        "mrr": Entry("rr", _SRC + "ranking.py:474 (MRR)", cutoff="required"),
        "precision": Entry("p", _SRC + "classification.py:264 (Precision)", cutoff="required"),
        "recall": Entry("r", _SRC + "classification.py:296 (Recall)", cutoff="required"),
        "f1beta": Entry("f", _SRC + "classification.py:346 (F1Beta)", cutoff="required"),
        "hitrate": Entry("success", _SRC + "classification.py:422 (HitRate)", cutoff="required"),
        "intralistdiversity": Entry("ild(distance=hamming)", _SRC + "diversity.py:50 (IntraListDiversity) with "
                                    "distances.py:59 (PairwiseHammingDistanceCalculator)", cutoff="required",
                                    differs="counts the features that differ, not their share"),
        "avgrecpopularity": Entry("arp(pop=interactions)", _SRC + "popularity.py:28 (AvgRecPopularity)",
                                  cutoff="required", differs="popularity in training rows, repeated pairs included"),
    },
    notes=("RecTools reads ranked lists (ranks, not scores): ties do not arise",),
)
