"""Every source, through every entry point, graded the same (issue 40): a row as the dataset
ships it, with a right and a wrong answer, through ``mcevaluate grade``, ``dataset convert``
(then grade), :class:`CodeReward` with the row as its columns, verl's ``compute_score`` with
the row (and with the field the source's own verl recipes use) as its ground truth, and the
service's ``/grade``. Each path must read the row with the same reader and give AC to the
right answer and a rejection to the wrong one. Real sandbox, real HTTP server on loopback."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import detect_format, read_problems
from evaluator.reward import CodeReward, problem_from_columns, problem_from_ground_truth
from evaluator.reward.frameworks.verl import verl_compute_score_batch

SOURCES = Path(__file__).resolve().parents[1] / "data" / "sources"


@dataclasses.dataclass(frozen=True)
class Case:
    file: str
    index: int
    right: str
    wrong: str
    # the field a source's own verl data puts in reward_model.ground_truth, when not the row
    ground_truth: Callable[[dict[str, Any]], Any] | None = None
    format: str = ""  # the format's name, when the case's key is not it

    def record(self) -> dict[str, Any]:
        return json.loads((SOURCES / self.file).read_text().splitlines()[self.index])


CASES = {
    "taco": Case(
        "taco/taco.jsonl",
        1,
        "def multiply(a, b):\n    return a * b",
        "def multiply(a, b):\n    return a + b",
        lambda row: row["input_output"],
    ),
    "apps": Case(
        "apps/apps.jsonl",
        0,
        "import math\nxs = list(map(int, input().split()))\nprint(sum(xs))\nprint(math.prod(xs))",
        "xs = list(map(int, input().split()))\nprint(sum(xs))\nprint(sum(xs))",
        lambda row: row["input_output"],
    ),
    "codecontests": Case(
        "codecontests/problems.jsonl",
        1,
        "n = int(input())\nprint(n / 3)",
        "n = int(input())\nprint(f'{n / 3:.2f}')",
    ),
    "codeforces": Case(
        "codeforces/problems.jsonl",
        0,
        "w = int(input())\nprint('yes' if w > 2 and w % 2 == 0 else 'no')",
        "w = int(input())\nprint('YES' if w % 2 == 0 else 'NO')",
    ),
    "deepcoder": Case(
        "deepcoder/rows.jsonl",
        0,
        "class Solution:\n    def addAll(self, nums, k):\n        return [x + k for x in nums]",
        "class Solution:\n    def addAll(self, nums, k):\n        return nums",
        lambda row: row["tests"] if "metadata" not in row else None,
    ),
    "deepcoder-taco": Case(  # the subset the reward once refused as a column
        "deepcoder/rows.jsonl",
        2,
        "def total(xs):\n    return sum(xs)",
        "def total(xs):\n    return len(xs)",
        lambda row: row["tests"],
        format="deepcoder",
    ),
    "kodcode": Case(
        "kodcode/problems.jsonl",
        0,
        "def moving_average(nums, k):\n    if not 1 <= k <= len(nums):\n"
        "        raise ValueError('k must be between 1 and len(nums)')\n"
        "    return [sum(nums[i:i + k]) / k for i in range(len(nums) - k + 1)]",
        "def moving_average(nums, k):\n    return [sum(nums[i:i + k]) / k for i in range(len(nums) - k + 1)]",
    ),
    "primeintellect": Case(
        "primeintellect/rows.jsonl",
        1,
        "def append_item(items, x):\n    return items + [x]",
        "def append_item(items, x):\n    return items",
        lambda row: row["verification_info"],
    ),
    "rstar": Case(
        "rstar/seed_testcase.jsonl",
        1,
        "class Solution:\n    def sumList(self, nums):\n        return sum(nums)",
        "class Solution:\n    def sumList(self, nums):\n        return max(nums)",
    ),
    "verl_rows": Case(
        "verl/rows.jsonl",
        0,
        "a, b = map(int, input().split())\nprint(a / b)",
        "a, b = map(int, input().split())\nprint(a // b)",
        lambda row: row["reward_model"]["ground_truth"],
    ),
    "nemo_gym": Case(
        "nemo_gym/rows.jsonl",
        0,
        "n = int(input())\nprint(n * (n + 1) // 2)",
        "n = int(input())\nprint(n * n)",
    ),  # its bare unit_tests object is APPS's shape, read by APPS's rule (docs/datasets.md)
    "mbpp": Case(
        "mbpp/mbpp.jsonl",
        0,
        "def remove_Occ(s, ch):\n    i = s.find(ch)\n    if i >= 0:\n        s = s[:i] + s[i + 1:]\n"
        "    j = s.rfind(ch)\n    if j >= 0:\n        s = s[:j] + s[j + 1:]\n    return s",
        "def remove_Occ(s, ch):\n    return s[1:-1]",
    ),
}


def fenced(code: str) -> str:
    return f"Here is my answer.\n```python\n{code}\n```"


@pytest.fixture(scope="module")
def reward(pool):
    with CodeReward(pool=pool) as made:
        yield made


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path) -> tuple[str, Case, Path, str]:
    """(source, case, a one-row problems file as it ships, the row's id as the file names it)."""
    chosen = CASES[request.param]
    path = tmp_path / "problems.jsonl"
    path.write_text(json.dumps(chosen.record()) + "\n")
    name = chosen.format or request.param
    assert detect_format(chosen.record()).name == name
    return name, chosen, path, read_problems(path)[0].id


def _grade(problems: Path, problem_id: str, case: Case, tmp_path: Path) -> list[bool]:
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        json.dumps({"question_id": problem_id, "code_list": [case.right, case.wrong]})
    )
    out = tmp_path / "results.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--workers", "2", "-q", "--force"])
    assert result.exit_code == 0, result.output
    [row] = json.loads(out.read_text())
    return row["graded_list"]


def test_mcevaluate_grade(case, tmp_path):
    _, chosen, path, problem_id = case
    assert _grade(path, problem_id, chosen, tmp_path) == [True, False]


def test_dataset_convert_then_grade(case, tmp_path):
    source, chosen, path, problem_id = case
    converted = tmp_path / "ours.jsonl"
    args = ["dataset", "convert", "--from", source, str(path), str(converted)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0 and "wrote 1 problems" in result.output, result.output
    [ours] = read_problems(converted)
    assert dataclasses.replace(ours, metadata={}) == dataclasses.replace(
        read_problems(path)[0], metadata={}
    )
    assert _grade(converted, problem_id, chosen, tmp_path) == [True, False]


def test_code_reward_with_the_rows_columns(case, reward):
    _, chosen, _, _ = case
    row = chosen.record()
    row.pop("prompt", None)  # TRL passes the prompt apart, never as a column
    columns = {key: [value, value] for key, value in row.items()}
    rewards = reward(None, [fenced(chosen.right), fenced(chosen.wrong)], **columns)
    assert rewards == [1.0, 0.0], reward.last_reasons


def _without_source_rules(judge):
    """A judge without the rules only a row's source field gives (Codewars' ``bool_as_int``)."""
    if not isinstance(judge, dict):
        return judge
    return {k: v for k, v in judge.items() if k != "bool_as_int"} or None


def test_verl_compute_score_with_the_row_and_its_ground_truth(case):
    _, chosen, path, _ = case
    row = chosen.record()
    truths = [(json.dumps(row), True), (row, True)]  # (ground truth, whether the whole row)
    if chosen.ground_truth is not None and chosen.ground_truth(row) is not None:
        truths.append((chosen.ground_truth(row), False))
    expected = read_problems(path)[0]
    for truth, whole in truths:
        read = problem_from_ground_truth(truth)
        # a part of the row has not its source: a Codewars kata's `True == 1` rule
        # (docs/datasets.md) cannot come with it
        want = expected if whole else replace_judge(expected, _without_source_rules)
        assert dataclasses.replace(read, id=expected.id, metadata={}) == dataclasses.replace(
            want, metadata={}
        )
        scores = verl_compute_score_batch(
            ["source"] * 2, [fenced(chosen.right), fenced(chosen.wrong)], [truth] * 2
        )
        assert scores == [1.0, 0.0]


def replace_judge(problem, change):
    return dataclasses.replace(problem, judge=change(problem.judge))


def test_the_reward_columns_read_the_row_as_the_file_does(case):
    _, chosen, path, _ = case
    from_file = read_problems(path)[0]
    from_columns = problem_from_columns(chosen.record())
    assert dataclasses.replace(from_columns, id=from_file.id) == from_file


def test_the_grade_endpoint(case, server):
    _, chosen, _, problem_id = case
    body = {
        "problems": [chosen.record()],
        "samples": [{"question_id": problem_id, "code_list": [chosen.right, chosen.wrong]}],
    }
    reply = server.post("/grade", body)
    assert reply.status_code == 200, reply.text
    [row] = reply.json()["results"]
    assert row["graded_list"] == [True, False]
