"""Every command of ``rankmeter --help`` fed its file inputs in hostile forms (issue 24, last "Done when" item).

The commands are read from the click group itself: a command without a case here fails
:func:`test_every_command_has_a_case`. Each command's hostile file (its run, judgments,
interactions, ratings or saved result) is given as

- a gzip and a bz2 copy of a valid input, without a telling suffix: the plain file's output;
- a line-less file (a few MB without a newline), ``/dev/zero`` and a UTF-16 file: refused
  (exit 2; UTF-16 named), or for a line-less file a clean answer;
- ids holding control characters and a backslash (in every file of the case, and in the names
  a command takes): exit 0 or 2;
- a 5000-digit integer in a numeric option or a cut-off: exit 2 or a capped value;

and none exits 1, prints a traceback or says ``internal error``; each ends within 5 s of wall
time and 3x its input's size + 300 MB of peak memory (:mod:`tests.hostile._run`).
"""

from __future__ import annotations

import bz2
import gzip
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rankmeter.cli._app import group

from ._run import MB, Outcome, env, run

HUGE = "9" * 5000  # beyond Python's 4300-digit limit of int(text)

# ids: the plain ones, and two hostile sets holding every C0 control character, DEL and a backslash: the
# first without the line and field breaks (tab, newline, carriage return), the second with them.
_C0 = [chr(c) for c in range(32)] + ["\x7f"]
_INLINE = [c for c in _C0 if c not in "\t\n\r"]
PLAIN_IDS = {"@Q@": "q1", "@A@": "a", "@B@": "b"}
IDS = {
    "ids-control": {"@Q@": "q\\" + "".join(_INLINE[:10]), "@A@": "a\\" + "".join(_INLINE[10:20]),
                    "@B@": "b\\" + "".join(_INLINE[20:]) + "\\"},
    "ids-breaks": {"@Q@": "q\\" + "".join(_C0[:11]), "@A@": "a\\" + "".join(_C0[11:22]),
                   "@B@": "b\\" + "".join(_C0[22:]) + "\\"},
}

RUN = "@Q@ Q0 @A@ 1 2.5 t\n@Q@ Q0 @B@ 2 1.5 t\nq2 Q0 c 1 1 t\nq2 Q0 @A@ 2 0.5 t\nq2 Q0 d 3 0.25 t\n"
RUN2 = "@Q@ Q0 @B@ 1 2.5 u\n@Q@ Q0 @A@ 2 1.5 u\nq2 Q0 @A@ 1 1 u\nq2 Q0 d 2 0.5 u\nq2 Q0 e 3 0.25 u\n"
QRELS = "@Q@ 0 @A@ 1\n@Q@ 0 @B@ 0\nq2 0 @A@ 1\nq2 0 c 0\nq2 0 d 2\n"
QRELS2 = "@Q@ 0 @A@ 0\n@Q@ 0 @B@ 1\nq2 0 @A@ 1\nq2 0 c 1\nq2 0 d 2\n"
RATINGS = "user,item,rating,prediction\n@Q@,@A@,4,3.5\n@Q@,@B@,2,2.5\nu2,@A@,5,4\nu2,c,1,2\nu3,c,3,3\n"
# 8 users x 6 items, ratings and timestamps: enough for a temporal split, item-kNN and the paired tests
INTERACTIONS = "user,item,rating,timestamp\n" + "".join(
    f"{'@Q@' if u == 0 else f'u{u}'},{'@A@' if i == 0 else '@B@' if i == 1 else f'i{i}'},"
    f"{1 + (u * 7 + i * 3) % 5},{1000 + u * 10 + i}\n"
    for u in range(8) for i in range(6) if (u + i) % 4 != 3)
COSTS = json.dumps({f"{p},{t}": abs(p - t) * (1 + (p > t)) for p in range(1, 6) for t in range(1, 6) if p != t})
CONFIG = "[data]\ngenerate = { users = 20, items = 30, seed = %d }\n[evaluation]\nk = 5\nmetrics = [\"ndcg@5\"]\n" \
         "[recommenders]\npopular = {}\nrandom = { seed = 0 }\n"


@dataclass
class Case:
    """A command's arguments with ``FILE`` the hostile input (written from ``content``), the other files it
    needs (``aux``: placeholder -> content), and the arguments of its huge-integer case."""

    args: list[str]
    content: str | None  # None: the file is made by a fixture (compare-across's saved result)
    huge: list[str] | None = None
    aux: dict[str, str] = field(default_factory=dict)
    files: bool = True  # whether the command takes a file at all
    json: bool = False  # the file is JSON: also fed objects nested 100000 deep
    name: str = "input"  # the hostile file's name (a .json run: compare first tries it as a saved result)
    nested: tuple[str, ...] = ("nested too deeply",)  # what the refusal of deeply nested JSON says


CASES: dict[str, Case] = {
    "evaluate": Case(["evaluate", "QRELS", "FILE", "-m", "map", "-m", "P@1", "--format", "csv", "-q"], RUN,
                     ["--depth", HUGE], {"QRELS": QRELS}),
    "evaluate-ratings": Case(["evaluate-ratings", "FILE", "--format", "csv", "-q"], RATINGS, ["--scale", f"1:{HUGE}"]),
    "compare": Case(["compare", "QRELS", "FILE", "RUN2", "-m", "map", "--format", "csv", "--no-progress"], RUN,
                    ["--resamples", HUGE], {"QRELS": QRELS, "RUN2": RUN2}),
    "compare run.json": Case(["compare", "QRELS", "FILE", "RUN2", "-m", "map", "--format", "csv", "--no-progress"],
                             RUN, None, {"QRELS": QRELS, "RUN2": RUN2}, json=True, name="run.json",
                             nested=("score is not a number",)),  # not a saved result: read as a run
    "explain-diff": Case(["explain-diff", "QRELS", "FILE", "-a", "ndcg@10", "-b", "ndcg@1", "-q", "--format", "csv"],
                         RUN, ["-b", f"ndcg@{HUGE}"], {"QRELS": QRELS}),
    "fuse": Case(["fuse", "FILE", "RUN2", "-m", "rrf"], RUN, ["--depth", HUGE], {"RUN2": RUN2}),
    "overlap": Case(["overlap", "FILE", "RUN2", "-m", "rbo(p=0.9)", "-m", "kendall", "-q", "--format", "csv"], RUN,
                    ["-m", f"rbo(p=0.9)@{HUGE}"], {"RUN2": RUN2}),
    "compare-across": Case(["compare-across", "@Q@=FILE", "other=RES2", "--format", "json"], None,
                           ["-m", f"ndcg@{HUGE}"], json=True),
    "judges": Case(["judges", "FILE", "QRELS2", "RUN", "RUN2", "-m", "map", "--format", "csv"], QRELS,
                   ["--top", HUGE], {"QRELS2": QRELS2, "RUN": RUN, "RUN2": RUN2}),
    "pool": Case(["pool", "FILE", "RUN2", "--depth", "2", "--format", "csv"], RUN, ["--depth", HUGE], {"RUN2": RUN2}),
    "pool-bias": Case(["pool-bias", "QRELS", "FILE", "RUN2", "-m", "map", "--depth", "2", "--format", "csv"], RUN,
                      ["--depth", HUGE], {"QRELS": QRELS, "RUN2": RUN2}),
    "split": Case(["split", "FILE", "--method", "temporal", "--out", "OUT"], INTERACTIONS, ["--seed", HUGE]),
    "run-experiment": Case(["run-experiment", "-i", "FILE", "-r", "popular", "-r", "random", "-m", "ndcg@3", "-k",
                            "3", "--out", "OUT", "--no-progress"], INTERACTIONS, ["-k", HUGE]),
    "run-experiment CONFIG": Case(["run-experiment", "FILE", "--out", "OUT", "--no-progress"], CONFIG % 0,
                                  ["-k", HUGE]),
    "demo": Case(["demo", "-i", "FILE", "-k", "3", "--out", "OUT", "--no-progress"], INTERACTIONS, ["-k", HUGE]),
    "fuse --params": Case(["fuse", "RUN", "RUN2", "-m", "wsum", "--params", "FILE"], '{"weights": [0.3, 0.7]}',
                          ["--depth", HUGE], {"RUN": RUN, "RUN2": RUN2}, json=True),
    "evaluate-ratings --cost": Case(["evaluate-ratings", "RATINGS", "-m", "cost(snap=nearest)", "--cost", "FILE",
                                     "--format", "csv"], COSTS, None, {"RATINGS": RATINGS}, json=True),
    "metrics": Case(["metrics", "@Q@"], None, ["--family", HUGE], files=False),
    "trec_eval": Case(["trec_eval", "-q", "-m", "map", "-m", "P.1", "QRELS", "FILE"], RUN, ["-M", HUGE],
                      {"QRELS": QRELS}),
}

KINDS = ["gzip", "bz2", "lineless", "devzero", "utf16", "nested", "ids-control", "ids-breaks", "huge"]
FILE_KINDS = {"gzip", "bz2", "lineless", "devzero", "utf16", "nested"}
PARAMS = [(c, k) for c, case in CASES.items() for k in KINDS
          if (case.files or k not in FILE_KINDS) and (case.huge is not None or k != "huge")
          and (case.json or k != "nested")]


def test_every_command_has_a_case() -> None:
    """A new command of ``rankmeter --help`` fails here until it is given a case."""
    commands = set(group.list_commands(None))  # type: ignore[arg-type]
    covered = {name.split()[0] for name in CASES}
    assert commands <= covered, f"commands without a hostile case: {sorted(commands - covered)}"
    assert len(commands) >= 15, commands


@pytest.fixture(scope="module")
def font_cache() -> None:
    """matplotlib's font cache, built before any case is timed. The first use of matplotlib on a fresh machine
    (or after an upgrade) scans the system's fonts and writes the cache: tens of seconds once (one demo case took
    60 s), which is the machine's set-up, not the command's time. Later uses read the cache (demo and
    run-experiment draw their reports with it). Done once per worker, in a child with the cases' environment (the
    same cache folder); without matplotlib (the report extra), nothing to do."""
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env(), capture_output=True,
                   timeout=600, check=False)


@pytest.fixture(scope="module")
def saved_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Two saved experiments (run-experiment's results.json) as text, for compare-across."""
    d = tmp_path_factory.mktemp("saved")
    texts = []
    for seed in (0, 1):
        (d / f"c{seed}.toml").write_text(CONFIG % seed)
        out = run(["run-experiment", str(d / f"c{seed}.toml"), "--out", str(d / f"o{seed}"), "--no-progress"])
        assert out.returncode == 0, out.stderr
        texts.append((d / f"o{seed}" / "results.json").read_text())
    return texts[0], texts[1]


def _fill(text: str, ids: dict[str, str]) -> str:
    for k, v in ids.items():
        text = text.replace(k, v)
    return text


def _lineless(size: int = 3 * MB) -> bytes:
    """A few MB of plausible bytes without a newline."""
    return (b"q1 Q0 a 1 2.5 t " * (size // 16 + 1))[:size]


def _invoke(d: Path, case: Case, hostile: bytes | str | None, ids: dict[str, str], extra: list[str],
            aux: dict[str, str]) -> tuple[Outcome, int]:
    """Write the case's files under ``d`` (the hostile one as ``d/in/NAME``, or ``/dev/zero``) and run it;
    returns the outcome and the hostile input's size."""
    (d / "in").mkdir(parents=True, exist_ok=True)
    where: dict[str, str] = {}
    size = 0
    if isinstance(hostile, bytes):
        (d / "in" / case.name).write_bytes(hostile)
        where["FILE"] = str(d / "in" / case.name)
        size = len(hostile)
    elif hostile is not None:
        where["FILE"] = hostile
    for name, text in aux.items():
        (d / name.lower()).write_bytes(_fill(text, ids).encode("utf-8", "surrogateescape"))
        where[name] = str(d / name.lower())
        size += len(text)
    where["OUT"] = str(d / "out")
    shutil.rmtree(d / "out", ignore_errors=True)
    args = []
    for a in case.args:
        for name in sorted(where, key=len, reverse=True):  # QRELS2 before QRELS
            a = a.replace(name, where[name])
        args.append(_fill(a, {k: v.replace("\0", "") for k, v in ids.items()}))  # no NUL in a command line
    return run(args + extra), size


@pytest.mark.slow  # 149 cases, ~98 CPU-s in all (tests/slow_tests.txt)
@pytest.mark.usefixtures("font_cache")
@pytest.mark.parametrize(("command", "kind"), PARAMS, ids=[f"{c}-{k}" for c, k in PARAMS])
def test_hostile_input(tmp_path: Path, command: str, kind: str, request: pytest.FixtureRequest) -> None:
    case = CASES[command]
    aux = dict(case.aux)
    content = case.content
    if command == "compare-across":
        mine, other = request.getfixturevalue("saved_results")
        content, aux["RES2"] = mine, other
    ids = IDS.get(kind, PLAIN_IDS)
    valid = None if content is None else _fill(content, ids).encode("utf-8", "surrogateescape")
    if kind in ("gzip", "bz2"):
        assert valid is not None
        want, _ = _invoke(tmp_path / "plain", case, valid, ids, [], aux)
        assert want.returncode == 0, want.stderr
        packed = (gzip.compress if kind == "gzip" else bz2.compress)(valid)
        got, size = _invoke(tmp_path / kind, case, packed, ids, [], aux)
        got.check_clean()
        assert got.returncode == 0, got.stderr
        assert got.stdout == want.stdout
        got.check_bounds(size)
        return
    if kind == "lineless":
        got, size = _invoke(tmp_path, case, _lineless(), ids, [], aux)
        got.check_clean()
        assert got.returncode in (0, 2), got.stderr
    elif kind == "devzero":
        got, size = _invoke(tmp_path, case, "/dev/zero", ids, [], aux)
        got.check_clean()
        assert got.returncode == 2, got.stderr
    elif kind == "utf16":
        assert content is not None
        got, size = _invoke(tmp_path, case, _fill(content, PLAIN_IDS).encode("utf-16"), ids, [], aux)
        got.check_refused("UTF-16")
    elif kind == "huge":
        assert case.huge is not None
        got, size = _invoke(tmp_path, case, valid, ids, case.huge, aux)
        got.check_clean()
        assert got.returncode in (0, 2), got.stderr
        assert len(got.stderr) < 3000, got.stderr[:300]  # a 5000-digit value is not echoed whole
    elif kind == "nested":
        got, size = _invoke(tmp_path, case, b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, ids, [], aux)
        got.check_refused(*case.nested)
    else:  # ids with control characters and backslashes
        got, size = _invoke(tmp_path, case, valid, ids, [], aux)
        got.check_clean()
        assert got.returncode in (0, 2), got.stderr
    got.check_bounds(size)
