"""Elliot (``elliot/evaluation/metrics/``); not on PyPI: checked on hand-worked examples of its documentation."""

from . import Entry, Tool

_SRC = "elliot/evaluation/metrics/"

TOOL = Tool(
    name="elliot", title="Elliot", version="0.3", repository="sisinflab/elliot",
    entries={
        "precision": Entry("p", _SRC + "accuracy/precision/precision.py", cutoff="required"),
        "recall": Entry("r", _SRC + "accuracy/recall/recall.py", cutoff="required"),
        "ndcg": Entry("ndcg(gain=exp)", _SRC + "accuracy/ndcg/ndcg.py", cutoff="required",
                      differs="gain 2^g - 1"),
        "mrr": Entry("rr", _SRC + "accuracy/mrr/mrr.py", cutoff="required"),
        "map": Entry("ap(norm=min)", _SRC + "accuracy/map/map.py", cutoff="required"),
        "aplt": Entry("aplt", _SRC + "bias/aplt/aplt.py", cutoff="required"),
        "aclt": Entry("aclt", _SRC + "bias/aclt/aclt.py", cutoff="required"),
        "gini": Entry("gini(norm=n-1)", _SRC + "diversity/gini_index/gini_index.py", cutoff="required",
                      cannot="Elliot reports 1 minus this Gini"),
        "shannonentropy": Entry("entropy", _SRC + "diversity/shannon_entropy/shannon_entropy.py",
                                cutoff="required"),
    },
    notes=("Elliot is not on PyPI: its definitions are read from its source and documentation, not run here",),
)
