"""DeepSeek-Coder's LeetCode contest set, read as it ships and graded by its rule (its import
lines, the program, then the record's ``test`` script; a pass when nothing raises).

The records are written here in the shape of ``deepseek-ai/DeepSeek-Coder@2f9fd85927c669dae3c0fbb2d607274023af243e``,
``Evaluation/LeetCode/data/20240121-Jul.jsonl`` (every one of its 180 records has the keys
``task_id``, ``url``, ``title``, ``meta``, ``prompt``, ``prompt_sft``, ``test``,
``start_time``; ``test`` is ``my_solution = Solution()`` then asserts calling one method with
``**test_input``), and its samples in the shape ``evaluate_leetcode.py`` writes
(``{"task_id", "generation"}``). The problem (sum of the even numbers) and its programs are
ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import InputError, detect_format, get_format, read_problems
from evaluator.formats.registry import problem_from_record
from evaluator.problem import Harness, Verdict
from evaluator.runner import GradeOptions, Grader

STATEMENT = (
    "You are given an integer array nums.\nReturn the sum of the even numbers of nums.\n\n"
    "Example 1:\n\nInput: nums = [1,2,3,4]\nOutput: 6\n\nConstraints:\n\n"
    "1 <= nums.length <= 100\n"
)
SIGNATURE = "class Solution:\n    def sumEvens(self, nums: List[int]) -> int:\n        "
TEST = (
    "\nmy_solution = Solution()\n\n"
    'test_input = { "nums": [1,2,3,4] }\nassert my_solution.sumEvens(**test_input) == 6\n\n'
    'test_input = { "nums": [7] }\nassert my_solution.sumEvens(**test_input) == 0\n\n'
    'test_input = { "nums": [-2,2,"x".count("x")] }\n'
    "assert my_solution.sumEvens(**test_input) == 0\n"
)
RECORD = {
    "task_id": "weekly-contest-1-sum-of-evens",
    "url": "https://leetcode.com/problems/sum-of-evens",
    "title": "sum-of-evens",
    "meta": {
        "questionId": "1",
        "questionFrontendId": "1",
        "title": "Sum of Evens",
        "titleSlug": "sum-of-evens",
        "isPaidOnly": False,
        "difficulty": "Easy",
        "likes": 0,
        "dislikes": 0,
        "categoryTitle": "Algorithms",
    },
    "prompt": '"""\n' + STATEMENT + '"""\n' + SIGNATURE,
    "prompt_sft": STATEMENT
    + "\n\nPlease complete the code below to solve above prblem:\n```python\n"
    + SIGNATURE
    + "\n```",
    "test": TEST,
    "start_time": 1705804200,
}
BODY = "return sum(x for x in nums if x % 2 == 0)\n"
RIGHT = SIGNATURE + BODY  # List without an import: DeepSeek's import lines give typing's names
WRONG = SIGNATURE + "return sum(nums)\n"


@pytest.fixture(scope="module")
def grader(pool):
    return Grader(GradeOptions(time_limit=5), pool=pool)


def test_a_record_is_read_as_its_script_in_check():
    assert detect_format(RECORD).name == "deepseek_leetcode"  # not HumanEval's task_id + test
    problem = problem_from_record(RECORD)
    assert problem.id == "weekly-contest-1-sum-of-evens"
    assert problem.harness is Harness.ASSERTION
    assert problem.entry_point == "sumEvens"
    assert problem.test_code.startswith("def check(candidate):\n    my_solution = Solution()\n")
    assert problem.test_code.count("    assert my_solution.sumEvens(**test_input) == ") == 3
    assert problem.prompt == RECORD["prompt"]
    assert problem.time_limit == 10.0  # DeepSeek's timeout for the whole script
    assert problem.metadata["platform"] == "leetcode"
    assert problem.metadata["difficulty"] == "Easy"
    assert problem.metadata["question_title"] == "Sum of Evens"
    fmt = get_format("deepseek_leetcode")
    assert fmt.statement(RECORD) == RECORD["prompt_sft"]
    assert fmt.references(RECORD) == []  # the set ships no solutions


def test_right_answers_pass_and_wrong_ones_fail(grader):
    problem = problem_from_record(RECORD)
    assert grader.grade(problem, RIGHT).verdict is Verdict.AC
    wrong = grader.grade(problem, WRONG)
    assert wrong.verdict in (Verdict.WA, Verdict.RE)  # a failed assert, as for HumanEval
    assert "AssertionError" in wrong.message
    assert grader.grade(problem, RIGHT.replace("sumEvens", "sum_evens")).verdict is not Verdict.AC
    assert grader.grade(problem, "import sys\nsys.exit(0)\n" + RIGHT).verdict is not Verdict.AC


def test_refusals_name_the_field():
    with pytest.raises(InputError, match=r"field 'test': the script makes no Solution\(\)"):
        problem_from_record(dict(RECORD, test="assert 1 == 1\n"))
    with pytest.raises(InputError, match=r"field 'test': not valid Python"):
        problem_from_record(dict(RECORD, test="my_solution = Solution(\n"))
    with pytest.raises(InputError, match=r"field 'test': the script calls no method"):
        problem_from_record(dict(RECORD, test="s = Solution()\nassert s\n"))


def test_generation_and_completion_files_grade_through_the_cli(tmp_path: Path, write_jsonl):
    second = dict(RECORD, task_id="weekly-contest-1-sum-of-evens-ii")
    problems = write_jsonl(tmp_path / "20240121-Jul.jsonl", [RECORD, second])
    assert [p.id for p in read_problems(problems)] == [RECORD["task_id"], second["task_id"]]
    for name, rows in (
        (
            "generations.jsonl",  # evaluate_leetcode.py's whole programs
            [
                {"task_id": RECORD["task_id"], "generation": RIGHT},
                {"task_id": second["task_id"], "generation": WRONG},
            ],
        ),
        (
            "completions.jsonl",  # HumanEval's convention: the prompt's continuation
            [
                {"task_id": RECORD["task_id"], "completion": BODY},
                {"task_id": second["task_id"], "completion": "return 0\n"},
            ],
        ),
    ):
        samples = write_jsonl(tmp_path / name, rows)
        out = tmp_path / (name + "_results.jsonl")
        args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
        result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
        assert result.exit_code == 0, result.output
        written = [json.loads(line) for line in out.read_text().splitlines()]
        assert [(row["task_id"], row["passed"]) for row in written] == [
            (RECORD["task_id"], True),
            (second["task_id"], False),
        ]
