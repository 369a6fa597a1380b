"""RecTools' metrics (``rectools/metrics/``): recommendation lists with ranks, binary relevance."""

from . import Entry, Tool

_SRC = "rectools/metrics/"

TOOL = Tool(
    name="rectools", title="RecTools", version="0.6", repository="MobileTeleSystems/RecTools",
    entries={
        "ndcg": Entry("ndcg(ideal=k)", _SRC + "ranking.py (NDCG, divide_by_achievable=False)", cutoff="required",
                      differs="the ideal assumes k relevant items"),
        "ndcg_achievable": Entry("ndcg", _SRC + "ranking.py (NDCG(divide_by_achievable=True))", cutoff="required"),
        "map": Entry("ap", _SRC + "ranking.py (MAP)", cutoff="required"),
        "map_divide_by_k": Entry("ap(norm=k)", _SRC + "ranking.py (MAP(divide_by_k=True))", cutoff="required",
                                 differs="divides by k"),
        "mrr": Entry("rr", _SRC + "ranking.py (MRR)", cutoff="required"),
        "precision": Entry("p", _SRC + "classification.py (Precision)", cutoff="required"),
        "recall": Entry("r", _SRC + "classification.py (Recall)", cutoff="required"),
        "f1beta": Entry("f", _SRC + "classification.py (F1Beta)", cutoff="required"),
        "hitrate": Entry("success", _SRC + "classification.py (HitRate)", cutoff="required"),
        "intralistdiversity": Entry("ild(distance=hamming)", _SRC + "diversity.py (IntraListDiversity) with "
                                    "distances.py (PairwiseHammingDistanceCalculator)", cutoff="required",
                                    differs="counts the features that differ, not their share"),
        "avgrecpopularity": Entry("arp(pop=interactions)", _SRC + "popularity.py (AvgRecPopularity)",
                                  cutoff="required", differs="popularity in training rows, repeated pairs included"),
    },
    notes=("RecTools reads ranked lists (ranks, not scores): ties do not arise",),
)
