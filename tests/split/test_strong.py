"""Strong generalisation: exact partitions, disjoint user groups, fold-in / held-out rules, seeds, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rankmeter._errors import InputError, ParameterError
from rankmeter.split import strong
from rankmeter.split.strong import PARTS

from .helpers import FRACTIONS, SEEDS, interactions, round_ref

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HELD = st.sampled_from([0.2, 0.5, 0.34, 0.75])


def _rows_by_user(table: pa.Table) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for n, u in enumerate(table.column("user").to_pylist()):
        out[str(u)].append(n)
    return out


def _check_partition(s, table: pa.Table) -> None:
    masks = [s.masks[p] for p in PARTS]
    total = np.sum(masks, axis=0)
    assert (total <= 1).all(), "a row is in two parts"
    assert int(total.sum()) + s.summary.dropped_rows == table.num_rows
    for p in PARTS:
        assert s.summary.parts[p].rows == int(s.masks[p].sum())
    # every user's rows are in one group
    by_user = _rows_by_user(table)
    for u, rows in by_user.items():
        group = s.user_group[u]
        where = {p for p in PARTS for r in rows if s.masks[p][r]}
        if group == "train":
            assert where == {"train"}
        elif group == "dropped":
            assert where == set()
        else:
            assert where == {f"{group}_fold_in", f"{group}_heldout"}, (u, where)


@PROPS
@given(interactions(min_rows=4), FRACTIONS, HELD, SEEDS)
def test_fraction_rule(table: pa.Table, f: float, held: float, seed: int) -> None:
    counts = {u: len(r) for u, r in _rows_by_user(table).items()}
    eligible = [u for u, c in counts.items() if c >= 2]
    assume(len(eligible) >= 2 and round_ref(f, len(eligible)) <= len(eligible) - 1)
    s = strong(table, test_users=f, heldout="fraction", heldout_fraction=held, seed=seed)
    _check_partition(s, table)
    tested = [u for u, g in s.user_group.items() if g == "test"]
    assert len(tested) == round_ref(f, len(eligible))
    for u, rows in _rows_by_user(table).items():
        if s.user_group[u] == "test":
            n_held = sum(bool(s.masks["test_heldout"][r]) for r in rows)
            assert n_held == round_ref(held, len(rows))
        if counts[u] < 2:
            assert s.user_group[u] == "train"  # small users are never evaluated
    # deterministic under the seed
    again = strong(table, test_users=f, heldout="fraction", heldout_fraction=held, seed=seed)
    for p in PARTS:
        assert (again.masks[p] == s.masks[p]).all()


@PROPS
@given(interactions(min_rows=4), st.integers(1, 3), SEEDS)
def test_last_rule(table: pa.Table, n_out: int, seed: int) -> None:
    counts = {u: len(r) for u, r in _rows_by_user(table).items()}
    assume(sum(c > n_out for c in counts.values()) >= 2)
    s = strong(table, test_users=0.5, validation_users=0.0, heldout="last", heldout_n=n_out, seed=seed,
               small_users="drop")
    _check_partition(s, table)
    ts = table.column("ts").to_pylist()
    for u, rows in _rows_by_user(table).items():
        if counts[u] <= n_out:
            assert s.user_group[u] == "dropped"
            continue
        if s.user_group[u] != "test":
            continue
        order = sorted(rows, key=lambda r: (ts[r], r))  # timestamp, then input position
        assert [r for r in rows if s.masks["test_heldout"][r]] == sorted(order[-n_out:])


@PROPS
@given(interactions(min_rows=4), st.integers(1, 11), SEEDS)
def test_time_rule_with_validation(table: pa.Table, cutoff: int, seed: int) -> None:
    ts = table.column("ts").to_pylist()
    rows = _rows_by_user(table)
    eligible = [u for u, r in rows.items() if any(ts[i] >= cutoff for i in r) and any(ts[i] < cutoff for i in r)]
    assume(len(eligible) >= 3)
    s = strong(table, test_users=0.34, validation_users=0.34, heldout="time", cutoff=cutoff, seed=seed)
    _check_partition(s, table)
    for part, want in (("validation_heldout", True), ("test_heldout", True), ("validation_fold_in", False),
                       ("test_fold_in", False)):
        assert all((ts[i] >= cutoff) == want for i in np.flatnonzero(s.masks[part]))
    assert s.summary.users["validation"] == round_ref(0.34, len(eligible))


def test_hand_case_and_evaluation_split() -> None:
    data = {"user": list("aaabbbcccddd"), "item": [1, 2, 3] * 4, "ts": [1, 2, 3] * 4}
    s = strong(data, test_users=0.25, heldout="last", heldout_n=1, seed=3)
    tested = [u for u, g in s.user_group.items() if g == "test"]
    assert len(tested) == 1
    ev = s.evaluation_split()
    assert ev.summary.test.rows == 1 and ev.summary.train.rows == 11
    u = tested[0]
    test_row = int(ev.test_rows[0])
    assert data["user"][test_row] == u and data["ts"][test_row] == 3


def test_errors() -> None:
    with pytest.raises(ParameterError, match="test_users"):
        strong({"user": list("aabb"), "item": [1, 2, 1, 2]}, test_users=1.5)
    with pytest.raises(InputError, match="at least one train and one test user"):
        strong({"user": list("aab"), "item": [1, 2, 1]})
    with pytest.raises(ParameterError, match="leave no train user"):
        strong({"user": list("aabbcc"), "item": [1, 2] * 3}, test_users=0.5, validation_users=0.5)
    with pytest.raises(ParameterError, match="cutoff"):
        strong({"user": list("aabb"), "item": [1, 2, 1, 2], "ts": [1, 2, 1, 2]}, heldout="time")
    with pytest.raises(InputError, match="1 of 3 users"):
        strong({"user": list("aabbc"), "item": [1, 2, 1, 2, 1]}, small_users="error")


def test_cli(tmp_path) -> None:
    src = tmp_path / "d.csv"
    src.write_text("user,item,ts\n" + "".join(f"{u},{i},{i}\n" for u in "abcdef" for i in range(4)))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "strong",
                           "--test-users", "0.34", "--heldout", "last", "--heldout-n", "1", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "2 test" in proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parts"]["test_heldout"]["rows"] == 2
    # no validation users: no empty validation files, and the summary says so (issue 24 item 18)
    assert set(summary["files"]) == {p for p in PARTS if not p.startswith("validation")}
    assert not list(out.glob("validation*")) and "0 users (--validation-users): no validation files written" \
        in proc.stderr
    with_val = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "strong",
                               "--test-users", "0.34", "--validation-users", "0.17", "--out", str(tmp_path / "v")],
                              capture_output=True, text=True)
    assert with_val.returncode == 0, with_val.stderr
    assert set(json.loads((tmp_path / "v" / "summary.json").read_text())["files"]) == set(PARTS)
    import pyarrow.parquet as pq
    held = pq.read_table(out / "test_heldout.parquet")
    assert held.column("ts").to_pylist() == [3, 3]
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "strong", "--k", "2",
                          "--out", str(tmp_path / "o2")], capture_output=True, text=True)
    assert bad.returncode == 2 and "--k does not apply to --method strong" in bad.stderr
    again = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "strong",
                            "--out", str(out), "--overwrite"], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
