"""NVIDIA's LiveCodeBench-CPP, read as it ships: LiveCodeBench's fields, a functional row's one
test a C++ ``main`` joined after the code (its evaluation's rule: NeMo-Skills'
``livecodebench`` with ``language=cpp``, ``grade_call_based_cpp``). The rows are made here in
the dataset's shape (the Hub is unreachable from these machines); each graded program is
also built and run as that evaluation does, plainly: ``g++ solution.cpp -o solution``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evaluator.formats import InputError, encode_private_tests, problem_from_lcb, read_problems
from evaluator.harness import test_program
from evaluator.problem import Harness

HARNESS = """int main() {
    Solution s;
    vector<int> a = {1, 2, 3};
    if (s.sumOf(a) != 6) return 1;
    vector<int> none;
    if (s.sumOf(none) != 0) return 1;
    return 0;
}"""
STARTER = "class Solution {\npublic:\n    int sumOf(vector<int>& nums) {\n        \n    }\n};"
RIGHT = (
    "class Solution {\npublic:\n    int sumOf(vector<int>& nums) {\n"
    "        return accumulate(nums.begin(), nums.end(), 0);\n    }\n};"
)
WRONG = RIGHT.replace("0);", "1);")
# GCC's default dialect (gnu++17): `typeof` builds there, not under -std=c++17
GNU_ONLY = (
    "class Solution {\npublic:\n    int sumOf(vector<int>& nums) {\n"
    "        typeof(nums.size()) n = nums.size(); int t = 0;\n"
    "        for (typeof(n) i = 0; i < n; ++i) t += nums[i];\n        return t;\n    }\n};"
)


def cpp_row(question_id: str = "3001", tests: list[dict] | None = None) -> dict:
    tests = tests or [{"input": HARNESS, "output": "", "testtype": "functional"}]
    return {
        "question_title": "Sum",
        "question_content": "Return the sum of nums.",
        "platform": "leetcode",
        "question_id": question_id,
        "contest_id": "weekly-contest-400",
        "contest_date": "2024-09-01T00:00:00",
        "starter_code": STARTER,
        "difficulty": "easy",
        "public_test_cases": "[]",
        "private_test_cases": encode_private_tests(tests),
        "metadata": json.dumps({"func_name": "sumOf"}),
    }


def test_a_functional_row_is_its_main_joined_after_the_code():
    problem = problem_from_lcb(cpp_row())
    assert problem.harness is Harness.STDIN and problem.judge == "exit"
    assert len(problem.tests) == 1 and problem.tests[0].input == ""
    assert problem.metadata["languages"] == ["cpp"] and problem.metadata["cpp_flags"] == []
    assert test_program.program(problem, RIGHT) == (
        "#include <bits/stdc++.h>\nusing namespace std;\n\n\n" + RIGHT + "\n\n" + HARNESS
    )


def test_a_functional_row_has_one_main():
    tests = [{"input": HARNESS, "output": "", "testtype": "functional"}] * 2
    with pytest.raises(InputError, match="have one test, a C\\+\\+ main; this one has 2"):
        problem_from_lcb(cpp_row(tests=tests))


def test_stdin_rows_are_livecodebench_rows():
    row = cpp_row(tests=[{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}])
    problem = problem_from_lcb(row)
    assert problem.harness is Harness.STDIN and "program_suffix" not in problem.metadata


def _plain_exit(tmp_path: Path, source: str) -> int | None:
    """Their evaluation's build and run: None when it does not build."""
    (tmp_path / "solution.cpp").write_text(source)
    built = subprocess.run(["g++", "solution.cpp", "-o", "solution"], cwd=tmp_path,
                           capture_output=True, timeout=120)  # fmt: skip
    if built.returncode != 0:
        return None
    return subprocess.run(["./solution"], cwd=tmp_path, capture_output=True, timeout=30).returncode


@pytest.mark.parametrize(
    ("code", "verdict"),
    [(RIGHT, "AC"), (WRONG, "RE"), (GNU_ONLY, "AC"), ("class Solution {};", "CE")],
    ids=["right", "wrong", "gnu_dialect", "no_method"],
)
def test_graded_as_their_evaluation_runs_it(languages_grader, tmp_path, code, verdict):
    problem = problem_from_lcb(cpp_row())
    plain = _plain_exit(tmp_path, test_program.program(problem, code))
    assert {None: "CE", 0: "AC"}.get(plain, "RE") == verdict  # a failed check exits 1
    result = languages_grader.grade(problem, code, "cpp")
    assert result.verdict.value == verdict, result.message


def test_its_problems_take_cpp_answers_only(languages_grader):
    result = languages_grader.grade(problem_from_lcb(cpp_row()), "print(6)", "python")
    assert result.verdict.value == "CE"
    assert result.message == "this problem accepts cpp programs, not python"


def test_read_from_a_file_with_their_samples(languages_grader, tmp_path, write_jsonl):
    path = tmp_path / "test_v6_2408_2505.jsonl"
    write_jsonl(path, [cpp_row("a"), cpp_row("b")])
    problems = {p.id: p for p in read_problems(str(path))}
    assert problems["a"].metadata["language"] == "cpp"
    verdicts = [languages_grader.grade(problems[k], c, "cpp").verdict.value for k, c in
                (("a", RIGHT), ("b", WRONG))]  # fmt: skip
    assert verdicts == ["AC", "RE"]
