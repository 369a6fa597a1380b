"""What the commands share: column options, metric lists, runs (files, NAME=PATH, folders), output paths.

Also the map from the library's parameter names to the running command's
options (:func:`option_names`), which the app uses to say errors the way the
user wrote them (``--duplicates max``, not ``duplicates='max'``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from .._errors import ParameterError

__all__ = ["column_options", "subtopics_option", "parse_metric_list", "named_runs", "check_output_path", "option_names",
           "COLUMN_OPTIONS", "Command"]

# library keyword -> CLI option, for the commands that read runs or judgments
COLUMN_OPTIONS = {"query": "--query-column", "item": "--item-column", "score": "--score-column",
                  "grade": "--grade-column", "rank": "--rank-column", "subtopic": "--subtopic-column",
                  "subtopics": "--subtopics"}


def column_options(*roles: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add ``--<role>-column`` options (query, item, score, grade, rank) to a command."""
    helps = {
        "query": "Name of the query (or user) column of CSV/TSV/Parquet inputs (default: detected).",
        "item": "Name of the item (document) column (default: detected).",
        "score": "Name of the run's score column (default: detected).",
        "grade": "Name of the judgments' grade (relevance) column (default: detected).",
        "rank": "Name of the run's rank column, read with --order rank (default: detected).",
        "subtopic": "Name of the judgments' subtopic column, read with --subtopics (default: detected).",
    }

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for role in reversed(roles):
            fn = click.option(f"--{role}-column", f"{role}_column", default=None, metavar="NAME",
                              help=helps[role])(fn)
        return fn

    return deco


def subtopics_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--subtopics``: QRELS are judgments by subtopic (ndeval's ``query subtopic item grade``)."""
    return click.option(
        "--subtopics", is_flag=True,
        help="QRELS are judgments by subtopic, as NIST ndeval reads them (TREC text: query subtopic item grade; "
             "tables: a subtopic column), for the intent-aware metrics (alpha-nDCG@20, ERR-IA@20, NRBP, P-IA@20, "
             "MAP-IA, strec@20...); every other metric sees each item's highest grade over its subtopics.")(fn)


class Command(click.Command):
    """A click command whose parser takes an option written as one short name (``-m``) at once.

    click first tries every option token as a long option, and each miss builds a "no such
    option" error with a search for close matches and a message lookup (0.1-0.2 ms): 20,000
    ``-m`` options spent 1-3 s there before the command began. A token that is exactly a
    short option goes straight to click's own short-option step, which is where the miss
    led anyway, so every command line parses as before (``-m=x``, ``-mx``, ``-qm x`` and the
    errors included).
    """

    def make_parser(self, ctx: click.Context) -> Any:
        parser = super().make_parser(ctx)
        short = getattr(parser, "_short_opt", None)
        process = getattr(parser, "_process_opts", None)
        match_short = getattr(parser, "_match_short_opt", None)
        if isinstance(short, dict) and callable(process) and callable(match_short):  # else click's own way
            def process_opts(arg: str, state: Any) -> None:
                if arg in short:
                    match_short(arg, state)
                else:
                    process(arg, state)

            setattr(parser, "_process_opts", process_opts)  # noqa: B010  # an instance attribute, not the class's
        return parser


# --------------------------------------------------------------------------- metrics


def parse_metric_list(texts: Sequence[str], *, spellings: bool = False) -> tuple[list[Any], list[str]]:
    """``(metrics, notes)`` from the ``-m`` values: one metric-list syntax for every command.

    ``spellings``: keep two spellings of one metric as two keys (computed once).
    """
    from ..metrics.registry import parse_metric_list as impl

    metrics, notes = impl(list(texts), spellings=spellings)
    return list(metrics), list(notes)


# --------------------------------------------------------------------------- runs

_COMPRESSED = (".gz", ".bz2", ".xz", ".zst")


def _stem(path: str) -> str:
    name = Path(path).name
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem or name


def named_runs(args: Sequence[str], notes: list[str]) -> list[tuple[str, str]]:
    """``NAME=PATH``, ``PATH`` (named by its file name without extension) or a folder of runs.

    A folder gives its files, sorted by name, each named by its file name without
    extension; hidden files and sub-folders are skipped and said so in ``notes``.
    """
    out: list[tuple[str, str]] = []
    for a in args:
        if "=" in a and not os.path.exists(a):
            name, path = a.split("=", 1)
            if not name or not path:
                raise ParameterError(f"a run is PATH, NAME=PATH or a folder of runs. Got {a!r} instead.")
            out.append((name, path))
        elif os.path.isdir(a):
            entries = sorted(os.listdir(a))
            hidden = [e for e in entries if e.startswith(".")]
            folders = [e for e in entries if not e.startswith(".") and not os.path.isfile(os.path.join(a, e))]
            files = [e for e in entries if not e.startswith(".") and os.path.isfile(os.path.join(a, e))]
            parts: list[str] = []
            if hidden or folders:
                if hidden:
                    parts.append(f"{len(hidden)} hidden file{'s' if len(hidden) != 1 else ''} "
                                 f"({', '.join(hidden[:3])}{', ...' if len(hidden) > 3 else ''})")
                if folders:
                    parts.append(f"{len(folders)} folder{'s' if len(folders) != 1 else ''} "
                                 f"({', '.join(folders[:3])}{', ...' if len(folders) > 3 else ''})")
                notes.append(f"runs from the folder {a}: skipped {' and '.join(parts)}")
            if not files:
                skipped = f" (skipped {' and '.join(parts)})" if parts else ""
                raise ParameterError(f"the folder {a!r} holds no run file{skipped}")
            out += [(_stem(f), os.path.join(a, f)) for f in files]
        else:
            out.append((_stem(a), a))
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        paths = [p for n, p in out if n == dup[0]]
        raise ParameterError(f"two runs are named {dup[0]!r} ({', '.join(paths)}); name them with NAME=PATH")
    return out


# --------------------------------------------------------------------------- output paths


def check_output_path(path: str, option: str) -> None:
    """Refuse, before any work, an output path that cannot be created."""
    p = Path(path)
    if p.is_dir():
        raise ParameterError(f"{option}: {path!r} is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ParameterError(f"{option}: cannot create {path!r}: the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ParameterError(f"{option}: cannot write {path!r}: permission denied")


# --------------------------------------------------------------------------- error wording


def option_names(command: click.Command | None) -> dict[str, str]:
    """Library parameter name -> the command's option: every option by its own name, plus the
    command's ``PARAMETER_OPTIONS`` (e.g. ``n_resamples`` -> ``--resamples``)."""
    if command is None:
        return {}
    out: dict[str, str] = {}
    for p in command.params:
        if isinstance(p, click.Option) and p.name:
            longs = [o for o in p.opts if o.startswith("--")]
            if longs:
                out[p.name] = longs[0]
    import sys

    module = sys.modules.get(getattr(command.callback, "__module__", "") or "")
    out.update(getattr(module, "PARAMETER_OPTIONS", {}))
    return out


# only the unmistakably Python spellings: quoted values, True/False, "name=..."; a bare "seed=7" may be
# part of a label (the sampled mode's "N=30, seed=7") and stays as written
_KEYWORD = re.compile(r"\b(?P<name>[a-z_][a-z0-9_]*)=(?P<value>\.\.\.|'[^']*'(?:\|'[^']*')*|True\b|False\b)")
_PARAMETER = re.compile(r"\b[Tt]he '(?P<name>[a-z_][a-z0-9_]*)' parameter(?: of [\w.]+)?")
_HINT = re.compile(r"\s*\(CLI: (?P<opt>--[\w-]+)[^)]*\)")


def cli_spelling(message: str, options: dict[str, str]) -> str:
    """Say ``message`` with the command's options: ``duplicates='max'`` -> ``--duplicates max``,
    ``clip=True`` -> ``--clip``, "The 'n_resamples' parameter of compare" -> "The --resamples option".

    >>> cli_spelling("choose duplicates='max'|'first' (CLI: --duplicates)", {"duplicates": "--duplicates"})
    'choose --duplicates max|first'
    >>> cli_spelling("The 'n_resamples' parameter of compare must be ...", {"n_resamples": "--resamples"})
    'The --resamples option must be ...'
    >>> cli_spelling("sampled (N=30, seed=7)", {"seed": "--seed"})
    'sampled (N=30, seed=7)'
    """
    if not options:
        return message

    def keyword(m: re.Match[str]) -> str:
        name, value = m.group("name"), m.group("value")
        opt = options.get(name)
        if opt is None:
            return m.group(0)
        if value == "True":
            return opt
        if value == "False":
            return f"no {opt}"
        if value == "...":
            return f"{opt} NAME" if opt.endswith("-column") else f"{opt} VALUE"
        return f"{opt} {value.replace(chr(39), '')}"

    def parameter(m: re.Match[str]) -> str:
        opt = options.get(m.group("name"))
        if opt is None:
            return m.group(0)
        return ("The" if m.group(0)[0] == "T" else "the") + f" {opt} option"

    out = _KEYWORD.sub(keyword, message)
    out = _PARAMETER.sub(parameter, out)

    def hint(m: re.Match[str]) -> str:
        return "" if m.group("opt") in out[: m.start()] else m.group(0)

    return _HINT.sub(hint, out)
