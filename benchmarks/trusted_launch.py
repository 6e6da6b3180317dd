"""What the launcher's confinement costs a trusted program (issue 51): a checker run (an
open-r1 codeforces checker, the grader's interpreter) and a build (g++ on a small program,
no precompiled header, every build a new source), timed through the library, in this
checkout and, with ``--baseline DIR``, in another checkout of the project (run in a child
with that checkout first on its path), in turns, and the ratios printed.

    python benchmarks/trusted_launch.py --runs 40 --baseline /path/to/old/checkout

Medians of ``--rounds`` rounds, each round ``--runs`` checker runs then ``--runs // 4``
builds, the two checkouts alternating round by round so that drift in the machine's speed
falls on both."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this checkout
CHECKER = "import sys\nprint(1 if open(sys.argv[3]).read().split() else 0)\n"
SOURCE = '#include <cstdio>\nint main() {{ int n; scanf("%d", &n); printf("%d\\n", n + {k}); }}\n'


def measure(runs: int) -> dict[str, float]:
    """Seconds per checker run and per build, in this process's checkout."""
    from evaluator.judges.checker import build_checker
    from evaluator.languages import get_language
    from evaluator.languages.builds import Builder

    checker = build_checker({"type": "codeforces", "code": CHECKER})
    start = time.perf_counter()
    for _ in range(runs):
        assert checker.run("1\n", b"2\n", "2\n")[0].value == "AC"
    checked = (time.perf_counter() - start) / runs
    cpp, builds = get_language("cpp"), max(1, runs // 4)
    with Builder(prepare=False) as builder:
        start = time.perf_counter()
        for k in range(builds):  # each source new: no build answered from the cache
            source = SOURCE.format(k=time.monotonic_ns() + k)
            assert builder.submit(cpp, source, cpp.default_flags).result().ok
        built = (time.perf_counter() - start) / builds
    return {"checker_s": checked, "build_s": built}


def in_checkout(path: str, runs: int) -> dict[str, float]:
    """:func:`measure` in a child whose ``evaluator`` is the one in the checkout ``path``."""
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--measure", str(runs)],
        capture_output=True, text=True, check=True, cwd=path,
        env={**os.environ, "PYTHONPATH": path},
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", help="another checkout of the project to compare with")
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)  # the child's part
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    ours: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(args.rounds):
        ours.append(in_checkout(ROOT, args.runs))
        if args.baseline:
            theirs.append(in_checkout(os.path.abspath(args.baseline), args.runs))
    for key, what in (("checker_s", "checker run"), ("build_s", "g++ build")):
        mine = statistics.median(r[key] for r in ours)
        line = f"{what:12} this checkout {mine * 1000:8.1f} ms"
        if theirs:
            base = statistics.median(r[key] for r in theirs)
            line += f"   baseline {base * 1000:8.1f} ms   ratio {mine / base:5.2f}x"
        print(line)


if __name__ == "__main__":
    main()
