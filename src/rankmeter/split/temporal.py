"""Temporal splits: a global cut-off in time, or each user's latest interactions.

The tie rule
------------
Interactions are ordered by timestamp, then by their position in the input (the row
that comes later in the input counts as later). So among equal timestamps the last
rows of the input go to test first. The rule is deterministic and needs no seed.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
from fractions import Fraction
from typing import Any, cast

import numpy as np

from .._errors import InputError, ParameterError
from ..io.interactions import Interactions
from ._common import (
    Prepared,
    SmallUsersPolicy,
    Split,
    check_choice,
    check_fraction,
    check_int,
    check_small_policy,
    count_per,
    finish,
    load,
    participating,
    prepare,
    round_count,
    segment_mask,
)
from .validation import with_validation

__all__ = ["temporal"]

_NS_PER = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1, "D": 86_400 * 10**9}
_TIME_UNITS = ("s", "ms", "us", "ns")


@with_validation(lambda a: (True, bool(a["per_user"])))
def temporal(
    interactions: Any,
    *,
    test_fraction: float | None = None,
    cutoff: Any = None,
    test_span: float | None = None,
    per_user: bool = False,
    k: int | None = None,
    time_unit: str | None = None,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    iterate_filters: bool = False,
    small_users: SmallUsersPolicy = "train",
    drop_cold_users: bool = False,
    drop_cold_items: bool = False,
    user: str | None = None,
    item: str | None = None,
    timestamp: str | None = None,
) -> Split:
    """Temporal split: the past trains, the future tests.

    Global (``per_user=False``), one of:

    * ``cutoff``: rows with ``timestamp >= cutoff`` go to test, the others to train.
      A number is compared with the column as is; a date/time (ISO string,
      ``datetime``, ``date``, ``numpy.datetime64``; naive values are UTC) is compared
      with a date/timestamp column, or with a numeric column of epoch times when
      ``time_unit`` (``"s"``, ``"ms"``, ``"us"``, ``"ns"``) says what it counts;
    * ``test_span``: a fraction of the time span: the cut-off is
      ``t_min + (1 - test_span) * (t_max - t_min)`` (rounded up to the column's
      resolution), e.g. ``test_span=1/6`` on six months trains on five and tests on the
      sixth;
    * ``test_fraction`` (default 0.2 when nothing is given): the latest
      ``round(test_fraction * N)`` interactions by the tie rule of this module.

    Per user (``per_user=True``), one of:

    * ``k``: each user's latest ``k`` interactions go to test (users with ``k`` or
      fewer interactions are *small users*);
    * ``test_fraction``: each user's latest ``round(test_fraction * n)`` interactions
      (clamped to ``[1, n - 1]``; users with one interaction are small users).

    Guarantees: globally, every train row precedes every test row in (timestamp, input
    position) order, and with ``cutoff``/``test_span`` every train timestamp is
    strictly before every test timestamp. Per user, the same holds within each user.
    Small users are reported and kept in train (``small_users="train"``), left out
    (``"drop"``), or refused (``"error"``). Cold-start users and items are reported and
    can be dropped from test.

    Raises:
        InputError: no timestamp column, missing or unparseable timestamps, a single
            timestamp for ``test_span``, every user too small.
        ParameterError: a fraction outside (0, 1), k < 1 or larger than every user,
            a conflicting choice of parameters, a date cut-off on a numeric column
            without ``time_unit``.

    >>> data = {"user": ["a", "a", "a", "b", "b"], "item": [1, 2, 3, 1, 4], "ts": [5, 1, 3, 2, 2]}
    >>> s = temporal(data, per_user=True, k=1)
    >>> s.test_rows.tolist()  # a's latest is ts=5 (row 0); b's two rows tie: the later row wins
    [0, 4]
    >>> temporal(data, cutoff=3).test_rows.tolist()
    [0, 2]
    """
    func = "temporal"
    check_choice(small_users, "small_users", func, ("train", "drop", "error"))
    given = [name for name, v in (("cutoff", cutoff), ("test_span", test_span),
                                  ("test_fraction", test_fraction), ("k", k)) if v is not None]
    allowed = ("k", "test_fraction") if per_user else ("cutoff", "test_span", "test_fraction")
    for name in given:
        if name not in allowed:
            need = "per_user=False" if per_user else "per_user=True"
            raise ParameterError(
                f"The {name!r} parameter of temporal needs {need}; with per_user={per_user} "
                f"choose one of {', '.join(allowed)}."
            )
    if len(given) > 1:
        raise ParameterError(
            f"temporal takes one of {', '.join(allowed)}; got {' and '.join(given)}."
        )
    if not given:
        test_fraction = 0.2
    if time_unit is not None:
        check_choice(time_unit, "time_unit", func, _TIME_UNITS)
    fraction = check_fraction(test_fraction, "test_fraction", func) if test_fraction is not None else None
    span = check_fraction(test_span, "test_span", func) if test_span is not None else None
    if k is not None:
        k = check_int(k, "k", func, 1)
    data = load(interactions, user=user, item=item, timestamp=timestamp)
    t = time_values_for(data, func)
    prep = prepare(
        data, func,
        min_user_interactions=min_user_interactions,
        min_item_interactions=min_item_interactions,
        iterate_filters=iterate_filters,
    )
    common = dict(small_users=small_users, drop_cold_users=drop_cold_users, drop_cold_items=drop_cold_items)
    if per_user:
        params: dict[str, Any] = {"per_user": True}
        if k is not None:
            params["k"] = k
        else:
            params["test_fraction"] = float(test_fraction)  # type: ignore[arg-type]  # None takes the other branch
        test, small, rule = last_per_user(prep, t, func, k=k, fraction=fraction, small_users=small_users)
        del t
        # common holds finish's keywords (the ignore below)
        return finish(prep, test, method=func, params=params, small=small, small_rule=rule, **common)  # type: ignore[arg-type]

    params = {"per_user": False, "tie_rule": "timestamp, then input position"}
    rows = None if prep.active is None else np.flatnonzero(prep.active)
    if prep.n_active() == 0:
        raise InputError("temporal: no interaction left after the filters")
    tt = t if rows is None else t[rows]
    if cutoff is not None:
        threshold = _cutoff_threshold(cutoff, data, t, time_unit)
        params["cutoff"] = _show(cutoff)
        params["threshold"] = _number(threshold)
        params["threshold_time"] = _as_time(threshold, data.time_unit or time_unit)
        local = tt >= threshold
    elif span is not None:
        lo, hi = tt.min(), tt.max()
        if lo == hi:
            raise InputError(
                f"temporal: every interaction has the same timestamp ({_number(lo)}); "
                "a time-span cut-off cannot split them"
            )
        if tt.dtype.kind in "iu":
            lo_i, hi_i = int(lo), int(hi)
            width = Fraction(hi_i - lo_i) * (1 - span)
            threshold = lo_i + math.ceil(width)
        else:
            threshold = float(lo) + (float(hi) - float(lo)) * (1.0 - float(span))
        params["test_span"] = float(test_span)  # type: ignore[arg-type]  # None takes the other branch
        params["threshold"] = _number(threshold)
        params["threshold_time"] = _as_time(threshold, data.time_unit or time_unit)
        local = tt >= threshold
    else:
        fraction = cast(Fraction, fraction)  # set: test_fraction defaults to 0.2
        total = len(tt)
        if total < 2:
            raise InputError(f"temporal: {total} interaction(s) after the filters; a split needs at least 2")
        m = int(round_count(total, fraction))
        kth = total - m
        boundary = np.partition(tt, kth)[kth]
        local = tt > boundary
        short = m - int(np.count_nonzero(local))  # test rows still to take from the boundary's ties
        if short > 0:
            ties = np.flatnonzero(tt == boundary)
            local[ties[len(ties) - short:]] = True
        params["test_fraction"] = float(test_fraction)  # type: ignore[arg-type]  # None takes the other branch
        params["threshold"] = _number(boundary)
        params["threshold_time"] = _as_time(boundary, data.time_unit)
    del t, tt
    if rows is None:
        test = local
    else:
        test = np.zeros(prep.n_rows, dtype=bool)
        test[rows] = local
    del local
    # common holds finish's keywords (the ignore below)
    return finish(prep, test, method=func, params=params, small=None, small_rule="", **common)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- shared with leave_k_out


def time_values_for(data: Interactions, func: str) -> np.ndarray:
    if data.timestamp is None:
        raise InputError(
            f"{func} needs a timestamp column: name it timestamp, time, ts, datetime, date or "
            f"unix_time, or pass timestamp=<column>; found columns "
            + ", ".join(repr(c) for c in data.table.column_names)
            + (" (for a random split use holdout, or by='random')" if func != "temporal" else ""),
            source=data.source,
        )
    return data.time_values()


def group_order_time(prep: Prepared, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``rows`` reordered: users by code ascending, each user's rows by (timestamp, position)."""
    full = len(rows) == prep.n_rows
    tr = t if full else t[rows]
    codes = prep.users if full else prep.users[rows]
    order: np.ndarray | None = None
    if tr.dtype.kind in "iu" and len(rows):
        lo, hi = int(tr.min()), int(tr.max())
        width = hi - lo + 1
        if max(prep.n_user_codes, 1) * width < 2**63:
            key = codes.astype(np.int64)
            key *= width
            if lo >= 0:
                key -= lo
                key += tr
            else:
                key += tr
                key -= lo
            order = np.argsort(key, kind="stable")
            del key
    if order is None:
        by_time = np.argsort(tr, kind="stable")
        order = by_time[np.argsort(codes[by_time], kind="stable")]
    return order if full else rows[order]


def last_per_user(
    prep: Prepared,
    t: np.ndarray,
    func: str,
    *,
    k: int | None,
    fraction: Fraction | None,
    small_users: str,
) -> tuple[np.ndarray, np.ndarray, str]:
    """Test mask holding each user's latest k (or fraction) rows; small-user flags; rule."""
    counts = prep.user_counts()
    if k is not None:
        if counts.max(initial=0) <= k:
            raise ParameterError(
                f"The 'k' parameter of {func} must be smaller than the number of interactions of "
                f"at least one user (the largest user has {int(counts.max(initial=0))}), so that the user "
                f"keeps one in train. Got {k} instead."
            )
        small = (counts > 0) & (counts <= k)
        rule = f"{k} or fewer interactions" if k > 1 else "only 1 interaction"
        check_small_policy(prep, small, small_users, rule, f"k={k} test rows and one train row are needed")
        eligible = counts > k
        n_u = counts[eligible]
        m_u = np.full(len(n_u), k, dtype=np.int64)
    else:
        fraction = cast(Fraction, fraction)  # the caller passes k or fraction
        small = (counts > 0) & (counts < 2)
        rule = "fewer than 2 interactions"
        check_small_policy(prep, small, small_users, rule, "one train and one test row are needed")
        eligible = counts >= 2
        n_u = counts[eligible]
        m_u = round_count(n_u, fraction)
    m = np.zeros(prep.n_user_codes, dtype=np.int64)
    m[eligible] = m_u
    return latest_per_user(prep, t, eligible, m), small, rule


def latest_per_user(prep: Prepared, t: np.ndarray, eligible: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Test mask holding, for each eligible user code ``u``, the user's ``m[u]`` latest
    active rows by (timestamp, input position).

    Integer timestamps: one value sort of the packed keys ``user * width + (t - t_min)``
    gives each user's boundary timestamp (that of its ``m[u]``-th latest row); rows after
    it are test, and among the rows *at* it the last ones in the input make up the
    count. Other timestamps (floats, or a range too wide to pack): a stable sort by
    time then by user.
    """
    n = prep.n_rows
    rows = participating(prep, eligible)
    codes = prep.users if rows is None else prep.users[rows]
    tr = t if rows is None else t[rows]
    test = np.zeros(n, dtype=bool)
    if len(codes) == 0:
        return test
    n_codes = prep.n_user_codes
    local: np.ndarray | None = None
    if tr.dtype.kind in "iu":
        lo, hi = int(tr.min()), int(tr.max())
        width = hi - lo + 1
        if max(n_codes, 1) * width < 2**63:
            counts = prep.user_counts() if rows is None else count_per(codes, None, n_codes)
            local = _latest_by_threshold(codes, tr, m, eligible, counts, lo, width)
    if local is None:
        order = group_order_time(prep, np.arange(n, dtype=np.int64) if rows is None else rows, t)
        n_u = np.bincount(prep.users[order], minlength=n_codes)[eligible]
        test[order] = segment_mask(n_u - m[eligible], m[eligible], False)
        return test
    if rows is None:
        return local
    test[rows] = local
    return test


def _latest_by_threshold(
    codes: np.ndarray, tr: np.ndarray, m: np.ndarray, eligible: np.ndarray, counts: np.ndarray, lo: int, width: int
) -> np.ndarray:
    n_codes = len(counts)
    key = codes.astype(np.int64)
    key *= width
    if lo >= 0:
        key -= lo
        key += tr
    else:
        key += tr
        key -= lo
    key.sort()
    ends = np.cumsum(counts)
    chosen = eligible & (m > 0)
    code_ids = np.flatnonzero(chosen)
    boundary = np.full(n_codes, np.iinfo(np.int64).max, dtype=np.int64)
    boundary[code_ids] = key[ends[code_ids] - m[code_ids]] - code_ids.astype(np.int64) * width + lo
    del key
    # rows after the boundary time, and rows at it, block by block (bounded memory)
    size = len(codes)
    after = np.empty(size, dtype=bool)
    at = np.empty(size, dtype=bool)
    step = 1 << 22
    for a in range(0, size, step):
        b_ = boundary[codes[a : a + step]]
        after[a : a + step] = tr[a : a + step] > b_
        at[a : a + step] = tr[a : a + step] == b_
    # among the rows at the boundary, each user needs the last (m - #after) in input order
    need = m - count_per(codes, after, n_codes)
    tied = np.flatnonzero(at)
    del at
    tied_codes = codes[tied]
    grouped = np.argsort(tied_codes, kind="stable")
    tied_counts = np.bincount(tied_codes, minlength=n_codes)
    present = tied_counts > 0
    take = need[present]
    after[tied[grouped][segment_mask(tied_counts[present] - take, take, False)]] = True
    return after


# --------------------------------------------------------------------------- cut-offs


def _to_epoch_ns(value: Any) -> int | None:
    """Nanoseconds since the Unix epoch of a date/time value (naive = UTC), or None."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            return None
        return int(value.astype("datetime64[ns]").astype(np.int64))
    nanos = int(getattr(value, "nanosecond", 0) or 0)
    if isinstance(value, str):
        try:
            value = _dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if isinstance(value, _dt.datetime):
        d = value
    elif isinstance(value, _dt.date):
        d = _dt.datetime(value.year, value.month, value.day)
    else:
        return None
    if d.tzinfo is not None:
        d = d.astimezone(_dt.UTC).replace(tzinfo=None)
    delta = d - _dt.datetime(1970, 1, 1)
    return (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000 + nanos


def _cutoff_threshold(cutoff: Any, data: Interactions, t: np.ndarray, time_unit: str | None) -> int | float:
    column_unit = data.time_unit
    is_number = isinstance(cutoff, numbers.Real) and not isinstance(cutoff, (bool, np.bool_))
    if column_unit is not None and time_unit is not None:
        raise ParameterError(
            f"The 'time_unit' parameter of temporal applies to numeric timestamp columns; "
            f"column {data.timestamp!r} already holds {data.table.schema.field(data.timestamp).type}."
        )
    if is_number:
        value = float(cutoff)
        if not math.isfinite(value):
            raise ParameterError(f"The 'cutoff' parameter of temporal must be finite. Got {cutoff!r} instead.")
        if column_unit is not None:
            raise ParameterError(
                f"The 'cutoff' parameter of temporal is a number ({cutoff!r}) but column "
                f"{data.timestamp!r} holds {data.table.schema.field(data.timestamp).type}; "
                "give a date or time such as '2024-06-01'."
            )
        if t.dtype.kind in "iu":
            return int(cutoff) if isinstance(cutoff, numbers.Integral) else math.ceil(value)
        return value
    ns = _to_epoch_ns(cutoff)
    if ns is None:
        raise ParameterError(
            "The 'cutoff' parameter of temporal must be a number, an ISO-8601 date/time string, "
            f"a datetime, a date or a numpy.datetime64. Got {cutoff!r} instead."
        )
    unit = column_unit or time_unit
    if unit is None:
        raise ParameterError(
            f"The 'cutoff' parameter of temporal is a date ({cutoff!r}) but column "
            f"{data.timestamp!r} holds plain numbers; say what they count with time_unit='s' "
            "(or 'ms', 'us', 'ns'), or give the cut-off as a number."
        )
    scale = _NS_PER[unit]
    if t.dtype.kind in "iu":
        return -((-ns) // scale)  # ceil: t * scale >= ns  <=>  t >= ceil(ns / scale)
    return ns / scale


def _number(value: Any) -> int | float:
    if isinstance(value, (np.integer, int)):
        return int(value)
    return float(value)


def _show(value: Any) -> Any:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return str(value)


def _as_time(threshold: Any, unit: str | None) -> str | None:
    """The threshold as an ISO date/time (UTC) when the unit is known."""
    if unit is None:
        return None
    try:
        if isinstance(threshold, (int, np.integer)):
            # numpy types units as literals (the ignore below)
            return str(np.datetime64(int(threshold), unit))  # type: ignore[call-overload]
        return str(np.datetime64(int(math.ceil(float(threshold) * _NS_PER[unit])), "ns"))
    except (OverflowError, ValueError):  # pragma: no cover - out of datetime64 range
        return None
