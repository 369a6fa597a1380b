"""Experiment configuration files (TOML): read, check against one declared schema, turn into experiment() arguments.

Every key of every section is declared once in :data:`SCHEMA` with its TOML type and,
where it has them, its allowed values and range. A key that is unknown, of the wrong
TOML type (``exclude_seen = "false"`` is a string, not a boolean) or out of range is
one :class:`~rankmeter.InputError` naming the file, the line, the section and the key.
Nothing is coerced: ``users = "abc"`` is refused, not read as a number.

>>> cfg = {"evaluation": {"k": 5, "exclude_seen": False}, "_source": "x.toml"}
>>> config_to_arguments(cfg)[1]
{'k': 5, 'exclude_seen': False}
>>> config_to_arguments({"evaluation": {"exclude_seen": "false"},
...                      "_source": "x.toml"})  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
rankmeter._errors.InputError: x.toml: [evaluation] exclude_seen must be a boolean (true or false). Got the string
'false' instead.

A config is code: a ``callable`` recommender or a ``.py`` file runs Python, and paths
can point anywhere; run only configs you trust (see docs/recsys.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .._errors import InputError

__all__ = ["read_config", "config_to_arguments", "SCHEMA", "Key"]

_TOML_NAMES = {bool: "a boolean (true or false)", int: "an integer", float: "a number", str: "a string",
               list: "an array", dict: "a table"}


@dataclass(frozen=True)
class Key:
    """One configuration key: its TOML types, allowed values, range, and whether it is a path.

    ``types``: any of ``bool, int, float, str, list, dict`` (``float`` accepts integers;
    ``int`` never accepts booleans); ``choices``: the allowed values of a string;
    ``minimum``/``maximum`` (inclusive) and ``open_range`` (exclusive bounds) for numbers;
    ``items``: the type of an array's elements; ``path``: relative to the config file.
    """

    types: tuple[type, ...]
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    open_range: bool = False
    items: type | None = None
    path: bool = False
    help: str = ""

    def expected(self) -> str:
        names = [_TOML_NAMES[t] for t in self.types]
        text = " or ".join(names)
        if self.items is not None:
            text += f" of {_TOML_NAMES[self.items][3 if _TOML_NAMES[self.items].startswith('an') else 2:]}s"
        if self.choices:
            text += " (one of " + ", ".join(repr(c) for c in self.choices) + ")"
        if self.minimum is not None or self.maximum is not None:
            lo = "(" if self.open_range else "["
            hi = ")" if self.open_range or self.maximum is None else "]"
            text += f" in {lo}{_num(self.minimum, '-inf')}, {_num(self.maximum, 'inf')}{hi}"
        return text


def _num(v: float | None, default: str) -> str:
    return default if v is None else (f"{int(v)}" if float(v).is_integer() else f"{v:g}")


_INT1 = Key((int,), minimum=1)
_INT0 = Key((int,), minimum=0)
_BOOL = Key((bool,))
_STR = Key((str,))
_PATH = Key((str,), path=True)
_SPLIT_METHODS = ("auto", "temporal", "temporal_global", "holdout", "leave_k_out", "leave_one_out", "strong", "kfold")

#: section -> key -> declaration. ``[recommenders]`` entries are checked by :data:`RECOMMENDER_KEYS`.
SCHEMA: dict[str, dict[str, Key]] = {
    "data": {
        "interactions": _PATH, "generate": Key((dict,)), "user": _STR, "item": _STR, "rating": _STR,
        "timestamp": _STR, "relevance": Key((float,)), "min_user_interactions": _INT1,
        "min_item_interactions": _INT1, "item_features": _PATH, "categories": _PATH,
    },
    "data.generate": {
        "users": Key((int,), minimum=2), "items": Key((int,), minimum=2), "seed": _INT0,
        "mean_per_user": Key((float,), minimum=0, open_range=True), "min_per_user": _INT1, "n_factors": _INT1,
        "alpha": Key((float,), minimum=0), "taste": Key((float,), minimum=0),
    },
    "split": {
        "method": Key((str,), choices=_SPLIT_METHODS),
        "test_fraction": Key((float,), minimum=0, maximum=1, open_range=True),
        "cutoff": Key((int, float, str)), "test_span": Key((float,), minimum=0, maximum=1, open_range=True),
        "per_user": _BOOL, "k": _INT1, "time_unit": Key((str,), choices=("s", "ms", "us", "ns")),
        "by": Key((str,), choices=("time", "random")), "seed": _INT0, "iterate_filters": _BOOL,
        "small_users": Key((str,), choices=("train", "drop", "error")), "drop_cold_users": _BOOL,
        "drop_cold_items": _BOOL, "min_user_interactions": _INT1, "min_item_interactions": _INT1,
        "test_users": Key((float,), minimum=0, maximum=1, open_range=True),
        "validation_users": Key((float,), minimum=0, maximum=1),
        "heldout": Key((str,), choices=("fraction", "last", "time")),
        "heldout_fraction": Key((float,), minimum=0, maximum=1, open_range=True), "heldout_n": _INT1,
        "folds": Key((int,), minimum=2), "unit": Key((str,), choices=("interactions", "users")), "repeats": _INT1,
        "validation_fraction": Key((float,), minimum=0, maximum=1, open_range=True),
    },
    "recommenders": {},
    "evaluation": {
        "k": _INT1, "metrics": Key((str, list), items=str), "sampled": _INT1, "sample_seed": _INT0,
        "sampled_correction": Key((str,), choices=("none", "bv", "bias", "mle")),
        "sampled_strategy": Key((str,), choices=("uniform", "popularity")),
        "sampled_per": Key((str,), choices=("user", "positive")),
        "baseline": Key((str, list), items=str, help="a name, 'best', or a list of names (several baselines)"),
        "tune_metric": _STR, "test": Key((str, list), items=str),
        "correction": Key((str,)), "alpha": Key((float,), minimum=0, maximum=1, open_range=True),
        "n_resamples": _INT1, "seed": _INT0, "exclude_seen": _BOOL, "catalog": Key((str,), choices=("train", "all")),
        "groups": Key((str,), help="'activity' or a two-column file (user, group), relative to the config"),
    },
    "output": {"dir": _PATH},
}

#: the split parameters each method takes (the others are refused with the method's name)
SPLIT_KEYS: dict[str, tuple[str, ...]] = {
    "temporal": ("test_fraction", "cutoff", "test_span", "per_user", "k", "time_unit"),
    "temporal_global": ("test_fraction", "cutoff", "test_span", "per_user", "time_unit"),
    "holdout": ("test_fraction", "per_user", "seed", "repeats"),
    "leave_k_out": ("k", "by", "seed", "repeats"),
    "leave_one_out": ("by", "seed", "repeats"),
    "strong": ("test_users", "validation_users", "heldout", "heldout_fraction", "heldout_n", "cutoff", "time_unit",
               "seed", "repeats"),
    "kfold": ("folds", "unit", "per_user", "heldout_fraction", "seed", "repeats"),
}
_SPLIT_COMMON = ("method", "iterate_filters", "small_users", "drop_cold_users", "drop_cold_items",
                 "min_user_interactions", "min_item_interactions", "validation_fraction")

#: keys of a ``[recommenders]`` table entry, by kind (reference recommenders by their type name)
RECOMMENDER_KEYS: dict[str, dict[str, Key]] = {
    "lists": {"lists": _PATH},
    "callable": {"callable": _STR},
    "random": {"type": _STR, "seed": _INT0},
    "popular": {"type": _STR},
    # an array of values is a grid, tuned on the validation part ([split] validation_fraction)
    "itemknn": {"type": _STR, "neighbors": Key((int, list), items=int, minimum=1)},
}


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "the boolean " + ("true" if value else "false")
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _fits(value: Any, types: tuple[type, ...]) -> bool:
    for t in types:
        if t is bool and isinstance(value, bool):
            return True
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if t in (str, list, dict) and isinstance(value, t):
            return True
    return False


class _Checker:
    """Validates values against :class:`Key` declarations, naming file, line, section and key."""

    def __init__(self, source: str, text: str | None) -> None:
        self.source = source
        self.lines = text.splitlines() if text is not None else None

    def line_of(self, section: str, key: str) -> int | None:
        """The line of ``key = ...`` in ``[section]`` (or ``key`` inside an inline table), best effort."""
        if self.lines is None:
            return None
        head = section.split(".")[0]
        in_section = False
        pattern = re.compile(rf'(^|[{{,\s])"?{re.escape(key)}"?\s*=')
        for n, line in enumerate(self.lines, start=1):
            stripped = line.strip()
            if re.match(r"^\[[^\[]", stripped):
                name = stripped.strip("[]").strip()
                in_section = name == head or name.startswith(head + ".")
                continue
            if in_section and pattern.search(line.split("#", 1)[0]):
                return n
        return None

    def error(self, section: str, key: str | None, message: str) -> InputError:
        head, _, sub = section.partition(".")
        where = f"[{head}]" + (f" {sub}." if sub and key else f" {sub}" if sub else "") + \
            (f"{'' if sub else ' '}{key}" if key else "")
        line = self.line_of(section, key.split(".")[-1]) if key else None
        return InputError(f"{where} {message}", source=self.source, line=line)

    def value(self, section: str, key: str, value: Any, spec: Key) -> Any:
        if not _fits(value, spec.types):
            raise self.error(section, key, f"must be {spec.expected()}. Got {_type_name(value)} instead.")
        if isinstance(value, list):
            if spec.items is not None:
                for v in value:
                    if not _fits(v, (spec.items,)):
                        raise self.error(section, key, f"must be {spec.expected()}. Got an element that is "
                                                       f"{_type_name(v)} instead.")
            if not value:
                raise self.error(section, key, "must not be an empty array")
        if spec.choices is not None and isinstance(value, str) and value not in spec.choices:
            raise self.error(section, key, f"must be {spec.expected()}. Got {_type_name(value)} instead.")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise self.error(section, key, f"must be a finite number. Got {value!r} instead.")
            lo, hi = spec.minimum, spec.maximum
            bad = (lo is not None and (value <= lo if spec.open_range else value < lo)) or \
                  (hi is not None and (value >= hi if spec.open_range else value > hi))
            if bad:
                raise self.error(section, key, f"must be {spec.expected()}. Got {value!r} instead.")
        return value

    def table(self, section: str, table: Any, keys: Mapping[str, Key], allowed: tuple[str, ...] | None = None,
              why: str = "") -> dict[str, Any]:
        if not isinstance(table, Mapping):
            raise self.error(section, None, f"must be a table. Got {_type_name(table)} instead.")
        names = tuple(keys) if allowed is None else allowed
        for key, value in table.items():
            if key not in names:
                raise self.error(section, str(key), f"is not a known key{why} (keys: {', '.join(names)})")
            self.value(section, str(key), value, keys[key])
        return dict(table)


def read_config(path: str | Path) -> dict[str, Any]:
    """Read an experiment configuration (TOML) into :func:`config_to_arguments`'s input.

    See ``docs/recsys.md`` for the format. Relative paths are relative to the file.
    """
    import tomllib

    p = Path(path)
    if not p.is_file():
        raise InputError("no such file" if not p.exists() else "not a file", source=str(path))
    from ..io.source import read_text_file

    try:  # a gzip/bz2/xz/zstd copy is read; UTF-16/32, an archive, binary data, text not UTF-8: named
        text = read_text_file(p)  # (a UTF-8 byte order mark, as some editors write, is dropped)
    except InputError as exc:
        raise InputError(f"{exc.message} (a TOML configuration is expected)", source=str(path),
                         line=exc.line) from None
    try:
        cfg = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=str(path)) from None
    except RecursionError:  # tomllib recurses once per level of nested arrays or inline tables
        raise InputError("not a TOML configuration this reader can take: arrays or inline tables nested too "
                         "deeply (an experiment configuration nests at most a few levels)", source=str(path)) from None
    cfg["_base"] = str(p.resolve().parent)
    cfg["_source"] = str(path)
    cfg["_text"] = text
    return cfg


def config_to_arguments(cfg: Mapping[str, Any]) -> tuple[Any, dict[str, Any], str | None]:
    """``(interactions, keyword arguments of experiment(), output directory)`` from a config dict.

    Every key is checked against :data:`SCHEMA` first (see the module docstring).
    """
    base = Path(cfg.get("_base", "."))
    source = str(cfg.get("_source", "config"))
    check = _Checker(source, cfg.get("_text"))

    def path(v: Any) -> Any:
        if isinstance(v, str) and v and not Path(v).is_absolute():
            return str(base / v)
        return v

    for section, value in cfg.items():
        if section.startswith("_"):
            continue
        if section not in SCHEMA:
            raise InputError(f"unknown section [{section}] (sections: {', '.join(s for s in SCHEMA if '.' not in s)})",
                             source=source)
        if section == "recommenders":
            if not isinstance(value, Mapping):
                raise check.error(section, None, f"must be a table. Got {_type_name(value)} instead.")
            continue
        if section == "split":
            check.table(section, value, SCHEMA["split"])
            method = value.get("method", "temporal")
            if method != "auto":
                allowed = SPLIT_KEYS[method] + _SPLIT_COMMON
                check.table(section, value, SCHEMA["split"], allowed, why=f" of method {method!r}")
            continue
        check.table(section, value, SCHEMA[section])
    data = dict(cfg.get("data", {}))
    kwargs: dict[str, Any] = {}
    if "generate" in data:
        from .datasets import synthetic

        gen = check.table("data.generate", data.pop("generate"), SCHEMA["data.generate"])
        interactions: Any = synthetic(n_users=gen.pop("users", 1000), n_items=gen.pop("items", 2000),
                                      seed=gen.pop("seed", 0), **gen)
        data.pop("interactions", None)
    elif "interactions" in data:
        interactions = path(data.pop("interactions"))
    else:
        interactions = None
    for key in ("user", "item", "rating", "timestamp", "relevance", "min_user_interactions", "min_item_interactions"):
        if key in data:
            kwargs[key] = data.pop(key)
    if "item_features" in data:
        kwargs["item_features"] = path(data.pop("item_features"))
    if "categories" in data:
        kwargs["categories"] = path(data.pop("categories"))
    split = dict(cfg.get("split", {}))
    if split:
        kwargs["split"] = split.pop("method", "temporal")
        if "validation_fraction" in split:
            kwargs["validation_fraction"] = split.pop("validation_fraction")
        kwargs["split_params"] = split
    recs = cfg.get("recommenders")
    if recs:
        kwargs["recommenders"] = {str(name): _recommender(check, str(name), spec, path)
                                  for name, spec in recs.items()}
    elif recs is not None:
        raise check.error("recommenders", None, "is empty: name at least one recommender")
    kwargs.update(dict(cfg.get("evaluation", {})))
    if "groups" in kwargs and kwargs["groups"] != "activity":
        kwargs["groups"] = path(kwargs["groups"])
    out_dir = cfg.get("output", {}).get("dir")
    if out_dir is not None and not str(out_dir).strip():  # never silently the default folder
        raise check.error("output", "dir", f"must name a folder. Got {out_dir!r} instead.")
    return interactions, kwargs, (path(out_dir) if out_dir else None)


def _recommender(check: _Checker, name: str, spec: Any, path: Any) -> Any:
    """One ``[recommenders]`` entry, checked: a string, or a table of one kind (lists, callable, a type)."""
    from .recommenders import REFERENCE

    section = "recommenders"
    if isinstance(spec, str):
        if not spec:
            raise check.error(section, name, "must not be an empty string")
        from .recommenders import is_callable_ref

        if is_callable_ref(spec):
            mod, _, fn = spec.rpartition(":")
            return f"{path(mod)}:{fn}" if mod.endswith(".py") else spec
        return path(spec) if Path(spec).suffix else spec
    if not isinstance(spec, Mapping):
        raise check.error(section, name, f"must be a string (a reference name, a file of lists or "
                                         f"'module:function') or a table. Got {_type_name(spec)} instead.")
    spec = dict(spec)
    kinds = [k for k in ("lists", "callable", "type") if k in spec]
    if len(kinds) > 1:
        raise check.error(section, name, f"gives both {kinds[0]!r} and {kinds[1]!r}: give one of lists, callable, type")
    if kinds and kinds[0] in ("lists", "callable"):
        kind = kinds[0]
    else:
        kind_name = spec.get("type", name)
        if not isinstance(kind_name, str):
            raise check.error(section, f"{name}.type", f"must be a string. Got {_type_name(kind_name)} instead.")
        key = kind_name.lower().replace("-", "_")
        if key not in REFERENCE:
            raise check.error(section, name, f"names no recommender: {kind_name!r} is not a reference recommender "
                                             "(random, popular, itemknn); give type = ..., lists = FILE or "
                                             "callable = 'module:function'")
        kind = REFERENCE[key].name
    keys = RECOMMENDER_KEYS.get(kind, {"type": _STR})
    for key, value in spec.items():
        if key not in keys:
            raise check.error(section, f"{name}.{key}", f"is not a parameter of this {kind} recommender "
                                                        f"(keys: {', '.join(keys)})")
        check.value(section, f"{name}.{key}", value, keys[key])
    if "lists" in spec:
        spec["lists"] = path(spec["lists"])
    if "callable" in spec:
        mod, _, fn = spec["callable"].rpartition(":")
        if mod.endswith(".py"):
            spec["callable"] = f"{path(mod)}:{fn}"
    return spec
