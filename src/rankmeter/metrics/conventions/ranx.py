"""ranx: its names are read by rankmeter's grammar; it orders tied scores arbitrarily (a numba sort of
the scores), so its values are reproduced on runs without ties only. Naming trap: ranx's ``ndcg``
(labelled Järvelin) is rankmeter's default ``ndcg``, not ``ndcg_jarvelin``."""

from . import Entry, Tool

_TIES = "ranx orders tied scores arbitrarily (an unstable sort of the scores): equal on runs without ties only"
_SRC = "ranx/metrics/"

TOOL = Tool(
    name="ranx", title="ranx", version="0.3.21", repository="AmenRa/ranx",
    passthrough=True, passthrough_note=_TIES,
    entries={
        "rbp": Entry("rbp(gain=grade)", _SRC + "rank_biased_precision.py:12 (_rank_biased_precision)",
                     differs="the gain is the judged grade, not 1 for relevant items", cannot=_TIES),
        "ndcg": Entry("ndcg", _SRC + "ndcg.py:57 (_ndcg, linear gains, 1/log2(i+1))",
                      differs="ranx labels it Järvelin; it is rankmeter's default ndcg", cannot=_TIES),
        "ndcg_burges": Entry("ndcg(gain=exp)", _SRC + "ndcg.py:57 (_ndcg, 2^g - 1)", cannot=_TIES),
        "dcg": Entry("dcg", _SRC + "dcg.py", cannot=_TIES),
        "precision": Entry("p", _SRC + "precision.py", cannot=_TIES),
        "recall": Entry("r", _SRC + "recall.py", cannot=_TIES),
        "f1": Entry("f", _SRC + "f1.py", cannot=_TIES),
        "hits": Entry("hits", _SRC + "hits.py", cannot=_TIES),
        "hit_rate": Entry("success", _SRC + "hit_rate.py", cannot=_TIES),
        "mrr": Entry("rr", _SRC + "reciprocal_rank.py", cannot=_TIES),
        "map": Entry("ap", _SRC + "average_precision.py", cannot=_TIES),
        "r_precision": Entry("rprec", _SRC + "r_precision.py", cutoff="none", cannot=_TIES),
    },
)
