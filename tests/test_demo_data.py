"""The bundled demo set: its problems load, and every sample gets the verdict it was written for.

Graded for real in the sandbox (no mocks) under 1 s CPU and 256 MB per test. The table below is
the same as the one in ``evaluator/data/README.md`` (a test checks they agree). A verdict that
differs from the table is a grader bug, not a reason to edit the data.
"""

from __future__ import annotations

import re

import orjson
import pytest

from evaluator.data import DATA_DIR, DEMO_PROBLEMS, DEMO_SAMPLES
from evaluator.formats import read_problems, read_samples
from evaluator.problem import Harness, Verdict
from evaluator.runner import GradeOptions, Grader, GradeResult

OPTIONS = GradeOptions(time_limit=1.0, memory_limit=256)

# (question_id, index in code_list, expected verdict, what the sample does)
EXPECTED: list[tuple[str, int, Verdict, str]] = [
    ("demo_lit_blocks", 0, Verdict.AC, "reads with `for line in sys.stdin`"),
    ("demo_lit_blocks", 1, Verdict.WA, "counts lit lamps instead of blocks"),
    ("demo_lit_blocks", 2, Verdict.AC, "`input()` and `str.split`"),
    ("demo_lit_blocks", 3, Verdict.NO_CODE, "empty string: no code"),
    ("demo_pair_sums", 0, Verdict.AC, "reads with `sys.stdin.buffer.read()`, Counter"),
    ("demo_pair_sums", 1, Verdict.WA, "counts ordered pairs (twice the answer)"),
    ("demo_pair_sums", 2, Verdict.RE, "prints the right answer, then IndexError"),
    ("demo_pair_sums", 3, Verdict.MLE, "counting array over the value range (16 GB)"),
    ("demo_gcd_queries", 0, Verdict.AC, "`math.gcd` per test case"),
    ("demo_gcd_queries", 1, Verdict.WA, "answers only the first test case (prefix)"),
    ("demo_gcd_queries", 2, Verdict.TLE, "subtraction gcd: endless loop when a value is 0"),
    ("demo_gcd_queries", 3, Verdict.AC, "reads with `open(0).read()`"),
    ("demo_closed_route", 0, Verdict.AC, "prints with 10 decimals"),
    ("demo_closed_route", 1, Verdict.AC, "prints the float's repr (`2.8284271247461903`)"),
    ("demo_closed_route", 2, Verdict.WA, "rounds to 2 decimals (error 1.6e-3)"),
    ("demo_closed_route", 3, Verdict.RE, "prints the right answer, then `sys.exit(1)`"),
    ("demo-longest-equal-run", 0, Verdict.AC, "uses `List` without importing it"),
    ("demo-longest-equal-run", 1, Verdict.RE, "IndexError on the empty array"),
    ("demo-longest-equal-run", 2, Verdict.WA, "forgets the last run"),
    ("demo-longest-equal-run", 3, Verdict.AC, "`itertools.groupby`"),
    ("demo-exact-change", 0, Verdict.AC, "bottom-up DP"),
    ("demo-exact-change", 1, Verdict.WA, "greedy, largest coin first"),
    ("demo-exact-change", 2, Verdict.MLE, "10^4 x 10^4 table allocated up front (800 MB)"),
    ("demo-exact-change", 3, Verdict.AC, "memoised recursion, no type hints"),
    ("demo-spiral-walk", 0, Verdict.AC, "pop the top row, rotate the rest"),
    ("demo-spiral-walk", 1, Verdict.AC, "returns a tuple (compared as a list)"),
    ("demo-spiral-walk", 2, Verdict.WA, "repeats cells of a single row or column"),
    ("demo-spiral-walk", 3, Verdict.WA, "prints the answer instead of returning it"),
    ("demo_maze_exit", 0, Verdict.AC, "BFS, reads with `sys.stdin.readline`"),
    ("demo_maze_exit", 1, Verdict.WA, "Manhattan distance, ignores walls"),
    ("demo_maze_exit", 2, Verdict.AC, "prints and calls `exit()` on reaching G"),
    ("demo_maze_exit", 3, Verdict.AC, "writes with `os.write(1, ...)`"),
]


@pytest.fixture(scope="module")
def problems():
    return {problem.id: problem for problem in read_problems(DEMO_PROBLEMS)}


@pytest.fixture(scope="module")
def samples():
    return read_samples(DEMO_SAMPLES)


@pytest.fixture(scope="module")
def graded(problems, samples, pool) -> dict[tuple[str, int], GradeResult]:
    """Every sample graded once, in parallel."""
    keys = [(qid, index) for qid, group in samples.items() for index in range(len(group.codes))]
    items = [(problems[qid], samples[qid].codes[index]) for qid, index in keys]
    results = Grader(OPTIONS, pool=pool).grade_many(items)
    return dict(zip(keys, results, strict=True))


def test_problems_follow_the_livecodebench_schema(problems):
    raw = [orjson.loads(line) for line in DEMO_PROBLEMS.read_bytes().splitlines() if line]
    assert len(raw) == len(problems) == 8
    for record in raw:
        problem = problems[record["question_id"]]
        assert record["platform"] in {"atcoder", "codeforces", "leetcode"}
        assert record["difficulty"] in {"easy", "medium", "hard"}
        assert record["contest_date"].startswith("2025-")
        assert record["question_title"] and record["question_content"]
        assert isinstance(record["public_test_cases"], str)
        assert isinstance(record["private_test_cases"], str)
        assert 3 <= len(problem.tests) <= 6
        func_name = orjson.loads(record["metadata"]).get("func_name")
        if record["platform"] == "leetcode":
            assert problem.harness is Harness.FUNCTIONAL
            assert problem.func_name == func_name
            assert record["starter_code"].startswith("class Solution:")
            assert f"def {func_name}(self" in record["starter_code"]
        else:
            assert problem.harness is Harness.STDIN
            assert func_name is None and record["starter_code"] == ""
    # Some private tests are in LiveCodeBench's compressed form, some in plain JSON.
    compressed = [r for r in raw if not r["private_test_cases"].lstrip().startswith("[")]
    assert 0 < len(compressed) < len(raw)
    assert [p.id for p in problems.values() if p.judge == "float"] == ["demo_closed_route"]
    assert {p.metadata["difficulty"] for p in problems.values()} == {"easy", "medium", "hard"}


def test_samples_match_the_table(problems, samples):
    listed = [(qid, index) for qid, index, _, _ in EXPECTED]
    present = [(qid, i) for qid, group in samples.items() for i in range(len(group.codes))]
    assert present == listed
    assert set(samples) == set(problems)
    assert all(len(group.codes) == 4 and not group.raw for group in samples.values())
    assert sum(not code.strip() for group in samples.values() for code in group.codes) == 1
    assert {verdict for _, _, verdict, _ in EXPECTED} == {
        Verdict.AC,
        Verdict.WA,
        Verdict.TLE,
        Verdict.MLE,
        Verdict.RE,
        Verdict.NO_CODE,
    }


def test_readme_lists_the_same_verdicts():
    rows = re.findall(
        r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*([A-Z_]+)\s*\|",
        (DATA_DIR / "README.md").read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert [(qid, int(index), verdict) for qid, index, verdict in rows] == [
        (qid, index, str(verdict)) for qid, index, verdict, _ in EXPECTED
    ]


@pytest.mark.parametrize(
    ("question_id", "index", "verdict"),
    [(qid, index, verdict) for qid, index, verdict, _ in EXPECTED],
    ids=[f"{qid}[{index}]-{verdict}" for qid, index, verdict, _ in EXPECTED],
)
def test_sample_verdict(graded, question_id, index, verdict):
    result = graded[question_id, index]
    summary = [str(test.verdict) for test in result.tests]
    assert result.verdict is verdict, f"{summary}: {result.message}"
    assert Verdict.SKIPPED not in summary  # every test runs without early exit
    if verdict is Verdict.AC:
        assert result.fraction == 1.0
