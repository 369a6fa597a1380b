"""Whole-job benchmark of `rankmeter evaluate` against pytrec_eval and ranx users' jobs.

Generates 10,000 (and 100,000) queries x 100 ranked items with ~10 judged items each as TREC
files, in every *shape* asked for (``--shapes``) and both *orders within query* (``--orders``):

- shapes: ``doc`` (``q123`` / ``doc4567``, scores with 3 decimals: the README's first figures),
  ``QD`` (``Q123`` / ``D4567``, 4 decimals), ``num`` (ids as decimal text, ``123`` / ``4567``, 4 decimals);
  scores are rounded, so some items of a query tie;
- orders: ``score`` (each query's lines best first, rank column 1..100) and ``any`` (the same lines
  in an arbitrary order within their query, rank column 0: a scorer that writes as it scores, a
  re-ranker that keeps the candidate order).

Then it measures, in the same run, each tool's whole process: start the interpreter, import,
read both files, evaluate ndcg@10, ap@100, rr@100, p@10 and r@100, print the means (rankmeter:
``--format csv``; a second rankmeter job, ``--format json``, prints them with the provenance record,
which holds the SHA-256 of both input files: its row shows what that costs). Each job runs
in a fresh process; wall time, CPU time (user + system) and peak RSS are measured from outside.
"cold" is the first run (for ranx with an empty numba cache, so its JIT compilation counts),
once both files are in the OS's page cache (whichever tool ran first would otherwise pay for the
disk); "warm" is the median of the next runs, which are interleaved across the tools. rankmeter's
bytecode is compiled first, as pip does when it installs a package. Every ratio to every other
tool is printed, then one summary table of all files.

At 10M lines (100,000 queries) the warm runs are fewer (``--repeat-large``), ranx is left out
unless asked, and so is the trec_eval program, if on PATH (its query lookup is quadratic).

    python benchmarks/bench_evaluate.py [--queries 10000,100000] [--shapes QD,num] [--orders score,any]
                                        [--repeat 15] [--repeat-large 3] [--no-ranx]
    python benchmarks/bench_evaluate.py --queries 10000 --repeat 3 --no-ranx     # a quick look
    python benchmarks/bench_evaluate.py --shapes QD --orders any --ungrouped --no-ranx --no-json  # not grouped

Generated files are kept under benchmarks/_data (ignored by git) and reused.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
PY = sys.executable
BIN = Path(PY).parent

PYTREC_JOB = r"""
import sys, pytrec_eval
def read(path, col, cast):
    out = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            out.setdefault(f[0], {})[f[2]] = cast(f[col])
    return out
qrels = read(sys.argv[1], 3, int)
run = read(sys.argv[2], 4, float)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"})
res = ev.evaluate(run)
names = ["ndcg_cut_10", "map_cut_100", "recip_rank", "P_10", "recall_100"]
print({n: sum(r[n] for r in res.values()) / len(res) for n in names})
"""

RANX_JOB = r"""
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, ["ndcg@10", "map@100", "mrr@100", "precision@10", "recall@100"]))
"""

# id shape -> (query prefix, item prefix, decimals of the scores)
SHAPES = {"doc": ("q", "doc", 3), "QD": ("Q", "D", 4), "num": ("", "", 4)}
ORDERS = ("score", "any")
METRICS = ["-m", "ndcg@10", "-m", "ap@100", "-m", "rr@100", "-m", "p@10", "-m", "r@100"]


def _text(values: np.ndarray, prefix: str = "", suffix: str = "") -> Any:
    """Integers as decimal text, with a prefix and a suffix."""
    import pyarrow as pa
    import pyarrow.compute as pc

    out = pc.cast(pa.array(values), pa.string())
    return pc.binary_join_element_wise(pa.scalar(prefix), out, pa.scalar(suffix), "") if prefix or suffix else out


def _decimal_text(values: np.ndarray, decimals: int) -> Any:
    """Non-negative integers as decimal text with ``decimals`` digits after the point (123456 -> 12.3456)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    whole, frac = np.divmod(values, 10**decimals)
    return pc.binary_join_element_wise(pc.cast(pa.array(whole), pa.string()),
                                       pc.utf8_lpad(pc.cast(pa.array(frac), pa.string()), decimals, "0"), ".")


def _write_lines(fh: Any, *columns: Any) -> None:
    """Write rows of text columns as lines of space-separated fields (the last column ends each line)."""
    import pyarrow.compute as pc

    lines = pc.binary_join_element_wise(*columns, " ")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
    fh.write(memoryview(lines.buffers()[2])[offsets[lines.offset]:offsets[lines.offset + len(lines)]])


def generate(n_queries: int, depth: int = 100, judged: int = 10, shape: str = "QD", order: str = "score",
             seed: int = 0) -> tuple[Path, Path]:
    """The judgments and the run of one shape and order (the ``any`` run holds the ``score`` run's lines,
    each query's in an arbitrary order). Files are reused when present."""
    import pyarrow as pa

    DATA.mkdir(exist_ok=True)
    qpath = DATA / f"qrels_{shape}_{n_queries}.txt"
    rpath = DATA / f"run_{shape}_{order}_{n_queries}x{depth}.txt"
    if qpath.exists() and rpath.exists():
        return qpath, rpath
    qp, ip, decimals = SHAPES[shape]
    rng = np.random.default_rng(seed)
    shuffle = np.random.default_rng(seed + 1)
    catalogue, block = 1_000_000, 20_000
    tmp_r, tmp_q = rpath.with_suffix(".tmp"), qpath.with_suffix(".tmp")
    with open(tmp_r, "wb") as rf, (nullcontext(None) if qpath.exists() else open(tmp_q, "wb")) as qf:
        for q0 in range(0, n_queries, block):
            m = min(block, n_queries - q0)
            base = rng.integers(0, catalogue, m)
            step = rng.integers(1, 5000, m)  # (depth + judged) * 5000 < catalogue: distinct items per query
            cols = np.argsort(rng.random((m, depth + judged)), axis=1)  # arbitrary item order
            docs = (base[:, None] + step[:, None] * cols) % catalogue
            ranked = docs[:, :depth]
            scores = -np.sort(-rng.integers(0, 100 * 10**decimals, (m, depth)), axis=1)  # best first; ties
            ranks = np.broadcast_to(np.arange(1, depth + 1), (m, depth))
            # ~10 judged: half from the ranking (biased to the top), half unretrieved
            top = np.argsort(rng.random((m, depth // 2)), axis=1)[:, : judged // 2]
            unretrieved = docs[:, depth:depth + judged - judged // 2]
            jdocs = np.concatenate((np.take_along_axis(ranked, top, axis=1), unretrieved), axis=1)
            grades = rng.integers(0, 3, jdocs.shape)
            if order == "any":
                p = np.argsort(shuffle.random((m, depth)), axis=1)
                ranked, scores = np.take_along_axis(ranked, p, axis=1), np.take_along_axis(scores, p, axis=1)
                ranks = np.zeros((m, depth), dtype=np.int64)
            qids = np.arange(q0, q0 + m)
            _write_lines(rf, _text(np.repeat(qids, depth), qp), pa.scalar("Q0"), _text(ranked.ravel(), ip),
                         _text(ranks.ravel()), _decimal_text(scores.ravel(), decimals), pa.scalar("bench\n"))
            if qf is not None:
                _write_lines(qf, _text(np.repeat(qids, jdocs.shape[1]), qp), pa.scalar("0"), _text(jdocs.ravel(), ip),
                             _text(grades.ravel(), suffix="\n"))
    tmp_r.rename(rpath)
    if qf is not None:
        tmp_q.rename(qpath)
    return qpath, rpath


def measure(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """One fresh process: wall seconds, CPU seconds (user + system), peak RSS in MB, its stdout."""
    wrapper = (
        "import resource, subprocess, sys, time, json;"
        "t=time.perf_counter(); p=subprocess.run(sys.argv[1:], capture_output=True, text=True);"
        "dt=time.perf_counter()-t; ru=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(json.dumps({'rc': p.returncode, 'sec': dt, 'cpu': ru.ru_utime + ru.ru_stime, 'rss': ru.ru_maxrss/1024,"
        " 'out': p.stdout[-400:], 'err': p.stderr[-800:]}))"
    )
    out = subprocess.run([PY, "-c", wrapper, *cmd], capture_output=True, text=True, env=env)
    info = json.loads(out.stdout)
    if info["rc"] != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {info['err']}")
    return info  # type: ignore[no-any-return]


TREC_EVAL_MEASURES = ["-m", "ndcg_cut.10", "-m", "map_cut.100", "-m", "recip_rank", "-m", "P.10", "-m", "recall.100"]
OURS = "rankmeter evaluate (CLI)"
RANX = "ranx (from_file + evaluate)"


OURS_JSON = "rankmeter evaluate (CLI), --format json"
OURS_UNGROUPED = "rankmeter evaluate (CLI), lines not grouped by query"


def ungrouped(rpath: Path) -> Path:
    """The run's lines in a random order (queries not grouped: each query's lines all over the file)."""
    out = rpath.with_name(rpath.stem + "_ungrouped.txt")
    if not out.exists():
        lines = rpath.read_bytes().splitlines(keepends=True)
        order = np.random.default_rng(3).permutation(len(lines))
        tmp = out.with_suffix(".tmp")
        tmp.write_bytes(b"".join(lines[i] for i in order))
        tmp.rename(out)
    return out


def rankmeter_cmd(qpath: Path, rpath: Path, *extra: str, fmt: str = "csv") -> list[str]:
    """The job as pytrec_eval's: evaluate, print the means (``--format csv``: one ``metric,mean`` line each).
    ``fmt="json"`` prints them with the provenance record, which holds the SHA-256 of both input files."""
    return [str(BIN / "rankmeter"), "evaluate", str(qpath), str(rpath), *METRICS, "--format", fmt, *extra]


def warm_cache(paths: list[Path]) -> None:
    for path in paths:
        with open(path, "rb") as fh:  # into the page cache first: "cold" is about the tools, not the disk
            while fh.read(1 << 24):
                pass


def run_jobs(jobs: dict[str, list[str]], repeat: int, env: dict[str, str] | None,
             verbose: bool = True, most: dict[str, int] | None = None) -> dict[str, dict[str, Any]]:
    """Each job once cold, then ``repeat`` warm rounds interleaved across the jobs (a job named in ``most``
    only in its first rounds); per job: cold, the warm median (wall and CPU), every warm wall time and the
    peak RSS. A job that fails is reported and left out."""
    cold: dict[str, dict[str, Any]] = {}
    for name, cmd in jobs.items():
        try:
            info = measure(cmd, env)
        except (RuntimeError, FileNotFoundError) as exc:
            print(f"  {name}: skipped ({str(exc)[:200]})")
            continue
        cold[name] = info
        if verbose:
            print(f"  {name}: {info['out'].strip()[:160]}")
    # warm runs interleaved, so a change in the machine's load hits every tool alike
    warm: dict[str, list[dict[str, Any]]] = {name: [] for name in cold}
    for i in range(repeat):
        for name in cold:
            if i < (most or {}).get(name, repeat):
                warm[name].append(measure(jobs[name], env))
    out = {}
    for name in cold:
        runs = warm[name] or [cold[name]]
        out[name] = {"cold": cold[name]["sec"], "warm": statistics.median(w["sec"] for w in runs),
                     "cpu": statistics.median(w["cpu"] for w in runs), "walls": [w["sec"] for w in runs],
                     "rss": max([cold[name]["rss"]] + [w["rss"] for w in runs])}
    return out


def bench_file(n_queries: int, shape: str, order: str, args: argparse.Namespace,
               env: dict[str, str]) -> dict[str, dict[str, Any]]:
    qpath, rpath = generate(n_queries, args.depth, args.judged, shape, order)
    large = n_queries > 10_000
    repeat = args.repeat_large if large else args.repeat
    print(f"\ndata: {n_queries} queries x {args.depth} items = {n_queries * args.depth / 1e6:g}M run lines, "
          f"ids {shape} ({'/'.join(p + '123' for p in SHAPES[shape][:2])}), order within query: {order} "
          f"({rpath.stat().st_size / 1e6:.1f} MB run file), ~{args.judged} judged per query; {repeat} warm runs")
    jobs = {
        OURS: rankmeter_cmd(qpath, rpath),
        "pytrec_eval (read dicts + evaluate)": [PY, "-c", PYTREC_JOB, str(qpath), str(rpath)],
    }
    if not args.no_json:  # the same with the provenance record: what hashing both inputs costs
        jobs[OURS_JSON] = rankmeter_cmd(qpath, rpath, fmt="json")
    extra = [qpath, rpath]
    if args.ungrouped and order == "any":  # the same lines, not grouped by query (issue #28: at most 1.3x)
        shuffled = ungrouped(rpath)
        jobs[OURS_UNGROUPED] = rankmeter_cmd(qpath, shuffled)
        extra.append(shuffled)
    if args.seven and not large and order == "score":
        # the same run with a 7th column (a run id written twice, as some tools do): must be as fast
        r7 = rpath.with_name(rpath.stem + "_7col.txt")
        if not r7.exists():
            with open(rpath) as src, open(r7, "w") as dst:
                for line in src:
                    dst.write(line.rstrip("\n") + " extra\n")
        jobs["rankmeter evaluate (CLI), 7-column run"] = rankmeter_cmd(qpath, r7)
        extra.append(r7)
    if not args.no_ranx and (not large or args.ranx_large):
        jobs[RANX] = [PY, "-c", RANX_JOB, str(qpath), str(rpath)]
    trec_eval = shutil.which("trec_eval")
    if trec_eval and (not large or args.trec_eval_large):  # its query lookup is quadratic
        jobs["trec_eval (C program)"] = [trec_eval, *TREC_EVAL_MEASURES, str(qpath), str(rpath)]
    warm_cache(extra)
    results = run_jobs(jobs, repeat, env, most={RANX: args.ranx_repeat})
    for name, r in results.items():
        print(f"  {name}: warm runs {', '.join(f'{w:.2f}' for w in r['walls'])} s")
    print(f"{'tool':42s} {'cold s':>8s} {'warm s':>8s} {'CPU s':>8s} {'peak MB':>8s} {'cold/warm':>9s}")
    for name, r in results.items():
        print(f"{name:42s} {r['cold']:8.2f} {r['warm']:8.2f} {r['cpu']:8.2f} {r['rss']:8.0f} "
              f"{r['cold'] / r['warm']:9.2f}")
    ours = results.get(OURS)
    if ours:
        for name, r in results.items():
            if name.startswith("rankmeter"):
                continue
            print(f"rankmeter / {name}: {ours['warm'] / r['warm']:.3f} of its warm time "
                  f"({r['warm'] / ours['warm']:.1f}x faster), {ours['cold'] / r['cold']:.3f} cold, "
                  f"CPU {ours['cpu'] / r['cpu']:.3f}, "
                  f"peak memory {ours['rss'] / r['rss']:.2f}x theirs")
        if OURS_UNGROUPED in results:  # (interleaved runs: paired by round)
            u = results[OURS_UNGROUPED]
            paired = sorted(a / b for a, b in zip(u["walls"], ours["walls"], strict=True))
            print(f"lines not grouped / grouped (any order within query): {u['warm'] / ours['warm']:.3f} of its "
                  f"warm time (paired by round: median {statistics.median(paired):.3f}, "
                  f"{paired[0]:.3f}-{paired[-1]:.3f}), peak {u['rss']:.0f} MB")
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", default="10000,100000",
                    help="comma-separated numbers of queries (x --depth run lines each)")
    ap.add_argument("--shapes", default="QD,num", help=f"comma-separated id shapes, of {', '.join(SHAPES)}")
    ap.add_argument("--orders", default="score,any", help="comma-separated orders within query: score, any")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--judged", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=15, help="warm runs at 1M lines and below")
    ap.add_argument("--repeat-large", type=int, default=3, help="warm runs above 1M lines")
    ap.add_argument("--no-ranx", action="store_true", help="leave ranx out (its JIT takes a minute cold)")
    ap.add_argument("--no-json", action="store_true", help="leave out the --format json job (means and the "
                    "provenance record, with the SHA-256 of both inputs)")
    ap.add_argument("--ranx-large", action="store_true", help="run ranx above 1M lines too (minutes)")
    ap.add_argument("--ranx-repeat", type=int, default=3, help="warm runs of ranx (in the first rounds; ~9 s each "
                    "at 1M lines)")
    ap.add_argument("--trec-eval-large", action="store_true", help="run the trec_eval program above 1M lines too "
                    "(minutes: its query lookup is quadratic)")
    ap.add_argument("--seven", action="store_true", help="also the score-ordered 1M run with a 7th column")
    ap.add_argument("--ungrouped", action="store_true", help="also the lines of each run in any order within query "
                    "shuffled across queries (not grouped by query), as a ratio of the grouped run's time")
    args = ap.parse_args()
    shapes = [x.strip() for x in args.shapes.split(",")]
    orders = [x.strip() for x in args.orders.split(",")]
    for x in shapes:
        if x not in SHAPES:
            raise SystemExit(f"--shapes: unknown shape {x!r} (expected {', '.join(SHAPES)})")
    for x in orders:
        if x not in ORDERS:
            raise SystemExit(f"--orders: unknown order {x!r} (expected {', '.join(ORDERS)})")
    numba_cache = tempfile.mkdtemp(prefix="numba-cache-")
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache)
    # an installed package has its bytecode compiled by pip; an editable install under
    # PYTHONDONTWRITEBYTECODE=1 never writes it, and would compile rankmeter's sources on every run
    import rankmeter

    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}")
    summary = []
    try:
        for n in (int(x) for x in args.queries.split(",")):
            for shape in shapes:
                for order in orders:
                    summary.append((n, shape, order, bench_file(n, shape, order, args, env)))
    finally:
        shutil.rmtree(numba_cache, ignore_errors=True)
    print("\nsummary: rankmeter's warm wall time as a ratio of each tool's (medians), and its peak memory")
    others = sorted({name for *_, res in summary for name in res if not name.startswith("rankmeter")})
    print(f"{'lines':>6s} {'ids':>4s} {'order':>6s} {'rankmeter s':>11s} {'CPU s':>6s} {'peak MB':>7s} "
          + " ".join(f"{name.split()[0]:>12s}" for name in others) + f" {'json s':>7s} {'json/pytrec':>11s}")
    pytrec = next((name for name in others if name.startswith("pytrec")), None)
    for n, shape, order, res in summary:
        ours = res.get(OURS)
        if not ours:
            continue
        ratios = " ".join(f"{ours['warm'] / res[name]['warm']:12.4f}" if name in res else f"{'-':>12s}"
                          for name in others)
        js = res.get(OURS_JSON)
        json_cols = (f" {js['warm']:7.2f} {js['warm'] / res[pytrec]['warm']:11.4f}" if js and pytrec in res
                     else f" {'-':>7s} {'-':>11s}")
        print(f"{n * args.depth / 1e6:5g}M {shape:>4s} {order:>6s} {ours['warm']:11.2f} {ours['cpu']:6.2f} "
              f"{ours['rss']:7.0f} {ratios}{json_cols}")
    for n, shape, _order, res in summary:
        if OURS_UNGROUPED in res and OURS in res:
            u, g = res[OURS_UNGROUPED], res[OURS]
            print(f"{n * args.depth / 1e6:5g}M {shape:>4s}, lines not grouped by query: {u['warm']:.2f} s against "
                  f"{g['warm']:.2f} s grouped ({u['warm'] / g['warm']:.3f}x), CPU {u['cpu']:.2f} s, "
                  f"peak {u['rss']:.0f} MB")


if __name__ == "__main__":
    main()
