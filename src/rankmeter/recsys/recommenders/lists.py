"""User-supplied recommenders: a file (or table) of top-k lists, or a Python callable.

Both are taken as they are: nothing is re-ranked, filtered or completed here. The
experiment's validation counts duplicates, unknown items, training items and short
lists in what they return.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._errors import InputError, ParameterError, RankmeterError
from ...data.ids import as_string_array
from ._base import Recommender, as_user_ids, check_k, empty_recommendations

__all__ = ["TopKLists", "CallableRecommender", "read_topk_lists", "as_recommendation_table"]


def read_topk_lists(path: str | Path) -> pa.Table:
    """Read top-k lists: a TREC run (``user Q0 item rank score tag``), or CSV/TSV/Parquet with
    user and item columns and a score or rank column (without either, file order is rank order).

    Rows are returned as they are in the file (duplicates included), as ``user, item, score``
    with ``score = -rank`` when the file ranks by position.
    """
    import pyarrow as pa

    from ...io.loaders import detect_format
    from ...io.tables import ITEM_NAMES, QUERY_NAMES, RANK_NAMES, SCORE_NAMES, pick_columns, read_table_file

    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=str(path))
    if not p.is_file():
        raise InputError("not a file (a file of top-k lists is expected)", source=str(path))
    try:
        fmt = detect_format(p)
        if fmt == "trec":
            return _read_trec_lists(p)
        table = read_table_file(p, sep="\t" if fmt == "tsv" else None)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start}): top-k lists are a TREC run, CSV/TSV or Parquet file",
                         source=str(path)) from None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise InputError(f"cannot be read as top-k lists (a TREC run, CSV/TSV or Parquet file): {exc}",
                         source=str(path)) from None
    cols = pick_columns(table, {"user": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES, "rank": RANK_NAMES},
                        {}, str(path), optional=("score", "rank"))
    return as_recommendation_table(table, user=cols["user"], item=cols["item"], score=cols.get("score"),
                                   rank=cols.get("rank"), source=str(path))


def _read_trec_lists(p: Path) -> pa.Table:
    import re

    users, items, scores = [], [], []
    with open(p, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            parts = re.split(r"\s+", s)
            if len(parts) < 5:
                raise InputError("expected 'user Q0 item rank score [tag]'", source=str(p), line=n, text=line.rstrip())
            try:
                scores.append(float(parts[4]))
            except ValueError:
                raise InputError("score is not a number", source=str(p), line=n, text=line.rstrip()) from None
            users.append(parts[0])
            items.append(parts[2])
    return pa.table({"user": pa.array(users, pa.string()), "item": pa.array(items, pa.string()),
                     "score": pa.array(scores, pa.float64())})


def as_recommendation_table(obj: Any, *, user: str | None = None, item: str | None = None, score: str | None = None,
                            rank: str | None = None, source: str = "<recommendations>") -> pa.Table:
    """Any recommendation output as an Arrow table ``user, item, score`` (rows kept as given).

    Accepts an Arrow table / pandas / polars frame with user and item columns (and a score
    or rank column; without either, row order within a user is rank order), a mapping
    ``{user: [items best first]}`` or ``{user: {item: score}}``, or a :class:`rankmeter.Run`.
    """
    from ...data import Run
    from ...io.tables import ITEM_NAMES, QUERY_NAMES, RANK_NAMES, SCORE_NAMES, is_frame, pick_columns, to_arrow

    if isinstance(obj, Run):
        return pa.table({"user": obj.query_ids.take(pa.array(obj.row_queries())),
                         "item": obj.item_ids.take(pa.array(obj.items)), "score": obj.scores})
    if isinstance(obj, dict):
        u: list[str] = []
        it: list[str] = []
        sc: list[float] = []
        for key, val in obj.items():
            if isinstance(val, dict):
                for i, s in val.items():
                    u.append(str(key))
                    it.append(str(i))
                    sc.append(float(s))
            elif isinstance(val, (list, tuple, np.ndarray, pa.Array)):
                vals = list(val)
                for n, i in enumerate(vals):
                    u.append(str(key))
                    it.append(str(i))
                    sc.append(float(-(n + 1)))
            else:
                raise InputError(f"the list of user {key!r} must be [items best first] or {{item: score}}. "
                                 f"Got {type(val).__name__} instead.", source=source)
        return pa.table({"user": pa.array(u, pa.string()), "item": pa.array(it, pa.string()),
                         "score": pa.array(sc, pa.float64())})
    if not is_frame(obj):
        raise InputError(f"cannot read recommendations from a {type(obj).__name__}: give a table with user and item "
                         "columns, a Run, or a dict user -> [items]", source=source)
    table = to_arrow(obj, source)
    cols = pick_columns(table, {"user": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES, "rank": RANK_NAMES},
                        {"user": user, "item": item, "score": score, "rank": rank}, source, optional=("score", "rank"))
    uarr = as_string_array(table.column(cols["user"]))
    iarr = as_string_array(table.column(cols["item"]))
    if uarr.null_count or iarr.null_count:
        bad = "user" if uarr.null_count else "item"
        arr = uarr if bad == "user" else iarr
        row = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{bad} id is missing", source=source, line=row + 1)
    if "score" in cols:
        s = np.asarray(table.column(cols["score"]).to_numpy(), dtype=np.float64)
    elif "rank" in cols:
        s = -np.asarray(table.column(cols["rank"]).to_numpy(), dtype=np.float64)
    else:
        # file order within each user is rank order
        codes = pc.dictionary_encode(uarr).indices.to_numpy(zero_copy_only=False)
        pos = np.zeros(len(codes))
        seen: dict[int, int] = {}
        for n, c in enumerate(codes.tolist()):
            seen[c] = seen.get(c, 0) + 1
            pos[n] = seen[c]
        s = -pos
    if not np.isfinite(s).all():
        row = int(np.flatnonzero(~np.isfinite(s))[0])
        raise InputError("score is not a finite number", source=source, line=row + 1)
    return pa.table({"user": uarr, "item": iarr, "score": pa.array(s, pa.float64())})


def _select(table: pa.Table, users: pa.Array) -> pa.Table:
    mask = pc.is_in(table.column("user"), value_set=users)
    return table.filter(mask)


class TopKLists(Recommender):
    """Pre-computed top-k lists (a file, a table, a Run or a dict) used as a recommender.

    ``fit`` does nothing; ``recommend`` returns the given rows of the users asked for, as
    they are (no re-ranking, no filtering, no cut at k: the metrics cut at their own k).
    """

    def __init__(self, source: Any, name: str | None = None) -> None:
        self.source = source
        if isinstance(source, (str, Path)):
            self.table = read_topk_lists(source)
            self.name = name or Path(source).stem
        else:
            self.table = as_recommendation_table(source)
            self.name = name or "lists"

    def recommend(self, users: Iterable[Any], k: int = 10, *, exclude_seen: bool = True,
                  candidates: Any = None) -> pa.Table:
        check_k(k, f"{self.name}.recommend")
        return _select(self.table, as_user_ids(users))

    def __repr__(self) -> str:
        return f"TopKLists({self.name!r}, {self.table.num_rows} rows)"


class CallableRecommender(Recommender):
    """A function as a recommender: ``func(train, users, k)`` returns the lists.

    The function receives the training interactions (an Arrow table with ``user`` and
    ``item`` text columns, plus ``rating``/``timestamp`` when present), the user ids (a list
    of str) and k; it may accept ``exclude_seen=`` and ``candidates=`` keywords. It returns
    anything :func:`as_recommendation_table` reads. An object with ``fit`` and ``recommend``
    methods is used directly instead.
    """

    def __init__(self, func: Callable[..., Any], name: str | None = None) -> None:
        if not callable(func):
            raise ParameterError(f"a recommender must be callable. Got {type(func).__name__} instead.")
        self.func = func
        self.name = str(name or getattr(func, "__name__", "callable"))
        self._train: Any = None
        try:
            self._params = set(inspect.signature(func).parameters)
        except (TypeError, ValueError):
            self._params = set()

    def fit(self, train: Any, *, user: str | None = None, item: str | None = None) -> "CallableRecommender":
        self._train = train
        return self

    def recommend(self, users: Iterable[Any], k: int = 10, *, exclude_seen: bool = True,
                  candidates: Any = None) -> pa.Table:
        k = check_k(k, f"{self.name}.recommend")
        uids = as_user_ids(users).to_pylist()
        kwargs: dict[str, Any] = {}
        if "exclude_seen" in self._params:
            kwargs["exclude_seen"] = exclude_seen
        if "candidates" in self._params and candidates is not None:
            kwargs["candidates"] = candidates
        try:
            out = self.func(self._train, uids, k, **kwargs)
        except RankmeterError:
            raise
        except Exception as exc:  # the user's function failed: say so, with its own message
            raise RankmeterError(f"the recommender {self.name!r} raised {type(exc).__name__}: {exc} "
                                 "(an error in its own code, not in rankmeter)") from exc
        if out is None:
            return empty_recommendations()
        return as_recommendation_table(out, source=f"<recommender {self.name}>")

    def __repr__(self) -> str:
        return f"CallableRecommender({self.name!r})"


def load_callable(ref: str) -> Callable[..., Any]:
    """``"package.module:function"`` (or a file ``path/to/file.py:function``) -> the function.

    A module that cannot be found is a :class:`ParameterError` naming it; an exception
    raised by the module's own code while it is imported is reported as that module's
    (:class:`RankmeterError` with its type and message), not as rankmeter's.

    >>> load_callable("os.path:join")("a", "b") == __import__("os").path.join("a", "b")
    True
    """
    if not isinstance(ref, str) or ":" not in ref:
        raise ParameterError(f"a callable is named 'module:function' or 'file.py:function'. Got {ref!r} instead.")
    mod_name, _, attr = ref.rpartition(":")
    if mod_name.endswith(".py"):
        path = Path(mod_name)
        if not path.is_file():
            raise ParameterError(f"cannot load the recommender {ref!r}: no such file {mod_name!r}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ParameterError(f"cannot load the recommender {ref!r}: {mod_name!r} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the user's own module failed while it ran
            raise RankmeterError(f"importing {mod_name!r} for the recommender {ref!r} raised "
                                 f"{type(exc).__name__}: {exc} (an error in that file, not in rankmeter)") from exc
    else:
        try:
            found = importlib.util.find_spec(mod_name)
        except (ImportError, ValueError) as exc:  # a parent package is missing, or an empty name
            found = None
            why = str(exc)
        else:
            why = ""
        if found is None:
            raise ParameterError(f"cannot import the module {mod_name!r} of the recommender {ref!r}: no module named "
                                 f"{mod_name!r}{f' ({why})' if why else ''} (is it on PYTHONPATH? Python looks in "
                                 f"{', '.join(repr(p) for p in sys.path[:3])}, ...)")
        try:
            module = importlib.import_module(mod_name)
        except Exception as exc:  # the module exists but its own code failed
            raise RankmeterError(f"importing {mod_name!r} for the recommender {ref!r} raised "
                                 f"{type(exc).__name__}: {exc} (an error in that module, not in rankmeter)") from exc
    func = getattr(module, attr, None)
    if func is None:
        raise ParameterError(f"{mod_name!r} has no attribute {attr!r} (recommender {ref!r})")
    if not callable(func):
        raise ParameterError(f"{mod_name}:{attr} is a {type(func).__name__}, not a function (recommender {ref!r})")
    return func  # type: ignore[no-any-return]  # a callable found by name
