"""The metric-name grammar: a round-trip table of accepted spellings, and clear errors."""

from __future__ import annotations

import pytest

from rankmeter import MetricNameError, ParameterError, parse_metric

TABLE = [
    # written, canonical
    ("ndcg@10", "ndcg@10"), ("nDCG@10", "ndcg@10"), ("NDCG_CUT.10", "ndcg@10"), ("ndcg_cut_10", "ndcg@10"),
    ("nDCG(dcg='exp-log2')@10", "ndcg(gain=exp)@10"), ("ndcg_burges@10", "ndcg(gain=exp)@10"),
    ("ndcg_jarvelin@5", "ndcg(discount=jarvelin)@5"), ("ndcg(gain=exp, discount=jarvelin)", "ndcg(gain=exp,discount=jarvelin)"),
    ("P_10", "p@10"), ("P.10", "p@10"), ("P@10", "p@10"), ("precision@10", "p@10"),
    ("R@100", "r@100"), ("recall@100", "r@100"), ("recall_100", "r@100"),
    ("map", "ap"), ("MAP", "ap"), ("AP", "ap"), ("map@100", "ap@100"), ("map_cut.100", "ap@100"), ("AP(rel=2)@100", "ap(rel=2)@100"),
    ("ap(norm=min)@5", "ap(norm=min)@5"), ("recip_rank", "rr"), ("RR", "rr"), ("mrr@10", "rr@10"),
    ("Rprec", "rprec"), ("r-precision", "rprec"), ("Success@10", "success@10"), ("success_10", "success@10"),
    ("hit_rate@10", "success@10"), ("hits@10", "hits@10"), ("f1@10", "f@10"), ("f(beta=2)@10", "f(beta=2)@10"),
    ("RBP(p=0.8)", "rbp"), ("rbp(p=0.95)", "rbp(p=0.95)"), ("rbp_resid", "rbp(residual=true)"), ("bpref", "bpref"),
    ("num_ret", "num_ret"), ("num_rel", "num_rel"), ("num_rel_ret", "num_rel_ret"), ("err@20", "err@20"),
    ("rank_score(alpha=5)", "rank_score(alpha=5)"), ("lift_index@10", "lift_index@10"), ("auc@2", "auc@2"),
    ("set_P", "p(norm=retrieved)"),
]


@pytest.mark.parametrize("written,canonical", TABLE)
def test_round_trip(written: str, canonical: str) -> None:
    m = parse_metric(written)
    assert m.canonical == canonical
    assert m.text == written.strip()
    assert parse_metric(m.canonical).canonical == canonical  # the canonical form parses to itself


@pytest.mark.parametrize(
    "text,error,needle",
    [
        ("ndgc@10", MetricNameError, "did you mean ndcg"),
        ("ndcg@0", ParameterError, "must be an int >= 1. Got 0"),
        ("ndcg@x", ParameterError, "Got 'x'"),
        ("ndcg(gain=cubic)", ParameterError, "one of linear, exp"),
        ("rbp(p=1.5)", ParameterError, "in (0, 1)"),
        ("ndcg(foo=1)", MetricNameError, "no parameter 'foo'"),
        ("num_rel@10", MetricNameError, "takes no cutoff"),
        ("ndcg((", MetricNameError, "cannot parse"),
        ("p(rel=2,rel=3)", MetricNameError, "given twice"),
    ],
)
def test_errors(text, error, needle) -> None:
    with pytest.raises(error) as exc:
        parse_metric(text)
    assert needle in str(exc.value)


def test_results_keyed_by_what_the_user_wrote() -> None:
    import rankmeter

    res = rankmeter.evaluate({"q": ["a"]}, {"q": ["a", "b"]}, ["P_1", "p@1", "precision@1"])
    assert list(res.mean) == ["P_1", "p@1", "precision@1"]
