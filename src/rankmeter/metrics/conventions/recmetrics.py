"""recmetrics (``recmetrics/metrics.py``)."""

from . import Entry, Tool

_SRC = "recmetrics/metrics.py"

TOOL = Tool(
    name="recmetrics", title="recmetrics", version="0.1", repository="statisticianinstilettos/recmetrics",
    entries={
        "novelty": Entry("novelty", _SRC + " (novelty)", cutoff="required"),
        "personalization": Entry("personalization", _SRC + " (personalization)", cutoff="required"),
        "intra_list_similarity": Entry("ils", _SRC + " (intra_list_similarity, _single_list_similarity)",
                                       cutoff="required", differs="1 - ILD (cosine)"),
        "mark": Entry("r", _SRC + " (mark, _ark)", cutoff="required",
                      cannot="recmetrics' mark averages recall at each rank up to k: not reproduced here"),
    },
)
