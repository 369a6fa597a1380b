"""trec_eval's conventions are rankmeter's own: every trec_eval name rankmeter reads (``P_10``, ``map``,
``ndcg_cut.10``) is trec_eval's measure, ties by item id descending (``form_res_rels.c``)."""

from . import Tool

TOOL = Tool(
    name="trec_eval", title="trec_eval", version="9.0.8", repository="usnistgov/trec_eval",
    passthrough=True,
)
