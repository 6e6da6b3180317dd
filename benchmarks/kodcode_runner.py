"""Per-submission cost of a KodCode test file in the sandbox: real pytest (in-process in the
sandbox child: the child may not exec) against the built-in runner, on passing (solution,
test_solution.py) pairs of KodCode's own demo trials (KodCode-AI/kodcode@1d3515b, Apache-2.0,
demo/*/self_verification_*/*/trial_*/). Usage, from the repository root:

    python benchmarks/kodcode_runner.py trials.json [N]

trials.json: [{"solution", "test", "result"}] read from those trial folders."""

from __future__ import annotations

import json
import statistics
import sys
import textwrap
import time

from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader

DRIVER = textwrap.dedent(
    """\
    import os, sys
    sys.dont_write_bytecode = True
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "{autoload}"
    open("solution.py", "w").write({solution!r})
    open("test_solution.py", "w").write({test!r})
    sys.path.insert(0, os.getcwd())
    import io, pytest
    real, sys.stdout = sys.stdout, io.StringIO()
    code = pytest.main(["-q", "-p", "no:cacheprovider", "test_solution.py"])
    sys.stdout = real
    print("EXIT", int(code))
    """
)


def main() -> None:
    with open(sys.argv[1]) as handle:
        rows = [r for r in json.load(handle) if r["result"] == "Pass"]
    rows = rows[: int(sys.argv[2]) if len(sys.argv) > 2 else 40]
    stdin = Problem("pytest", Harness.STDIN, [TestCase("", "EXIT 0\n")], judge="tokens")
    with Grader(GradeOptions(time_limit=20), workers=1) as grader:
        for label, make in (
            ("built-in runner", lambda r: (_problem(r), r["solution"])),
            ("pytest, plugins off", lambda r: (stdin, _driver(r, "1"))),
            ("pytest, plugins on", lambda r: (stdin, _driver(r, ""))),
        ):
            grader.grade(*make(rows[0]))  # warm the pool
            cpu, wall, passed = [], [], 0
            for row in rows:
                start = time.perf_counter()
                result = grader.grade(*make(row))
                wall.append(time.perf_counter() - start)
                cpu.append(sum(t.cpu_time for t in result.tests))
                passed += result.verdict == "AC"
            print(
                f"{label:22s} {len(rows)} submissions, {passed} AC: CPU median "
                f"{statistics.median(cpu) * 1e3:.1f} ms (p90 {sorted(cpu)[int(len(cpu) * 0.9)] * 1e3:.1f}),"
                f" wall median {statistics.median(wall) * 1e3:.1f} ms"
            )


def _problem(row) -> Problem:
    return Problem(
        "k", Harness.ASSERTION, [TestCase("", "")], test_code=row["test"],
        metadata={"test_runner": "pytest"}, environment="plain",
    )  # fmt: skip


def _driver(row, autoload: str) -> str:
    return DRIVER.format(solution=row["solution"], test=row["test"], autoload=autoload)


if __name__ == "__main__":
    main()
