"""recmetrics (``recmetrics/metrics.py``); version 0.1.5 needs pandas < 2: its values were made once in a separate
environment (scripts/golden_recmetrics.py)."""

from . import Entry, Tool

_SRC = "recmetrics/metrics.py"

TOOL = Tool(
    name="recmetrics", title="recmetrics", version="0.1.5", repository="statisticianinstilettos/recmetrics",
    entries={
        "novelty": Entry("novelty", _SRC + ":14 (novelty)", cutoff="required",
                         cannot="recmetrics counts an item's training occurrences (rows) over the users: equal "
                                "without repeated (user, item) pairs"),
        "personalization": Entry("personalization", _SRC + ":160 (personalization)", cutoff="required"),
        "intra_list_similarity": Entry("ils", _SRC + ":232 (intra_list_similarity), :197 (_single_list_similarity)",
                                       cutoff="required", differs="1 - ILD (cosine)"),
        "mark": Entry("ap", _SRC + ":142 (mark), :110 (_ark)", cutoff="required",
                      differs="named 'mean average recall', it sums hits-so-far / rank over the hits and divides by "
                              "the number of relevant items: average precision"),
    },
)
