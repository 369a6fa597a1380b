"""Benchmark regression guard (``make bench-quick``, under a minute): rankmeter's main paths as ratios to pytrec_eval.

Each path is a whole ``rankmeter evaluate`` process on 1M run lines or rows (100 items per query);
the yardstick is pytrec_eval's whole job on the score-ordered 1M-line TREC file (read the files into
dicts, evaluate). Ratios, not times, so the guard holds on a faster or slower machine. Every job runs
``--repeat`` times (default 3) in rounds across the jobs, and the median wall time of each is used.

The ratios are compared with the committed reference (``bench_quick_reference.json``): the command
exits with status 1, naming each path, when a ratio is more than ``--tolerance`` (default 15%) above
its reference. ``--write-reference`` records this run's ratios as the new reference (do it on an
idle machine: on a busy one every ratio moves by more than the tolerance). On a busy machine,
``--cpu`` compares ratios of CPU time (user + system) instead, which load moves far less (but which
cannot see a loss of parallelism).

    python benchmarks/bench_quick.py                      # check against the reference
    python benchmarks/bench_quick.py --write-reference    # record a new reference

Data: generated once under benchmarks/_data (by bench_evaluate.py and bench_scale.py's generators).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_evaluate as be  # noqa: E402  (a sibling script)
import bench_scale as bs  # noqa: E402

REFERENCE = HERE / "bench_quick_reference.json"
YARDSTICK = "pytrec_eval (read dicts + evaluate), TREC, score order"
QUERIES = 10_000  # x 100 items: 1M run lines


def jobs() -> dict[str, list[str]]:
    """Every path's command, the yardstick first."""
    q_qd, r_score = be.generate(QUERIES, shape="QD", order="score")
    _, r_any = be.generate(QUERIES, shape="QD", order="any")
    q_num, r_num = be.generate(QUERIES, shape="num", order="any")
    rows = QUERIES * 100
    p_int, pq_int = bs.generate(rows)
    p_text, pq_text = bs.generate_text(rows, "any")
    chunk = ["--chunk-rows", "250000"]
    return {
        YARDSTICK: [be.PY, "-c", be.PYTREC_JOB, str(q_qd), str(r_score)],
        "TREC, score order (in-process, both cores)": be.rankmeter_cmd(q_qd, r_score),
        "TREC, any order within query": be.rankmeter_cmd(q_qd, r_any),
        "TREC, decimal-text ids, any order within query": be.rankmeter_cmd(q_num, r_num),
        "TREC, not grouped by query (read whole)": be.rankmeter_cmd(q_qd, be.ungrouped(r_any)),
        "Parquet streamed, integer ids": be.rankmeter_cmd(pq_int, p_int, *chunk),
        "Parquet streamed, text ids, any order within query": be.rankmeter_cmd(pq_text, p_text, *chunk),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each job (the median is used)")
    ap.add_argument("--tolerance", type=float, default=0.15, help="allowed rise of a ratio over its reference")
    ap.add_argument("--write-reference", action="store_true", help=f"record this run's ratios in {REFERENCE.name}")
    ap.add_argument("--cpu", action="store_true", help="compare ratios of CPU time, not wall time (a busy machine)")
    args = ap.parse_args()
    import rankmeter

    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)  # as pip does on install
    t0 = time.perf_counter()
    cmds = jobs()
    be.warm_cache([Path(a) for cmd in cmds.values() for a in cmd if a.endswith((".txt", ".parquet"))])
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    cpus: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(args.repeat):  # rounds across the jobs: a change in the machine's speed hits all alike
        for name, cmd in cmds.items():
            got = be.measure(cmd)
            walls[name].append(got["sec"])
            cpus[name].append(got["cpu"])
    base = statistics.median(walls[YARDSTICK])
    ratios = {name: statistics.median(w) / base for name, w in walls.items() if name != YARDSTICK}
    cpu_base = statistics.median(cpus[YARDSTICK])
    cpu_ratios = {name: statistics.median(c) / cpu_base for name, c in cpus.items() if name != YARDSTICK}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}; "
          f"{YARDSTICK}: {base:.2f} s (median of {args.repeat})")
    ref: dict[str, Any] = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {}
    want = ref.get("cpu_ratios" if args.cpu else "ratios", {})
    failed = []
    what = "CPU ratio" if args.cpu else "ratio"
    print(f"{'path (1M lines or rows)':52s} {'median s':>8s} {'CPU s':>6s} {what:>9s} {'reference':>9s}")
    for name, r in (cpu_ratios if args.cpu else ratios).items():
        limit = want.get(name)
        flag = ""
        if limit is not None and r > limit * (1 + args.tolerance):
            failed.append(name)
            flag = f"  SLOWER: more than {args.tolerance:.0%} above the reference"
        print(f"{name:52s} {statistics.median(walls[name]):8.2f} {statistics.median(cpus[name]):6.2f} {r:9.3f} "
              f"{'-' if limit is None else f'{limit:.3f}':>9s}{flag}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.write_reference:
        REFERENCE.write_text(json.dumps({
            "written": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "load": round(os.getloadavg()[0], 2), "repeat": args.repeat, "yardstick": YARDSTICK,
            "yardstick_s": round(base, 3), "ratios": {k: round(v, 4) for k, v in ratios.items()},
            "yardstick_cpu_s": round(cpu_base, 3), "cpu_ratios": {k: round(v, 4) for k, v in cpu_ratios.items()}},
            indent=2) + "\n")
        print(f"wrote {REFERENCE}")
        return
    missing = [name for name in ratios if name not in want]
    if missing:
        print(f"no reference for: {'; '.join(missing)} (run with --write-reference on an idle machine)")
    if failed:
        print(f"bench-quick: slower than the reference: {'; '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
