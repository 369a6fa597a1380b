"""pytrec_eval runs trec_eval 9.0.8 as a library: its measures are trec_eval's (rankmeter's own)."""

from . import Tool

TOOL = Tool(
    name="pytrec_eval", title="pytrec_eval", version="0.5", repository="cvangysel/pytrec_eval",
    passthrough=True,
    notes=("pytrec_eval reads judgments and runs as dicts; a query missing from the run is not evaluated "
           "(queries='run' reproduces it)",),
)
