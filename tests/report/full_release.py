"""A results file of the size of a full LiveCodeBench release, made in code (never committed).

``release_v6`` has 1,055 problems; with 10 samples each that is 10,550 graded programs, each
with its tests' verdicts, CPU times and peak memory, in what ``mcevaluate lcb --output``
writes. The mix is realistic: platforms and difficulties in LiveCodeBench's proportions,
contest dates from May 2023 to April 2025, per-problem solve rates by difficulty, failures
that are wrong answers (with their first difference and stdout), time limits (at the limit),
runtime errors (with a traceback's end), memory limits and a few output limits.

Each row carries what this grader's rows carry: its problem's limits (LiveCodeBench's 6 s and
1 GB: its problems have none of their own) and the tests its samples first failed (the first
three of a problem's tests public, as in LiveCodeBench's ``public_test_cases``).

Run B of a comparison is the same problems with another sample seed and a ``skill`` shift of
every problem's solve rate.

``python tests/report/full_release.py OUT.json [--skill 0.05 --sample-seed 1]`` writes one.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from typing import Any

from evaluator.formats import write_lcb_results
from evaluator.summary import summarize

PROBLEMS = 1055
SAMPLES = 10
TIME_LIMIT = 6.0
MEMORY_LIMIT = 1024
OPTIONS = {
    "time_limit": TIME_LIMIT,
    "memory_limit": MEMORY_LIMIT,
    "judge": "lines",
    "isolation": "adaptive",
    "environment": None,
    "profile": "default",
    "early_exit": False,
}
_PLATFORMS = (("leetcode", 0.38), ("atcoder", 0.42), ("codeforces", 0.20))
_DIFFICULTY = {"easy": 0.78, "medium": 0.42, "hard": 0.09}  # mean solve rate
_FAILURES = (("WA", 0.58), ("TLE", 0.16), ("RE", 0.19), ("MLE", 0.05), ("OLE", 0.02))
_ERRORS = (
    "IndexError: list index out of range",
    "ValueError: invalid literal for int() with base 10: ''",
    "KeyError: 3",
    "RecursionError: maximum recursion depth exceeded",
    "ZeroDivisionError: division by zero",
    "TypeError: 'NoneType' object is not subscriptable",
)
_PROGRAM = (
    "import sys\nfrom collections import defaultdict\n\n\ndef solve(data):\n"
    + "    # a typical contest solution, about 1.5 kB\n" * 30
    + "    return sum(data)\n\n\nprint(solve(list(map(int, sys.stdin.read().split()))))\n"
)


def _pick(rng: random.Random, weighted: Sequence[tuple[str, float]]) -> str:
    return rng.choices([name for name, _ in weighted], [w for _, w in weighted])[0]


def _problem(index: int, rng: random.Random) -> dict[str, Any]:
    platform = _pick(rng, _PLATFORMS)
    difficulty = rng.choices(list(_DIFFICULTY), [0.32, 0.40, 0.28])[0]
    month = index * 24 // PROBLEMS  # contests spread from 2023-05 over 24 months
    year, month_of_year = 2023 + (4 + month) // 12, (4 + month) % 12 + 1
    mean = _DIFFICULTY[difficulty]
    return {
        "question_id": f"{platform[:2]}{index:04d}",
        "platform": platform,
        "difficulty": difficulty,
        "contest_date": f"{year}-{month_of_year:02d}-{1 + index % 28:02d}T00:00:00",
        "rate": min(0.98, max(0.0, rng.betavariate(2, 2) * 2 * mean)),
        "tests": rng.randint(5, 40),
        "fast": math.exp(rng.gauss(math.log(0.02), 1.2)),  # typical CPU seconds per test
    }


def _sample(problem: dict[str, Any], rate: float, rng: random.Random) -> dict[str, Any]:
    """One program's result: ``GradeResult.to_dict()`` as the grader writes it."""
    count = problem["tests"]
    tests = []
    for _ in range(count):
        cpu = problem["fast"] * math.exp(rng.gauss(0, 0.3))
        tests.append(
            {
                "verdict": "AC",
                "cpu_time": round(cpu, 4),
                "wall_time": round(cpu * 1.1 + 0.001, 4),
                "peak_memory_kb": int(9000 + rng.expovariate(1 / 20000)),
            }
        )
    if rng.random() < rate:
        return {"verdict": "AC", "passed": True, "fraction": 1.0, "tests": tests}
    verdict = _pick(rng, _FAILURES)
    first = rng.randrange(count)
    failing = tests[first]
    failing["verdict"] = verdict
    if verdict == "WA":
        expected, got = rng.randint(0, 10**6), rng.randint(0, 10**6)
        failing["message"] = f"line 1: expected '{expected}', got '{got}'"
        failing["stdout"] = f"{got}\n"
        later = [t for t in tests[first + 1 :] if rng.random() < 0.5]
        for test in later:
            test["verdict"] = "WA"
            test["message"] = "line 1: expected '1', got '0'"
    elif verdict == "TLE":
        for test in tests[first:]:
            test.update(verdict="TLE", cpu_time=round(TIME_LIMIT + rng.random() * 0.05, 4))
            test["message"] = f"CPU time {test['cpu_time']:.2f} s over the limit"
    elif verdict == "RE":
        error = rng.choice(_ERRORS)
        failing["message"] = error
        failing["stderr"] = f'  File "solution.py", line {rng.randint(3, 60)}, in solve\n{error}\n'
    elif verdict == "MLE":
        failing["peak_memory_kb"] = MEMORY_LIMIT * 1024 + rng.randint(1, 5000)
        failing["message"] = f"memory limit (peak {failing['peak_memory_kb'] // 1024} MB)"
    else:
        failing["message"] = "output limit (64 MB) exceeded"
        failing["stdout"] = "1 " * 99 + "…"
    passed = sum(t["verdict"] == "AC" for t in tests)
    return {
        "verdict": verdict,
        "passed": False,
        "fraction": round(passed / count, 6),
        "tests": tests,
        "message": failing["message"],
    }


PUBLIC_TESTS = 3  # of each problem's tests, the first ones


def _test(qid: str, number: int) -> tuple[str, str]:
    """A problem's test ``number`` (its input and expected output), the same in every run."""
    rng = random.Random(f"{qid}/{number}")
    values = [rng.randint(-(10**9), 10**9) for _ in range(rng.choice((3, 8, 200)))]
    return f"{len(values)}\n{' '.join(map(str, values))}\n", f"{sum(values)}\n"


def _failing_tests(qid: str, details: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``failing_tests`` as the grader writes it: each test some sample failed first."""
    firsts = {
        next(i for i, t in enumerate(d["tests"]) if t["verdict"] != "AC")
        for d in details
        if not d["passed"]
    }
    shown = []
    for index in sorted(firsts):
        given, expected = _test(qid, index + 1)
        shown.append(
            {
                "test": index + 1,
                "public": index < PUBLIC_TESTS,
                "input": given[:500],
                "input_chars": len(given),
                "output": expected[:500],
                "output_chars": len(expected),
            }
        )
    return shown


def full_release_rows(
    *, problems: int = PROBLEMS, samples: int = SAMPLES, seed: int = 0, sample_seed: int = 0,
    skill: float = 0.0,
) -> list[dict[str, Any]]:  # fmt: skip
    """``eval_all`` rows of a full release: problems drawn from ``seed``, their samples'
    results from ``sample_seed`` with every solve rate shifted by ``skill``."""
    shape = random.Random(seed)
    draws = random.Random(sample_seed)
    rows = []
    for index in range(problems):
        problem = _problem(index, shape)
        rate = min(1.0, max(0.0, problem["rate"] + skill))
        details = [_sample(problem, rate, draws) for _ in range(samples)]
        graded = [d["passed"] for d in details]
        rows.append(
            {
                "question_id": problem["question_id"],
                "graded_list": graded,
                "pass@1": sum(graded) / len(graded),
                "details": details,
                "platform": problem["platform"],
                "difficulty": problem["difficulty"],
                "contest_date": problem["contest_date"],
                "code_list": [_PROGRAM] * samples,
                "time_limit": TIME_LIMIT,
                "memory_limit": MEMORY_LIMIT,
                "failing_tests": _failing_tests(problem["question_id"], details),
            }
        )
    return rows


def full_release_summary(
    rows: list[dict[str, Any]], ks: Sequence[int] = (1, 10), label: str = "model"
) -> dict:
    """The summary ``--summary`` would write for ``rows`` (LiveCodeBench release_v6), the run
    called ``label``."""
    summary = summarize(rows, ks)
    samples = f"{label.replace(' ', '-')}.jsonl"
    summary.update(
        samples_format="LiveCodeBench",
        seed=0,
        resumed=0,
        options=dict(OPTIONS),
        grader_version="0.1.0",
        provenance={
            "label": label,
            "date": "2025-06-01T12:00:00+00:00",
            "command": f"mcevaluate lcb --samples {samples} --release v6 -o results.json",
            "problems": [
                {"path": f"hf://datasets/livecodebench/code_generation_lite/test{n}.jsonl"}
                for n in ("", 2, 3, 4, 5, 6)
            ],
            "samples": {"path": samples, "bytes": 21_000_000, "sha256": "0" * 64},
            "grader": "0.1.0",
            "python": "CPython 3.11.7",
            "platform": "Linux-6.1-x86_64-with-glibc2.36",
        },
        selection={
            "release": "release_v6",
            "release_by": "shard files",
            "start_date": "2023-05-01",
            "end_date": "2025-04-30",
            "platforms": None,
            "difficulties": None,
        },
    )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output")
    parser.add_argument("--skill", type=float, default=0.0)
    parser.add_argument("--sample-seed", type=int, default=0)
    args = parser.parse_args()
    write_lcb_results(
        args.output, full_release_rows(skill=args.skill, sample_seed=args.sample_seed)
    )


if __name__ == "__main__":
    main()
