"""validation_fraction on every split protocol: exact partitions, seeds, the protocol's own rule, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, assume, given, settings

from rankmeter.split import holdout, kfold, leave_k_out, temporal

from .helpers import FRACTIONS, SEEDS, interactions, round_ref

PROPS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _partition(s, table: pa.Table) -> None:
    v = s.validation_mask
    assert v is not None
    assert not (v & s.train_mask).any() and not (v & s.test_mask).any()
    assert s.summary.train.rows + s.summary.validation.rows + s.summary.test.rows + s.summary.dropped_rows \
        == table.num_rows
    assert s.summary.validation.rows == int(v.sum())


def _by_user(table: pa.Table, mask: np.ndarray) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for n, u in enumerate(table.column("user").to_pylist()):
        if mask[n]:
            out[str(u)].append(n)
    return out


@PROPS
@given(interactions(min_rows=2), FRACTIONS, FRACTIONS, SEEDS)
def test_holdout_per_user(table: pa.Table, f: float, vf: float, seed: int) -> None:
    users = table.column("user").to_pylist()
    assume(any(users.count(u) >= 2 for u in set(users)))
    plain = holdout(table, test_fraction=f, per_user=True, seed=seed)
    s = holdout(table, test_fraction=f, per_user=True, seed=seed, validation_fraction=vf)
    _partition(s, table)
    assert (s.test_mask == plain.test_mask).all()  # the test part does not move
    was = _by_user(table, plain.train_mask)
    val = _by_user(table, s.validation_mask)
    for u, rows in was.items():
        assert len(val.get(u, [])) == round_ref(vf, len(rows))
    again = holdout(table, test_fraction=f, per_user=True, seed=seed, validation_fraction=vf)
    assert (again.validation_mask == s.validation_mask).all()


@PROPS
@given(interactions(min_rows=2), FRACTIONS)
def test_temporal_global_takes_the_latest_training_rows(table: pa.Table, vf: float) -> None:
    s = temporal(table, test_fraction=0.2, validation_fraction=vf)
    _partition(s, table)
    ts = table.column("ts").to_pylist()
    key = lambda r: (ts[r], r)  # noqa: E731
    train = [key(r) for r in np.flatnonzero(s.train_mask)]
    val = [key(r) for r in np.flatnonzero(s.validation_mask)]
    if train and val:
        assert max(train) < min(val)
    n = len(train) + len(val)
    assert len(val) == round_ref(vf, n)


@PROPS
@given(interactions(min_rows=2), FRACTIONS, SEEDS)
def test_leave_k_out_and_kfold(table: pa.Table, vf: float, seed: int) -> None:
    users = {str(u) for u in table.column("user").to_pylist()}
    counts = defaultdict(int)
    for u in table.column("user").to_pylist():
        counts[str(u)] += 1
    if max(counts.values()) >= 2:
        s = leave_k_out(table, k=1, validation_fraction=vf)
        _partition(s, table)
        ts = table.column("ts").to_pylist()
        tr, va = _by_user(table, s.train_mask), _by_user(table, s.validation_mask)
        for u in users:
            if tr.get(u) and va.get(u):
                assert max((ts[r], r) for r in tr[u]) < min((ts[r], r) for r in va[u])
    if len(table) >= 2:
        folds = kfold(table, folds=2, seed=seed, validation_fraction=vf)
        for f in folds:
            _partition(f, table)


def test_cli_writes_the_validation_file(tmp_path) -> None:
    src = tmp_path / "d.csv"
    src.write_text("user,item,ts\n" + "".join(f"{u},{i},{i}\n" for u in "abcd" for i in range(10)))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "temporal", "--per-user",
                           "--k", "2", "--validation-fraction", "0.25", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["validation"]["rows"] == 8 and summary["test"]["rows"] == 8 and summary["train"]["rows"] == 24
    import pyarrow.parquet as pq
    assert sorted(set(pq.read_table(out / "validation.parquet").column("ts").to_pylist())) == [6, 7]
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "split", str(src), "--method", "strong",
                          "--validation-fraction", "0.2", "--out", str(tmp_path / "o2")], capture_output=True, text=True)
    assert bad.returncode == 2 and "--validation-fraction does not apply to --method strong" in bad.stderr
