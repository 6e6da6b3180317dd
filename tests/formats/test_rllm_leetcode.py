"""rllm's LeetCode rows, read as they ship and graded by rllm's rule (the program, then the
``functional`` tests, which call ``check`` on ``Solution().<method>``).

The rows are written here in the shape rllm's notebook builds them
(``rllm-org/rllm@9beb6e0f676a46d38858991fd79ac5f8e0b16d4c``,
``rllm/data/preprocess/code/leetcode.ipynb``: ``{"problem", "solutions", "tests":
{"functional": f"{test}\\n\\ncheck({entry_point})"}}``), the verl row its
``scripts/data/code_dataset.py`` makes of one (``tests`` as JSON text under
``reward_model.ground_truth``, ``data_source: "leetcode"``), and the ground truth its reward
tests pass (``rllm-org/rllm@9beb6e0:tests/rewards/test_code_reward.py``, ``test_reward_leetcode``). The problem
(count the numbers above ``k``) and its programs are ours."""

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

CHECK = (
    "def check(candidate):\n"
    "    assert candidate(nums = [1, 5, 3, 8], k = 3) == 2\n"
    "    assert candidate(nums = [2, 2], k = 2) == 0\n"
    "    assert candidate(nums = [10], k = -1) == 1\n"
)
FUNCTIONAL = CHECK + "\n\ncheck(Solution().countAbove)"
# LeetCode's starter signature: List without an import, as rllm's import block allows
RIGHT = (
    "class Solution:\n"
    "    def countAbove(self, nums: List[int], k: int) -> int:\n"
    "        return sum(1 for x in nums if x > k)\n"
)
WRONG = RIGHT.replace("x > k", "x >= k")
ROW = {
    "problem": "Please solve the programming task below using a self-contained code snippet "
    "in a markdown code block.\n\nGiven an array nums and an integer k, return how many "
    "numbers of nums are greater than k.",
    "solutions": RIGHT,
    "tests": {"functional": FUNCTIONAL},
}


@pytest.fixture(scope="module")
def grader(pool):
    return Grader(GradeOptions(time_limit=5), pool=pool)


def test_a_row_is_read_as_an_assertion_problem_with_its_entry_point():
    assert detect_format(ROW).name == "rllm_leetcode"  # not DeepCoder's 'problem' with 'tests'
    problem = problem_from_record(ROW)
    assert problem.harness is Harness.ASSERTION
    assert problem.entry_point == "countAbove"
    assert problem.test_code == CHECK  # the closing check(...) call is the harness's to make
    assert problem.metadata["platform"] == "leetcode"
    assert problem.time_limit == 30.0  # rllm's firejail timeout
    fmt = get_format("rllm_leetcode")
    assert fmt.statement(ROW).startswith("Please solve")
    assert [s.code for s in fmt.references(ROW)] == [RIGHT]


def test_right_answers_pass_and_wrong_ones_fail(grader):
    problem = problem_from_record(ROW)
    assert grader.grade(problem, RIGHT).verdict is Verdict.AC
    wrong = grader.grade(problem, WRONG)
    assert wrong.verdict in (Verdict.WA, Verdict.RE)  # a failed assert, as for HumanEval
    assert "AssertionError" in wrong.message
    # a top-level function of that name is LeetCode's fallback, as for call-based problems
    function = "def countAbove(nums, k):\n    return len([x for x in nums if x > k])\n"
    assert grader.grade(problem, function).verdict is Verdict.AC
    assert grader.grade(problem, RIGHT.replace("countAbove", "count")).verdict is not Verdict.AC
    # exit status 0 before the asserts is no pass (rllm's exit-status rule would pass it)
    assert grader.grade(problem, "import sys\nsys.exit(0)\n").verdict is not Verdict.AC


def test_the_ground_truth_alone_and_a_verl_row_read_the_same_problem(grader):
    from_row = problem_from_record(ROW)
    truth = {"functional": FUNCTIONAL}
    assert detect_format(truth).name == "rllm_leetcode"
    assert problem_from_record(truth).test_code == from_row.test_code
    verl = {
        "data_source": "leetcode",
        "prompt": [{"role": "user", "content": ROW["problem"]}],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": json.dumps(truth)},
        "extra_info": {"split": "train", "index": 0, "reference": RIGHT},
    }
    problem = problem_from_record(verl)
    assert (problem.entry_point, problem.test_code) == ("countAbove", CHECK)
    assert grader.grade(problem, RIGHT).verdict is Verdict.AC
    assert grader.grade(problem, WRONG).verdict is not Verdict.AC
    # tests kept as JSON text (a parquet column) are recognised by their first key
    text = dict(ROW, tests=json.dumps(ROW["tests"]))
    assert detect_format(text).name == "rllm_leetcode"
    assert problem_from_record(text).test_code == CHECK


def test_tests_without_the_closing_call_take_the_rows_entry_point():
    row = dict(ROW, tests={"functional": CHECK}, entry_point="Solution().countAbove")
    assert problem_from_record(row).entry_point == "countAbove"
    with pytest.raises(InputError, match="names no entry_point"):
        problem_from_record(dict(ROW, tests={"functional": CHECK}))


def test_refusals_name_the_field_and_the_reason():
    with pytest.raises(InputError, match=r"field 'tests.functional': does not define check"):
        problem_from_record({"problem": "p", "tests": {"functional": "assert True"}})
    with pytest.raises(InputError, match=r"field 'tests.functional': not valid Python"):
        problem_from_record({"problem": "p", "tests": {"functional": "def check(:"}})
    # deeper than CPython's parser goes (it raises RecursionError): the row's error, no crash
    deep = "def check(candidate):\n    assert x" + ".y" * 100_000 + "\n"
    with pytest.raises(InputError, match=r"tests.functional': not valid Python: nested too deep"):
        problem_from_record({"problem": "p", "tests": {"functional": deep}})
    # LeetCodeDataset's linked-list tests need LeetCode's helpers before the program
    nodes = (
        "def check(candidate):\n"
        "    assert is_same_list(candidate(head = list_node([1, 2])), list_node([2, 1]))\n"
        "\n\ncheck(Solution().reverseList)"
    )
    with pytest.raises(InputError, match=r"list/tree helpers \(is_same_list\)"):
        problem_from_record({"problem": "p", "tests": {"functional": nodes}})


def test_a_deepcoder_row_is_still_deepcoders():
    row = {"problem": "p", "tests": [{"input": "1\n", "output": "1\n"}]}
    assert detect_format(row).name == "deepcoder"


def test_a_file_of_rows_grades_through_the_cli(tmp_path: Path, write_jsonl):
    problems = write_jsonl(tmp_path / "leetcode.jsonl", [ROW, ROW])
    assert [p.id for p in read_problems(problems)] == ["rllm_leetcode-0", "rllm_leetcode-1"]
    samples = write_jsonl(
        tmp_path / "samples.jsonl",
        [{"id": "rllm_leetcode-0", "code": RIGHT}, {"id": "rllm_leetcode-1", "code": WRONG}],
    )
    out = tmp_path / "results.jsonl"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
    assert result.exit_code == 0, result.output
    written = {row["question_id"]: row for row in json.loads(out.read_text())}
    assert written["rllm_leetcode-0"]["graded_list"] == [True]
    assert written["rllm_leetcode-1"]["graded_list"] == [False]
    assert written["rllm_leetcode-1"]["details"][0]["message"] == "AssertionError"
