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
    ("RBP(p=0.8)", "rbp"), ("rbp(p=0.95)", "rbp(p=0.95)"), ("rbp_resid", "trec_rbp(residual=true)"), ("bpref", "bpref"),
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
        ("rbp(p=1.5)", ParameterError, "must be a finite number in the range (0, 1). Got 1.5 instead."),
        # loose forms the strict grammar refuses
        ("ndcg@1e1", ParameterError, "The 'k' parameter of ndcg must be an int >= 1. Got '1e1' instead."),
        ("ndcg@1_0", ParameterError, "Got '1_0' instead"),
        ("ndcg@\uff11\uff10", ParameterError, "must be an int >= 1"),
        ("P_\uff11\uff10", MetricNameError, "cannot parse"),
        ("ndcg@10.0", ParameterError, "Got '10.0' instead"),
        ("ndcg@+10", None, None),
        ("ndcg@ 10 10", ParameterError, "Got '10 10'"),
        ("nDCG(dcg='exp-log2)@10", MetricNameError, "unbalanced quote"),
        ("nDCG(dcg=exp-log2')@10", MetricNameError, "unbalanced quote"),
        ("ndcg(gain='exp)", MetricNameError, "unbalanced quote"),
        ("ndcg(gain=ex'p')", ParameterError, "unbalanced quote"),
        ("rbp(p=0_5)", ParameterError, "Got '0_5' instead"),
        ("rbp(p=\uff10.5)", ParameterError, "must be a finite number"),
        ("ndcg@10@5", ParameterError, "Got '10@5'"),
        ("ndcg@", MetricNameError, "nothing after '@'"),
        ("ndcg(gain=exp", MetricNameError, "missing ')'"),
        ("ndcg(gain=exp) x", MetricNameError, "unexpected 'x'"),
        ("\u00e9ndcg@10", MetricNameError, "ASCII letter"),
        # numbers are finite and ints fit in 64 bits
        ("ndcg@inf", ParameterError, "The 'k' parameter of ndcg must be an int >= 1. Got 'inf' instead."),
        ("ndcg@99999999999999999999999", ParameterError,
         "must be an int >= 1 (at most 9223372036854775807, 64 bits). Got 99999999999999999999999 instead."),
        ("tn(catalog=inf)", ParameterError, "The 'catalog' parameter of tn must be an int >= 1. Got 'inf' instead."),
        ("tn(catalog=1e30)", ParameterError, "must be an int >= 1. Got '1e30' instead."),
        ("tn(catalog=99999999999999999999)", ParameterError, "64 bits"),
        ("p(rel=nan)", ParameterError, "The 'rel' parameter of p must be a finite number. Got 'nan' instead."),
        ("p(rel=1e999)", ParameterError, "must be a finite number. Got '1e999' instead."),
        ("f(beta=inf)", ParameterError,
         "The 'beta' parameter of f must be a finite number in the range (0, 1e+150). Got 'inf' instead."),
        ("entropy(base=1)", ParameterError, "must be a finite number > 0 and != 1. Got 1.0 instead."),
        ("rbp(residual=maybe)", ParameterError, "must be a boolean"),
        ("ndcg(foo=1)", MetricNameError, "no parameter 'foo'"),
        ("num_rel@10", MetricNameError, "takes no cutoff"),
        ("ndcg((", MetricNameError, "cannot parse"),
        ("p(rel=2,rel=3)", MetricNameError, "given twice"),
    ],
)
def test_errors(text, error, needle) -> None:
    if error is None:  # accepted
        parse_metric(text)
        return
    with pytest.raises(error) as exc:
        parse_metric(text)
    assert needle in str(exc.value)


def test_results_keyed_by_what_the_user_wrote() -> None:
    import rankmeter

    res = rankmeter.evaluate({"q": ["a"]}, {"q": ["a", "b"]}, ["P_1", "p@1", "precision@1"])
    assert list(res.mean) == ["P_1", "p@1", "precision@1"]


def test_canonical_floats_round_trip() -> None:
    """Two different parameter values never share a canonical name (which drives equality)."""
    a, b = parse_metric("rbp(p=0.1234567)"), parse_metric("rbp(p=0.1234568)")
    assert a.canonical == "rbp(p=0.1234567)" and a != b
    assert parse_metric(a.canonical) == a


# ----------------------------------------------------------------------------- metric lists

from rankmeter.metrics.registry import parse_metric_list, split_metric_list  # noqa: E402


@pytest.mark.parametrize(
    "texts,expected",
    [
        ("ndcg@10,map", ["ndcg@10", "map"]),
        (["ndcg@10", "map"], ["ndcg@10", "map"]),
        ("f(beta=2,rel=2)@10", ["f(beta=2,rel=2)@10"]),
        ("f(beta=2, rel=2)@10, P.5,10", ["f(beta=2, rel=2)@10", "P_5", "P_10"]),
        ("P.5,10", ["P_5", "P_10"]),
        ("ndcg_cut.5,10,20", ["ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_20"]),
        ("recall.1,3,map", ["recall_1", "recall_3", "map"]),
        ("ndcg@5,10", ["ndcg@5", "ndcg@10"]),
        ("nDCG(dcg='exp,log2')@5", ["nDCG(dcg='exp,log2')@5"]),
    ],
)
def test_split_metric_list(texts, expected) -> None:
    got = [m for t in ([texts] if isinstance(texts, str) else texts) for m in split_metric_list(t)]
    assert got == expected


def test_parse_metric_list_values_and_keys() -> None:
    ms, notes = parse_metric_list(["P.5,10", "ndcg_cut.5,10", "map"])
    assert [m.canonical for m in ms] == ["p@5", "p@10", "ndcg@5", "ndcg@10", "ap"]
    assert [m.text for m in ms] == ["P_5", "P_10", "ndcg_cut_5", "ndcg_cut_10", "map"]
    assert notes == ()


def test_parse_metric_list_deduplicates_with_a_note() -> None:
    ms, notes = parse_metric_list(["ndcg@10,map", "ndcg@10", "AP", "P_10", "p@10"])
    assert [m.text for m in ms] == ["ndcg@10", "map", "P_10"]
    assert notes == (
        "metric 'ndcg@10' given twice: evaluated once",
        "metric 'AP' is the same as 'map' (ap): evaluated once, as 'map'",
        "metric 'p@10' is the same as 'P_10' (p@10): evaluated once, as 'P_10'",
    )


@pytest.mark.parametrize("texts,needle", [("ndcg@10,,map", "empty metric"), ("ndcg@10,", "empty metric"),
                                          ([], "no metric"), ("10", "cannot parse"), ("ndcg@10,ndgc", "did you mean")])
def test_parse_metric_list_errors(texts, needle) -> None:
    with pytest.raises(MetricNameError, match=needle):
        parse_metric_list(texts)


def test_parse_metrics_keeps_both_spellings_and_refuses_same_text() -> None:
    from rankmeter.metrics.registry import parse_metrics

    assert [m.text for m in parse_metrics(["P_10", "p@10"])] == ["P_10", "p@10"]
    with pytest.raises(MetricNameError, match="given twice"):
        parse_metrics(["map", "map"])
