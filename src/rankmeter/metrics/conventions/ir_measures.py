"""ir_measures: its names (``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``) are read by rankmeter's grammar, and
its measures equal rankmeter's, ties included (it computes most of them with pytrec_eval)."""

from . import Tool

TOOL = Tool(
    name="ir_measures", title="ir_measures", version="0.3", repository="terrierteam/ir_measures",
    passthrough=True,
)
