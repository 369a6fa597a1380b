"""The experiment's split: a protocol name with parameters, a Split, a (train, test) pair or a callable."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Mapping

import pyarrow as pa

from .._compute import pc_on_first_use as pc
from .._errors import ParameterError
from ..data.ids import as_string_array

__all__ = ["SPLIT_NAMES", "split_interactions", "canonical_table", "protocol_split"]


SPLIT_NAMES = ("auto", "temporal", "temporal_global", "holdout", "leave_k_out", "leave_one_out", "strong", "kfold")


def split_interactions(data: Any, split: Any, params: Mapping[str, Any], filters: Mapping[str, Any],
                       seed: int = 0) -> tuple[Any, Any, dict[str, Any]]:
    """(train table, test table, summary dict) in the input's column names."""
    from .. import split as S

    if isinstance(split, S.StrongSplit):
        return _strong_parts(split)
    if isinstance(split, S.Split):
        return split.table("train"), split.table("test"), split.summary.to_dict()
    if isinstance(split, tuple) and len(split) == 2:
        return _given(split, data)
    if callable(split) and not isinstance(split, str):
        out = split(data)
        if isinstance(out, S.StrongSplit):
            return _strong_parts(out)
        if isinstance(out, S.Split):
            return out.table("train"), out.table("test"), out.summary.to_dict()
        if isinstance(out, tuple) and len(out) == 2:
            return _given(out, data)
        raise ParameterError(f"a split callable must return a rankmeter.split.Split or (train, test). "
                             f"Got {type(out).__name__} instead.")
    if not isinstance(split, str) or split.lower() not in SPLIT_NAMES:
        raise ParameterError(f"The 'split' parameter of experiment must be one of {', '.join(SPLIT_NAMES)}, a "
                             f"Split, a (train, test) pair or a callable. Got {split!r} instead.")
    s = protocol_split(data, split.lower(), params, filters, seed)
    if isinstance(s, S.StrongSplit):
        return _strong_parts(s)
    return s.table("train"), s.table("test"), s.summary.to_dict()


def protocol_split(data: Any, name: str, params: Mapping[str, Any], filters: Mapping[str, Any],
                   seed: int = 0) -> Any:
    """The :class:`rankmeter.split.Split` (or :class:`~rankmeter.split.StrongSplit`) of a protocol name
    (``split_params`` checked against the protocol's own parameters; ``seed`` unless they give one)."""
    from .. import split as S

    split = name
    if name == "kfold":
        raise ParameterError("split='kfold' gives several splits: run it through experiment(split='kfold') or "
                             "rankmeter.split.kfold.")
    if name == "strong":
        accepted = [p for p in inspect.signature(S.strong).parameters
                    if p not in ("interactions", "user", "item", "timestamp")]
        unknown = [p for p in params if p not in accepted]
        if unknown:
            raise ParameterError(f"The split parameter {unknown[0]!r} does not apply to split='strong' (its "
                                 f"parameters: {', '.join(accepted)}).")
        kw = dict(filters)
        kw.update(params)
        kw.setdefault("seed", seed)
        return S.strong(data, **kw)
    if name == "auto":
        name = "temporal" if data.timestamp is not None else "holdout"
    func = {"temporal": S.temporal, "temporal_global": S.temporal, "holdout": S.holdout}.get(name, S.leave_k_out)
    accepted = [p for p in inspect.signature(func).parameters if p not in ("interactions", "user", "item", "timestamp")]
    if name == "temporal_global":
        accepted.remove("k")
    if name == "leave_one_out":
        accepted.remove("k")
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise ParameterError(f"The split parameter {unknown[0]!r} does not apply to split={split!r} (its parameters: "
                             f"{', '.join(accepted)}).")
    kw = dict(filters)
    kw.update(params)
    if name == "temporal":
        kw.setdefault("per_user", True)
        if not any(key in kw for key in ("k", "cutoff", "test_span", "test_fraction")):
            kw["test_fraction"] = 0.2
        s = S.temporal(data, **kw)
    elif name == "temporal_global":
        kw.setdefault("per_user", False)
        s = S.temporal(data, **kw)
    elif name == "holdout":
        kw.setdefault("per_user", True)
        kw.setdefault("seed", seed)
        s = S.holdout(data, **kw)
    else:
        kw.setdefault("seed", seed)
        if name == "leave_one_out":
            kw.setdefault("k", 1)
        if data.timestamp is None:
            kw.setdefault("by", "random")
        s = S.leave_k_out(data, **kw)
    return s


def _strong_parts(s: Any) -> tuple[Any, Any, dict[str, Any]]:
    """Strong generalisation in an experiment: the recommenders are fitted on the train users' rows
    plus the test users' fold-in rows (so a recommender sees each test user's fold-in history), and
    scored on the held-out rows; the validation users' rows play no part (counted in the summary)."""
    ev = s.evaluation_split()
    info = s.summary.to_dict()
    info["train"] = dataclasses.asdict(ev.summary.train)
    info["test"] = dataclasses.asdict(ev.summary.test)
    info["note"] = ("strong generalisation: train = train users + the test users' fold-in rows; test = the test "
                    "users' held-out rows")
    return ev.table("train"), ev.table("test"), info


def _given(pair: tuple[Any, Any], data: Any) -> tuple[Any, Any, dict[str, Any]]:
    from ..io.interactions import read_interactions

    cols = {"user": data.user, "item": data.item}
    tr = read_interactions(pair[0], **cols).table
    te = read_interactions(pair[1], **cols).table
    summary = {"method": "given", "params": {}, "train": {"rows": tr.num_rows}, "test": {"rows": te.num_rows}}
    return tr, te, summary


def canonical_table(table: pa.Table, data: Any) -> pa.Table:
    cols: dict[str, Any] = {"user": as_string_array(table.column(data.user)),
                            "item": as_string_array(table.column(data.item))}
    if data.rating is not None and data.rating in table.column_names:
        cols["rating"] = pc.cast(table.column(data.rating), pa.float64())
    if data.timestamp is not None and data.timestamp in table.column_names:
        cols["timestamp"] = table.column(data.timestamp)
    return pa.table(cols)
