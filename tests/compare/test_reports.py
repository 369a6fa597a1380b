"""Report formats: Markdown, LaTeX, CSV, terminal, self-contained HTML (and headless Chromium)."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from rankmeter import MissingExtraError
from rankmeter.compare import compare


@pytest.fixture(scope="module")
def cmp(data):
    qrels, runs = data
    runs = {"base_line": runs["sys0"], "strong": runs["sys1"], "mid & more": runs["sys2"]}
    return compare(qrels, runs, ["ndcg@10", "P@5"], test=["t", "randomization"], n_resamples=500)


def test_markdown(cmp):
    md = cmp.to_markdown()
    assert "| run | ndcg@10 ↑ | P@5 ↑ |" in md
    strong = next(line for line in md.splitlines() if line.startswith("| strong"))
    assert "**" in strong and "▲" in strong  # best and significantly better than the baseline
    assert "▲/▼: significantly better/worse than base_line (paired t-test, Holm-adjusted p < 0.05)" in md
    assert "Holm correction within each metric and test (2 comparisons each)" in md
    assert md.count("\n| ndcg@10 |") == 4  # 2 pairs x 2 tests


def test_latex(cmp):
    tex = cmp.to_latex()
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"base\_line" in tex and r"mid \& more" in tex
    assert re.search(r"strong & \\textbf\{[0-9.]+\}\$\^\{\\uparrow\}\$", tex)
    caption = next(line for line in tex.splitlines() if line.startswith(r"\caption"))
    assert r"$^{\uparrow}$/$^{\downarrow}$: significantly better/worse than base\_line" in caption
    assert "Holm" in caption and "bold" in caption
    with_ci = cmp.to_latex(intervals=True, digits=2)
    assert r"{\scriptsize [" in with_ci and "bootstrap interval" in with_ci
    assert tex.count(r"\begin{tabular}{lrr}") == 1


def test_csv(cmp):
    rows = list(csv.DictReader(io.StringIO(cmp.to_csv())))
    means = [r for r in rows if r["kind"] == "mean"]
    diffs = [r for r in rows if r["kind"] == "diff"]
    assert len(means) == 6 and len(diffs) == 8
    r = next(r for r in means if r["run"] == "strong" and r["metric"] == "P@5")
    assert float(r["value"]) == cmp.means["strong"]["P@5"]
    d = next(r for r in diffs if r["test"] == "t" and r["metric"] == "ndcg@10" and r["run"] == "strong")
    t = cmp.test("ndcg@10", "base_line", "strong", "t")
    assert float(d["p_adjusted"]) == t.p_adjusted and d["against"] == "base_line" and d["correction"] == "holm"


def test_terminal(cmp):
    from rich.console import Console

    console = Console(file=io.StringIO(), width=200, color_system=None)
    cmp.print(console)
    out = console.file.getvalue()
    assert "strong" in out and "▲" in out and "(baseline)" in out and "Paired tests" in out
    assert "Holm" in out


def test_html_self_contained(cmp, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "report.html"
    text = cmp.to_html(path, k_max=30)
    assert path.read_text(encoding="utf-8") == text
    for banned in ("http://", "https://", 'src="//', "src='//", "<script", "<link", "@import", "url("):
        assert banned not in text, banned
    srcs = re.findall(r'src="([^"]*)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    # 2 curves + 2 difference figures + 2 distributions
    assert len(srcs) == 6
    assert "Test settings" in text and "Holm" in text and "seed" in text.lower()
    assert "ndcg@k" in text and "Per-query differences" in text
    assert "mid &amp; more" in text


def test_html_without_rankings_explains_missing_curves():
    pytest.importorskip("matplotlib")
    from rankmeter.result import Result

    rng = np.random.default_rng(0)
    q = [f"q{i}" for i in range(20)]
    c = compare(None, {"a": Result(q, {"m": rng.random(20)}), "b": Result(q, {"m": rng.random(20)})},
                n_resamples=100)
    text = c.to_html()
    assert "No metric@k curves" in text and "precomputed" in text


def test_html_needs_matplotlib(cmp, monkeypatch):
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(MissingExtraError, match="rankmeter\\[report\\]"):
        cmp.to_html()


def _png_nonwhite_fraction(path) -> float:
    from matplotlib import image

    img = image.imread(str(path))
    rgb = img[..., :3]
    if rgb.dtype != np.float32 and rgb.max() > 1:
        rgb = rgb / 255.0
    return float(np.mean(np.any(rgb < 0.9, axis=-1)))


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _chromium(*args: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_html_renders_in_headless_chromium(cmp, tmp_path):
    pytest.importorskip("matplotlib")
    page = tmp_path / "report.html"
    cmp.to_html(page, k_max=30)
    shot = tmp_path / "shot.png"
    proc = _chromium(f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri(), tmp_path=tmp_path)
    assert shot.exists(), proc.stderr[-2000:]
    # tables and figures: a blank page would be almost entirely white
    assert _png_nonwhite_fraction(shot) > 0.05
    dom = _chromium("--dump-dom", page.as_uri(), tmp_path=tmp_path).stdout
    imgs = re.findall(r"<img [^>]*>", dom)
    assert len(imgs) == 6 and all('src="data:image/png;base64,' in i for i in imgs)
    # the figures decoded and drew: the plot colours (tab10 blue of the first run's curve, the green
    # bars of the difference plots) cover many pixels; text and tables never use them
    from matplotlib import image

    arr = image.imread(str(shot))[..., :3]
    arr = arr if arr.max() <= 1 else arr / 255.0

    def near(rgb):
        return int(np.sum(np.all(np.abs(arr - np.array(rgb) / 255.0) < 0.08, axis=-1)))

    assert near((31, 119, 180)) > 300  # tab:blue
    assert near((46, 139, 87)) > 3000  # the green bars
