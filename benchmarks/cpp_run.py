"""C++ on the RL pattern: ``--completions`` C++ programs x ``--tests`` tests in one call of a
warm grader (``--workers``, default 2), and the per-test overhead of a sandboxed run above the
program's own time, measured in one run.

The completions are distinct sources (a comment numbers each, so each is built: no cache
hit) in four styles of the same stdin program (the sum of a line of integers: ``cin``,
unsynced ``cin``, ``scanf``, ``getchar_unlocked``), each test a different line. Measured:

``first call``  builds (confined, with the precompiled header, prepared before the clock
    starts) and runs: what one GRPO step of C++ completions costs.
``second call``  the same programs again: every build is a cache hit, so this is the runs.
``plain``  each style's binary run directly, ``./solution < input > output`` by a subprocess
    per test from ``--workers`` threads: a judge's run with no sandbox. Its child's own CPU
    (``wait4``) is the program's own time.

CPU is the whole process tree's (the caller, the fork servers, templates, test children and
builds: ``sandbox_overhead.py``'s accounting). The per-test overhead is the second call's CPU
per test minus the program's own CPU per test. Every result is checked (AC), else the run is
void (exit 1).

Usage: ``python benchmarks/cpp_run.py [--completions 256] [--tests 10] [--workers 2]
[--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from sandbox_overhead import cpu_between, snapshot_end, snapshot_start  # noqa: E402

from evaluator.languages import get_language  # noqa: E402
from evaluator.problem import Harness, Problem, TestCase, Verdict  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402

CPP = get_language("cpp")
STYLES = {
    "cin": """#include <bits/stdc++.h>
int main() { long long x, s = 0; while (std::cin >> x) s += x; std::cout << s << std::endl; }
""",
    "cin-unsynced": """#include <bits/stdc++.h>
using namespace std;
int main() { ios::sync_with_stdio(false); cin.tie(nullptr);
  long long x, s = 0; while (cin >> x) s += x; cout << s << '\\n'; }
""",
    "scanf": """#include <bits/stdc++.h>
int main() { long long x, s = 0; while (scanf("%lld", &x) == 1) s += x; printf("%lld\\n", s); }
""",
    "getchar": """#include <bits/stdc++.h>
int main() { long long s = 0, x = 0; int c; bool in = false, neg = false;
  while ((c = getchar_unlocked()) != EOF) {
    if (c == '-') neg = true;
    else if (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); in = true; }
    else if (in) { s += neg ? -x : x; x = 0; in = neg = false; }
  }
  if (in) s += neg ? -x : x; printf("%lld\\n", s); }
""",
}


def make_problem(tests: int, seed: int) -> Problem:
    rng = random.Random(seed)
    cases = []
    for _ in range(tests):
        values = [rng.randint(-(10**9), 10**9) for _ in range(rng.randint(1, 20))]
        cases.append(TestCase(" ".join(map(str, values)) + "\n", f"{sum(values)}\n"))
    return Problem("sum", Harness.STDIN, cases)


def completions(count: int) -> list[str]:
    styles = list(STYLES.values())
    return [styles[i % len(styles)] + f"// completion {i}\n" for i in range(count)]


def timed_call(grader: Grader, problem: Problem, sources: list[str]) -> dict[str, float]:
    start = snapshot_start()
    results = grader.grade_many([(problem, source, "cpp") for source in sources])
    end = snapshot_end()
    bad = [r for r in results if r.verdict is not Verdict.AC]
    if bad:
        sys.exit(f"void: {len(bad)} programs were not accepted ({bad[0].to_dict()})")
    return {"wall": end.wall - start.wall, **cpu_between(start, end)}


def plain_runs(problem: Problem, workers: int, rounds: int) -> dict[str, float]:
    """Every style's binary on every test, ``rounds`` times: a subprocess per test."""
    with tempfile.TemporaryDirectory() as where:
        binaries = []
        for name, source in STYLES.items():
            Path(where, f"{name}.cpp").write_text(source)
            subprocess.run(
                [CPP.compiler, *CPP.default_flags, "-o", name, f"{name}.cpp"], cwd=where, check=True
            )
            binaries.append(os.path.join(where, name))
        inputs = []
        for index, test in enumerate(problem.tests):
            path = os.path.join(where, f"in{index}")
            Path(path).write_text(test.input)
            inputs.append((path, test.output))
        work = [(b, i) for _ in range(rounds) for b in binaries for i in inputs]

        def one(item: tuple[str, tuple[str, str]]) -> float:
            binary, (path, expected) = item
            with open(path, "rb") as stdin:
                process = subprocess.Popen([binary], stdin=stdin, stdout=subprocess.PIPE)
                out = process.stdout.read()  # type: ignore[union-attr]
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = status
            if out.decode() != expected:
                sys.exit("void: a plain run gave a wrong answer")
            return usage.ru_utime + usage.ru_stime

        start = snapshot_start()
        with ThreadPoolExecutor(workers) as pool:
            own = list(pool.map(one, work))
        end = snapshot_end()
    return {"wall": end.wall - start.wall, "tests": len(work), "own": sum(own)} | cpu_between(
        start, end
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--completions", type=int, default=256)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="calls of each kind (medians)")
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    problem = make_problem(args.tests, seed=0)
    tests = args.completions * args.tests
    options = GradeOptions(time_limit=1.0, memory_limit=256)
    first, second = [], []
    with Grader(options, workers=args.workers) as grader:
        grader.builder.prepared(CPP, CPP.default_flags)  # the header, before any clock
        warm = completions(args.workers)  # start the servers, load g++ and the header
        timed_call(grader, problem, [s + "// warm-up\n" for s in warm])
        for attempt in range(args.repeat):
            sources = [s + f"// call {attempt}\n" for s in completions(args.completions)]
            first.append(timed_call(grader, problem, sources))
            second.append(timed_call(grader, problem, sources))
    plain = plain_runs(problem, args.workers, max(1, tests // (len(STYLES) * args.tests)))

    def median(rows: list[dict[str, float]], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    own_ms = 1000 * plain["own"] / plain["tests"]
    report = {
        "completions": args.completions,
        "tests per completion": args.tests,
        "workers": args.workers,
        "first call wall s": median(first, "wall"),
        "first call CPU s": median(first, "total"),
        "first call completions/s": args.completions / median(first, "wall"),
        "second call wall s": median(second, "wall"),
        "second call CPU s": median(second, "total"),
        "run CPU ms per test": 1000 * median(second, "total") / tests,
        "run wall ms per test": 1000 * median(second, "wall") / tests,
        "plain wall ms per test": 1000 * plain["wall"] / plain["tests"],
        "plain CPU ms per test (with the subprocess's)": 1000 * plain["total"] / plain["tests"],
        "program's own CPU ms per test": own_ms,
        "per-test overhead CPU ms": 1000 * median(second, "total") / tests - own_ms,
    }
    print(
        f"{CPP.version()}; {args.completions} completions x {args.tests} tests, "
        f"{args.workers} workers, medians of {args.repeat} calls"
    )
    for key, value in report.items():
        print(
            f"  {key:48} {value:10.3f}" if isinstance(value, float) else f"  {key:48} {value:>10}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
