"""Every fact about a metric lives on its spec: trec_eval names, count flag, SQL names; no side tables."""

from __future__ import annotations

import re

import pytest

from rankmeter.metrics.registry import (
    MetricSpec, TrecName, all_specs, is_count, parse_metric, register, sql_functions, trec_output_name,
)

SPECS = all_specs()


@pytest.mark.parametrize("text,printed", [
    ("p@10", "P_10"), ("P.10", "P_10"), ("P_5", "P_5"), ("recall@100", "recall_100"), ("r", "set_recall"),
    ("ndcg@10", "ndcg_cut_10"), ("ndcg", "ndcg"), ("ap", "map"), ("map_cut.100", "map_cut_100"),
    ("rr", "recip_rank"), ("mrr", "recip_rank"), ("rprec", "Rprec"), ("bpref", "bpref"), ("success@1", "success_1"),
    ("set_P", "set_P"), ("num_ret", "num_ret"), ("num_rel", "num_rel"), ("num_rel_ret", "num_rel_ret"),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
    ("ndcg(gain=exp)@10", None), ("p(rel=2)@10", None), ("ap(norm=min)", None), ("err@20", None), ("rr@10", None),
    ("num_ret@10", None), ("auc", None),
])
def test_trec_output_name(text, printed) -> None:
    assert trec_output_name(text) == printed


def test_every_trec_output_name_parses_back_to_the_same_metric() -> None:
    # a trec_eval name that is also the name of one of rankmeter's own metrics (``rbp``) means rankmeter's
    # in `evaluate` (docs/trec_eval.md); the trec_eval command and the pytrec_eval drop-in map it to trec_eval's
    own = {s.name for s in SPECS}
    for spec in SPECS:
        for t in spec.trec_names:
            if t.name in own and t.name != spec.name:
                assert parse_metric(t.name).spec.name == t.name
                continue
            if t.param is not None:  # printed with its parameter, as trec_eval does: iprec_at_recall_0.10
                for x in (0.0, 0.1, 0.5, 1.0):
                    printed = f"{t.name}_{x:.2f}"
                    m = parse_metric(printed)
                    assert m.spec is spec and m.params[t.param] == x
                    assert trec_output_name(m) == printed
                continue
            for k in ([1, 10, 1000] if t.cutoff else [None]):
                printed = t.name + (f"_{k}" if k else "")
                m = parse_metric(printed)
                assert m.spec is spec and m.k == k
                assert trec_output_name(m) == printed
                if k:
                    assert parse_metric(f"{t.name}.{k}") == m


@pytest.mark.parametrize("name", ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "hits", "tp", "fp",
                                  "fn", "tn"])
def test_counts(name) -> None:
    assert get_count(name)


def get_count(name: str) -> bool:
    return is_count(name) and parse_metric(name).spec.count


def test_only_counts_are_counts() -> None:
    counts = {s.name for s in SPECS if s.count}
    assert counts == {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "hits", "tp", "fp", "fn", "tn",
                      "num_q"}
    assert not is_count("ndcg@10") and not is_count("p@10")


def test_sql_functions_from_the_specs() -> None:
    from rankmeter.engines import sqlfuncs as _listfuncs

    expected = {"precision": "p", "precision_at": "p", "recall": "r", "recall_at": "r", "average_precision": "ap",
                "auc": "auc", "mrr": "rr", "ndcg": "ndcg", "hit_rate": "success", "hitrate": "success"}
    assert sql_functions() == expected
    assert _listfuncs.SQL_FUNCTIONS == expected


def test_a_name_is_claimed_once() -> None:
    def spec(**kw) -> MetricSpec:
        return MetricSpec(name="zz_test_metric", family="ranking", summary="", formula="", citation="",
                          kernel=lambda b: None, **kw)

    with pytest.raises(RuntimeError, match="trec_eval name 'P' .* is taken by 'p'"):
        register(spec(trec_names=(TrecName("P", cutoff=True),)))
    with pytest.raises(RuntimeError, match="SQL name 'mrr' .* is taken by 'rr'"):
        register(spec(sql_name="mrr"))
    parse_metric("ndcg")  # the registry is unchanged
    assert "zz_test_metric" not in {s.name for s in all_specs()}


SEED_LABEL = re.compile(r"\bseeds? ?0\d\d", re.IGNORECASE)


def test_user_texts_name_their_sources_not_seed_numbers() -> None:
    from rankmeter.metrics.catalogue import render_markdown

    for spec in SPECS:
        texts = [spec.summary, spec.formula, spec.citation, spec.convention]
        texts += [getattr(ex, "note", "") for ex in spec.examples]
        for t in texts:
            assert not SEED_LABEL.search(t), f"{spec.name}: {t!r}"
    assert not SEED_LABEL.search(render_markdown())


def test_no_metric_text_holds_a_control_character() -> None:
    # (a formula written as "\frac" in a plain string holds a form feed, not a backslash)
    for spec in SPECS:
        for field in ("summary", "formula", "reference", "convention"):
            text = getattr(spec, field, "")
            if not isinstance(text, str):
                continue
            assert not re.search(r"[\x00-\x09\x0b-\x1f]", text), (spec.name, field, text)
