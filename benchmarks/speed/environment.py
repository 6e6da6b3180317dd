"""Does grading slow down as packages are installed? The same call-based suite graded by two
interpreters of this checkout: the base install's and the current one (``setup.sh``'s, every
extra), in turns, one run.

Workload: LeetCodeDataset v0.3.1 references with their tests, call-based, as
``vs_lcb.py``'s ``calls`` (each program is the record's preamble, its imports and helpers,
followed by the completion; ``--limit N`` the first N that convert, ``--max-tests K`` at most
K tests each). A correctness pass grades every program in both environments; only the
programs both pass are timed, so that each environment does the same work. The programs only
one passes are listed with the other's verdict: a reference whose preamble imports
``sortedcontainers`` fails with ``ModuleNotFoundError`` where it is not installed, so a suite
"passed by every strategy" timed in the base install is a smaller suite (``extra_programs``
in the report, and their time in the current environment).

Each round grades the common programs in both environments (the order swapped every round so
that drift hits both alike), each in a fresh interpreter of its environment with this
checkout first on its path: ``Grader`` with ``--workers`` workers, a warm-up call, then one
timed ``grade_many``; CPU is the whole tree's (the worker process, its fork servers, their
templates and children), as ``sandbox_overhead.py`` counts it. Figures are medians over
``--repeat`` rounds; ``ratio`` is current / base (the goal: at most 1.05).

The base environment: ``--base-python PATH`` (a virtual environment with ``pip install -e .``
and nothing else), or one made here in a temporary directory (``python -m venv``, then
``pip install -e <repo>``: this needs the package index).

Usage: ``python benchmarks/speed/environment.py [--base-python PATH] [--python PATH]
[--limit N] [--max-tests K] [--workers 2] [--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(HERE.parent)]


# -- in each environment: grade the suite ----------------------------------------------------


def load_suite(limit: int | None, max_tests: int | None, only: set[str] | None) -> list:
    """(problem, code) pairs of the LeetCodeDataset references (see the module docstring)."""
    import speed

    pairs = []
    for record in speed.read_leetcode(speed.DATA / "leetcodedataset" / "v0.3.1-test.jsonl.gz"):
        if limit is not None and len(pairs) >= limit:
            break
        try:
            lcb = speed.leetcode_to_lcb(record)
        except speed.Skipped:
            continue
        problem = speed.problem_from_lcb(lcb)
        if only is not None and problem.id not in only:
            continue
        if max_tests:
            problem.tests[:] = problem.tests[:max_tests]
        pairs.append((problem, lcb["reference_solution"]))
    return pairs


def grade_suite(args: argparse.Namespace) -> dict[str, Any]:
    """Grade the suite once in this interpreter: per-program outcomes, wall and CPU."""
    from sandbox_overhead import cpu_between, snapshot_end, snapshot_start

    from evaluator.runner.grading import GradeOptions, Grader

    only = set(json.loads(Path(args.only).read_text())) if args.only else None
    pairs = load_suite(args.limit, args.max_tests, only)
    grader = Grader(GradeOptions(time_limit=args.time_limit), workers=args.workers)
    try:
        grader.grade_many(pairs[: args.workers])  # warm: servers started, templates forked
        start = snapshot_start()
        results = grader.grade_many(pairs)
        end = snapshot_end()
    finally:
        grader.close()
    return {
        "wall_s": end.wall - start.wall,
        "cpu_s": cpu_between(start, end)["total"],
        "programs": len(pairs),
        "tests": sum(len(problem.tests) for problem, _ in pairs),
        "outcomes": {
            problem.id: [result.passed, f"{result.verdict.value}: {result.message[:120]}"]
            for (problem, _), result in zip(pairs, results, strict=True)
        },
    }


# -- the driver: both environments in turns --------------------------------------------------


def make_base_environment(where: str) -> str:
    """A virtual environment with this checkout's base install only; its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", where], check=True)
    python = os.path.join(where, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "-e", str(REPO)], check=True)
    return python


def run_in(python: str, args: argparse.Namespace, only: list[str] | None) -> dict[str, Any]:
    """One grading of the suite by ``python`` (a fresh process, this checkout first)."""
    with tempfile.TemporaryDirectory(prefix="mcenv-") as where:
        out = Path(where) / "out.json"
        command = [python, __file__, "--worker", str(out), *worker_flags(args)]
        if only is not None:
            listed = Path(where) / "only.json"
            listed.write_text(json.dumps(only))
            command += ["--only", str(listed)]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        subprocess.run(command, check=True, env=env)
        return json.loads(out.read_text())


def worker_flags(args: argparse.Namespace) -> list[str]:
    flags = ["--workers", str(args.workers), "--time-limit", str(args.time_limit)]
    if args.limit is not None:
        flags += ["--limit", str(args.limit)]
    if args.max_tests is not None:
        flags += ["--max-tests", str(args.max_tests)]
    return flags


def compare(args: argparse.Namespace, pythons: dict[str, str]) -> dict[str, Any]:
    first = {name: run_in(python, args, None) for name, python in pythons.items()}
    base, current = first["base"]["outcomes"], first["current"]["outcomes"]
    common = sorted(pid for pid in base if base[pid][0] and current.get(pid, [False])[0])
    extra = sorted(pid for pid in current if current[pid][0] and not base.get(pid, [True])[0])
    print(f"{len(common)} programs pass in both; {len(extra)} only in the current one", flush=True)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
    order = list(pythons)
    for round_ in range(args.repeat):
        for name in order:
            run = run_in(pythons[name], args, common)
            run.pop("outcomes")
            runs[name].append(run)
            print(f"round {round_ + 1} {name}: {run['wall_s']:.2f} s wall, "
                  f"{run['cpu_s']:.2f} s CPU", flush=True)  # fmt: skip
        order.reverse()
    extra_run = run_in(pythons["current"], args, extra) if extra else None
    medians = {
        name: {key: statistics.median(r[key] for r in rs) for key in ("wall_s", "cpu_s")}
        for name, rs in runs.items()
    }
    return {
        "pythons": pythons,
        "programs": len(common),
        "tests": runs["base"][0]["tests"] if common else 0,
        "median": medians,
        "ratio_wall": medians["current"]["wall_s"] / medians["base"]["wall_s"],
        "ratio_cpu": medians["current"]["cpu_s"] / medians["base"]["cpu_s"],
        "runs": runs,
        "extra_programs": {pid: base.get(pid, [False, "missing"])[1] for pid in extra},
        "extra_programs_current": (
            {k: extra_run[k] for k in ("programs", "tests", "wall_s", "cpu_s")}
            if extra_run
            else None
        ),
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-python", help="the base install's interpreter (else made)")
    parser.add_argument("--python", default=sys.executable, help="the current environment's")
    parser.add_argument("--limit", type=int, help="the first N programs that convert")
    parser.add_argument("--max-tests", type=int, help="at most K tests a program")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=6.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the report here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: grade, write here
    parser.add_argument("--only", help=argparse.SUPPRESS)  # internal: a JSON list of ids
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        Path(args.worker).write_text(json.dumps(grade_suite(args)))
        return 0
    with tempfile.TemporaryDirectory(prefix="mcbase-") as where:
        base = args.base_python or make_base_environment(where)
        report = compare(args, {"base": base, "current": args.python})
    median = report["median"]
    print(
        f"\n{report['programs']} programs, {report['tests']} tests, {args.workers} workers: "
        f"base {median['base']['wall_s']:.2f} s ({median['base']['cpu_s']:.2f} s CPU), "
        f"current {median['current']['wall_s']:.2f} s ({median['current']['cpu_s']:.2f} s CPU)"
        f"\nratio current/base: wall {report['ratio_wall']:.3f}, CPU {report['ratio_cpu']:.3f}"
    )
    if report["extra_programs"]:
        extra = report["extra_programs_current"]
        print(
            f"{len(report['extra_programs'])} programs pass only in the current environment "
            f"({extra['tests']} tests, {extra['wall_s']:.2f} s wall there); in the base one: "
            + "; ".join(f"{k}: {v}" for k, v in report["extra_programs"].items())
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
