"""Experiment configuration files (TOML): read, check against the schema, turn into experiment() arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from .._errors import InputError

__all__ = ["read_config", "config_to_arguments"]


_CONFIG_KEYS: dict[str, tuple[str, ...]] = {
    "data": ("interactions", "generate", "user", "item", "rating", "timestamp", "relevance",
             "min_user_interactions", "min_item_interactions", "item_features", "categories"),
    "split": (),  # "method" plus any parameter of the rankmeter.split function
    "recommenders": (),
    "evaluation": ("k", "metrics", "sampled", "sample_seed", "baseline", "test", "correction", "alpha",
                   "n_resamples", "seed", "exclude_seen", "catalog"),
    "output": ("dir",),
}


def read_config(path: str | Path) -> dict[str, Any]:
    """Read an experiment configuration (TOML) into :func:`config_to_arguments`'s input.

    See ``docs/recsys.md`` for the format. Relative paths are relative to the file.
    """
    import tomllib

    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=str(path))
    try:
        cfg = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=str(path)) from None
    cfg["_base"] = str(p.resolve().parent)
    cfg["_source"] = str(path)
    return cfg


def config_to_arguments(cfg: Mapping[str, Any]) -> tuple[Any, dict[str, Any], str | None]:
    """``(interactions, keyword arguments of experiment(), output directory)`` from a config dict."""
    base = Path(cfg.get("_base", "."))
    source = str(cfg.get("_source", "config"))

    def path(v: Any) -> Any:
        if isinstance(v, str) and v and not Path(v).is_absolute():
            return str(base / v)
        return v

    for section, value in cfg.items():
        if section.startswith("_"):
            continue
        if section not in _CONFIG_KEYS:
            raise InputError(f"unknown section [{section}] (sections: {', '.join(_CONFIG_KEYS)})", source=source)
        if not isinstance(value, Mapping):
            raise InputError(f"[{section}] must be a table", source=source)
        allowed = _CONFIG_KEYS[section]
        if allowed:
            for key in value:
                if key not in allowed:
                    raise InputError(f"unknown key {key!r} in [{section}] (keys: {', '.join(allowed)})", source=source)
    data = dict(cfg.get("data", {}))
    kwargs: dict[str, Any] = {}
    if "generate" in data:
        from .datasets import synthetic

        gen = dict(data.pop("generate") or {})
        try:
            interactions: Any = synthetic(n_users=int(gen.pop("users", 1000)), n_items=int(gen.pop("items", 2000)),
                                          seed=int(gen.pop("seed", 0)), **gen)
        except TypeError as exc:
            raise InputError(f"bad [data] generate parameters: {exc}", source=source) from None
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
        kwargs["split_params"] = split
    recs = cfg.get("recommenders")
    if recs:
        out: dict[str, Any] = {}
        for name, spec in recs.items():
            if isinstance(spec, Mapping):
                spec = dict(spec)
                if "lists" in spec:
                    spec["lists"] = path(spec["lists"])
                if "callable" in spec and isinstance(spec["callable"], str):
                    mod, _, fn = spec["callable"].rpartition(":")
                    if mod.endswith(".py"):
                        spec["callable"] = f"{path(mod)}:{fn}"
                out[str(name)] = spec
            elif isinstance(spec, str):
                out[str(name)] = path(spec) if Path(spec).suffix else spec
            else:
                raise InputError(f"[recommenders] {name} must be a table or a string", source=source)
        kwargs["recommenders"] = out
    kwargs.update(dict(cfg.get("evaluation", {})))
    out_dir = cfg.get("output", {}).get("dir")
    return interactions, kwargs, (path(out_dir) if out_dir else None)
