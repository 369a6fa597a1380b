"""Rich displays and figures in a real, headless notebook (nbclient + ipykernel, offline): every result type
shows HTML with its ids escaped, and .plot() gives figures the notebook renders as PNG."""

from __future__ import annotations

import base64
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

SETUP = '''
import rankmeter
from rankmeter.compare import compare
from rankmeter.datasets import synthetic
from rankmeter.experiment import experiment
from rankmeter.io import as_run
qrels = {"<script>alert(1)</script>": {"a": 1, "b": 2}, "q&2": {"c": 1}, "q3": {"d": 1}}
bm25 = {"<script>alert(1)</script>": {"a": 2.0, "x": 1.0}, "q&2": {"c": 1.0}, "q3": {"y": 1.0, "d": 0.5}}
dense = {"<script>alert(1)</script>": {"b": 2.0, "a": 1.0}, "q&2": {"z": 1.0}, "q3": {"d": 1.0}}
res = rankmeter.evaluate(qrels, bm25, ["ndcg@5", "P@1", "rr"])
cmp = compare(qrels, {"bm25": bm25, "<b>dense</b>": dense}, ["ndcg@5", "rr"], n_resamples=100)
groups = res.by_group({"<script>alert(1)</script>": "<i>g1</i>", "q&2": "g2", "q3": "g2"})
exp = experiment(synthetic(n_users=40, n_items=50, seed=1), k=5, n_resamples=50, recommenders=("random", "popular"))
run = as_run(bm25)
fused = rankmeter.fuse([bm25, dense], method="rrf")
'''

SHOWN = ["res", "cmp", "groups", "exp", "run", "fused"]
PLOTS = ["res.plot()", "cmp.plot('curves', k_max=5)", "cmp.plot('differences')", "cmp.plot('distribution', 'rr')",
         "exp.plot()"]


@pytest.mark.slow  # starts a kernel (~5-10 s)
def test_displays_and_plots_render_headless() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP)] + [nbformat.v4.new_code_cell(x) for x in SHOWN + PLOTS]
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False)
    client.execute()
    cells = nb.cells[1:]
    for name, cell in zip(SHOWN, cells[: len(SHOWN)], strict=True):
        data = _result(cell)
        html = data.get("text/html", "")
        assert html.startswith("<") and 'class="rankmeter"' in html, name
        assert "<script>alert" not in html and "<b>dense" not in html and "<i>g1" not in html, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in _result(cells[0])["text/html"]  # ids shown, escaped
    assert "&lt;b&gt;dense&lt;/b&gt;" in _result(cells[1])["text/html"]  # run names too
    assert "&lt;i&gt;g1&lt;/i&gt;" in _result(cells[2])["text/html"]  # group names too
    assert "q&amp;2" in _result(cells[4])["text/html"]  # a run's queries
    for code, cell in zip(PLOTS, cells[len(SHOWN):], strict=True):
        png = _result(cell).get("image/png")
        assert png, f"{code} shows no figure"
        assert base64.b64decode(png)[:8] == b"\x89PNG\r\n\x1a\n", code


def _result(cell: Any) -> dict[str, Any]:
    for out in cell.outputs:
        if out.output_type in ("execute_result", "display_data"):
            return dict(out.data)
    raise AssertionError(f"no output for {cell.source!r}: {cell.outputs}")
