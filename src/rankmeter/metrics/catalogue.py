"""The metric catalogue as Markdown, generated from the registry (docs/metrics.md).

``rankmeter metrics --markdown > docs/metrics.md`` regenerates the page; a test
fails when the committed page and the registry disagree.
"""

from __future__ import annotations

from .registry import Example, MetricSpec, all_specs

__all__ = ["render_markdown", "SOURCES"]

# The sources of the worked examples, by the short name the examples' notes use.
SOURCES: tuple[tuple[str, str], ...] = (
    ("Hivemall", "Apache Hivemall's documentation of its ranking measures (precision, recall, MAP, MRR, AUC, "
                 "nDCG on recommended and truth lists, graded nDCG)"),
    ("NDCG article", "\"予測ランキング評価指標: NDCGの2つの定義と特徴の比較\", a blog article comparing the two "
                     "definitions of nDCG (Järvelin & Kekäläinen 2002, Burges et al. 2005) on one worked example"),
    ("python-recsys", "the evaluation documentation of python-recsys (MAE, RMSE, precision, recall, F, Spearman, "
                      "Kendall, reciprocal rank, average precision)"),
    ("ranking-metrics guide", "a guide to ranking evaluation metrics after Ilya Markov's lecture on offline "
                              "evaluation (precision, recall, AP, RR, nDCG, RBP, ERR)"),
    ("evaluation notes", "notes on evaluating recommender systems (2015) after Gunawardana & Shani (JMLR 2009), "
                         "Herlocker et al. (TOIS 2004) and Ge et al. (RecSys 2010): MAE variants, costs, "
                         "half-life utility, coverage, serendipity"),
)


def _params(spec: MetricSpec) -> str:
    if not spec.params:
        return "none"
    out = []
    for p in spec.params:
        out.append(f"`{p.name}={p.default}` ({p.expected.replace('|', chr(92) + '|')}): {p.doc}")
    return "<br>".join(out)


def _example(spec: MetricSpec, ex: object) -> str:
    if not isinstance(ex, Example):
        # other example kinds (with a context, on ratings): name, value and note, in a
        # deterministic form (their inputs may hold sets, whose printed order varies)
        metric = getattr(ex, "metric", spec.name)
        value = getattr(ex, "value", None)
        note = getattr(ex, "note", "")
        shown = f"{value:.6g}" if isinstance(value, (int, float)) else str(value)
        return f"`{metric}` = {shown}" + (f" ({note})" if note else "")
    params = ",".join(f"{k}={v}" for k, v in ex.params.items())
    name = spec.name + (f"({params})" if params else "") + (f"@{ex.k}" if ex.k is not None else "")
    judged = ", ".join(f"{d}:{g:g}" for d, g in ex.qrels.items())
    note = f" ({ex.note})" if ex.note else ""
    return f"`{name}` of ranking [{', '.join(ex.ranking)}] with judgments {{{judged}}} = {ex.value:.6g}{note}"


def render_markdown() -> str:
    specs = all_specs()
    lines = [
        "# Metric catalogue",
        "",
        "Generated from the registry by `rankmeter metrics --markdown`; do not edit by hand.",
        "Names follow `name(param=value,...)@k`, case-insensitive; aliases and trec_eval,",
        "ir_measures and ranx spellings are accepted (see the README).",
        "",
        "Worked examples name the source they reproduce: "
        + "; ".join(f"*{short}*: {text}" for short, text in SOURCES) + ".",
        "",
        "| metric | family | reads | level | @k | higher is better | aliases | summary |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in specs:
        aliases = ", ".join(f"`{a}`" for a in s.aliases) or ""
        lines.append(f"| [`{s.name}`](#{s.name}) | {s.family} | {s.input} | {s.level} | "
                     f"{'yes' if s.cutoff else 'no'} | {'yes' if s.higher_is_better else 'no'} | {aliases} | "
                     f"{s.summary} |")
    for s in specs:
        lines += ["", f"## {s.name}", "", s.summary, "", f"- formula: `{s.formula}`"]
        if s.convention:
            lines.append(f"- convention: {s.convention}")
        lines.append(f"- reference: {s.citation}")
        lines.append(f"- parameters: {_params(s)}")
        if s.bounds is not None:
            lines.append(f"- range: [{s.bounds[0]:g}, {s.bounds[1]:g}]")
        if s.trec_names:
            names = ", ".join(f"`{t.name}_k`" if t.cutoff else f"`{t.name}`" for t in s.trec_names)
            lines.append(f"- trec_eval: {names} (equal values, tested against trec_eval's outputs)")
        if s.sql_name:
            lines.append("- SQL function (DuckDB, Spark): " + ", ".join(f"`{n}`" for n in (s.sql_name, *s.sql_aliases)))
        if s.count:
            lines.append("- a count: printed as an integer, summed over queries on trec_eval's `all` line")
        if s.ties:
            rules = ", ".join(r for r in ("average", "optimistic", "pessimistic") if r in s.ties)
            unless = "; ".join(f"{mode}: not with " + ", ".join(f"{p}={v}" for p, vs in ex.items() for v in vs)
                               for mode, ex in s.ties_except.items())
            lines.append(f"- tie rules besides the id rule (ties=): {rules}" + (f" ({unless})" if unless else ""))
        for ex in s.examples:
            lines.append(f"- example: {_example(s, ex)}")
    return "\n".join(lines) + "\n"
