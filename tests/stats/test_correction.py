"""Multiple-testing corrections against statsmodels' multipletests."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import ParameterError
from rankmeter.stats import adjust, benjamini_hochberg, bonferroni, holm
from rankmeter.stats.correction import correction_name

multitest = pytest.importorskip("statsmodels.stats.multitest")

pvalues = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.001, 0.01, 0.05, 0.5, 1.0])),  # ties and bounds
    min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(pvalues)
def test_equal_to_statsmodels(p):
    # multipletests runs gc.collect() on every call (0.15 s here): skip that, it changes no value
    with mock.patch("gc.collect", lambda *a: 0):
        for ours, theirs in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
            ref = multitest.multipletests(p, method=theirs)[1]
            assert np.allclose(adjust(p, ours), ref, rtol=0, atol=1e-15), (ours, p)


def test_hand_worked():
    p = [0.01, 0.04, 0.03, 0.20]
    # Holm: sorted 0.01*4, 0.03*3, 0.04*2, 0.2*1 -> 0.04, 0.09, 0.09 (monotone), 0.2
    assert holm(p).tolist() == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert bonferroni(p).tolist() == pytest.approx([0.04, 0.16, 0.12, 0.8])
    # BH: 0.01*4/1=0.04, 0.03*4/2=0.06, 0.04*4/3=0.0533 -> min from the top: 0.04, 0.0533, 0.0533, 0.2
    assert benjamini_hochberg(p).tolist() == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.2])
    assert adjust(p, "none").tolist() == p


def test_aliases_names_and_errors():
    assert np.array_equal(adjust([0.1, 0.2], "fdr_bh"), adjust([0.1, 0.2], "bh"))
    assert correction_name("bh") == "Benjamini-Hochberg" and correction_name("holm") == "Holm"
    with pytest.raises(ParameterError, match="correction"):
        adjust([0.1], "sidak")
    with pytest.raises(ParameterError, match=r"\[0, 1\]"):
        adjust([1.5], "holm")
    assert adjust([], "holm").size == 0
