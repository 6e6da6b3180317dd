"""The reward is total (issue 16): every completion gets a score, whatever its program returns
or prints, and one completion that breaks something costs only itself. Real sandbox."""

from __future__ import annotations

import asyncio
import json

import pytest

from evaluator import AsyncCodeReward, CodeReward
from evaluator.problem import Harness, Problem, TestCase

DEEP = "def f():\n    x = []\n    for _ in range(300000):\n        x = [x]\n    return x\n"
DEEP_RAISED_LIMIT = "import sys\nsys.setrecursionlimit(10**6)\n" + DEEP
RIGHT = "def f():\n    return [[[]]]\n"


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


@pytest.fixture
def reward(pool):
    with CodeReward(pool=pool) as made:
        yield made


def _functional(expected: str) -> list[dict[str, str]]:
    return [{"input": "", "output": expected}]


def test_a_deeply_nested_return_value_scores_and_the_batch_goes_on(reward):
    completions = [fenced(DEEP), fenced(DEEP_RAISED_LIMIT), fenced(RIGHT), "no code"]
    rewards = reward(["p"] * 4, completions, tests=[_functional("[[[]]]")] * 4, func_name=["f"] * 4)
    assert rewards == [0.0, 0.0, 1.0, 0.0]
    assert reward.last_verdicts == ["WA", "WA", "AC", "NO_CODE"]
    for result in reward.last_results[:2]:
        assert len(result.message) <= 300


def test_output_the_grader_once_choked_on_scores_zero_not_an_exception(reward):
    programs = [
        "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00' * 1000)",  # invalid UTF-8, NUL
        "print('1' * 5_000_000 + 'x')",  # a 5 MB token against a real (float judge)
        "import sys\nsys.stderr.write('e' * 10**7)\nraise ValueError('v' * 10**6)",
    ]
    tests = [{"input": "", "output": "1.5\n"}]
    rewards = reward(
        ["p"] * 3, [fenced(p) for p in programs], tests=[tests] * 3, judge=["float"] * 3
    )
    assert rewards == [0.0, 0.0, 0.0] and reward.last_verdicts == ["WA", "WA", "RE"]
    assert all(len(r.message) <= 300 for r in reward.last_results)


def test_an_answer_of_many_unclosed_think_tags_is_extracted_fast(reward):
    rewards = reward(
        ["p"], ["<think>" * 200_000 + fenced("print(1)")], tests=[[{"input": "", "output": "1"}]]
    )
    assert rewards == [0.0] and reward.last_verdicts == ["NO_CODE"]


def test_a_huge_integer_return_value_is_judged(reward):
    code = "import sys\nsys.set_int_max_str_digits(0)\ndef f():\n    return 7 * 10**200000 + 1\n"
    expected = "7" + "0" * 199999 + "1"
    rewards = reward(
        ["p"] * 2,
        [fenced(code), fenced("def f():\n    return 5\n")],
        tests=[_functional(expected)] * 2,
        func_name=["f"] * 2,
    )
    assert rewards == [1.0, 0.0], reward.last_results


def test_a_completion_that_is_not_text_scores_as_a_runtime_error(reward):
    """A lone surrogate in the code (a JSON "\\ud800" escape) once took three fork servers
    down; now it is what a plain run says of such a file."""
    rewards = reward(["p"], [fenced("print(1)  # \ud800")], tests=[[{"input": "", "output": "1"}]])
    assert rewards == [0.0] and reward.last_verdicts == ["RE"]
    assert "not UTF-8 text" in reward.last_results[0].message


def test_broken_expected_values_are_error_after_running_and_score_zero(reward):
    tests = [{"input": "", "output": "[1, 2"}]  # the problem's expected output is not JSON
    rewards = reward(["p"], [fenced("def f():\n    return [1, 2]\n")], tests=[tests], func_name="f")
    assert rewards == [0.0] and reward.last_verdicts == ["ERROR"]
    assert "expected output is not JSON" in reward.last_results[0].message


def test_problems_broken_before_running_are_missing_rewards(reward):
    bad_tolerance = [{"input": "", "output": "1.0"}]
    rewards = reward(
        ["p"] * 2,
        [fenced("def f():\n    return 1.0\n")] * 2,
        tests=[bad_tolerance, [{"input": "\ud800", "output": "1"}]],
        func_name="f",
        judge=[{"abs_tol": -1}, None],
    )
    assert rewards == [None, None] and reward.last_verdicts == ["ERROR", "ERROR"]
    assert "abs_tol" in reward.last_results[0].message
    assert "lone surrogate" in reward.last_results[1].message


def test_a_judge_that_breaks_costs_only_its_completion(pool):
    """A problem built by hand with an expected output that is not text: the judge raises on
    it, and that completion's result says where, while the others are graded."""
    broken = Problem("broken", Harness.STDIN, [TestCase("", None)])  # type: ignore[arg-type]
    fine = Problem("fine", Harness.STDIN, [TestCase("", "1\n")])
    with CodeReward(pool=pool) as reward:
        details = reward.score_details([broken, fine], [fenced("print(1)")] * 2)
    assert details.rewards == [0.0, 1.0]
    assert details.verdicts == ["ERROR", "AC"]
    message = details.results[0].tests[0].message
    assert message.startswith("the grader failed on this test: ") and ".py:" in message


def test_async_reward_is_total_too(pool):
    with AsyncCodeReward(pool=pool) as reward:
        rewards = asyncio.run(
            reward(
                ["p"] * 2,
                [fenced(DEEP_RAISED_LIMIT), fenced(RIGHT)],
                tests=[json.dumps(_functional("[[[]]]"))] * 2,
                func_name="f",
            )
        )
    assert rewards == [0.0, 1.0]
