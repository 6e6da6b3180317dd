"""The problems and programs the framework tests grade, in one place: dataset rows as their
sources ship them (TACO's stdin and call-based rows from ``tests/data/sources``, two
LiveCodeBench rows) and the programs that pass or fail them, fenced as a model answers."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.formats import encode_private_tests

ROOT = Path(__file__).resolve().parents[2]
TACO = [
    json.loads(line)
    for line in (ROOT / "tests/data/sources/taco/taco.jsonl").read_text().splitlines()
]
TACO_STDIN, TACO_CALL = TACO[0], TACO[1]  # a + b from stdin (1 s); codewars' multiply(a, b)

LCB_EVENS = {  # LiveCodeBench's code_generation_lite record, LeetCode style
    "question_id": "lcb-evens",
    "question_title": "Evens",
    "platform": "leetcode",
    "difficulty": "easy",
    "starter_code": "class Solution:\n    def evens(self, nums: List[int]) -> List[int]:\n        ",
    "public_test_cases": json.dumps(
        [{"input": "[1, 2, 3, 4]", "output": "[2, 4]", "testtype": "functional"}]
    ),
    "private_test_cases": json.dumps(
        [
            {"input": "[5, 7]", "output": "[]", "testtype": "functional"},
            {"input": "[0, -2, 3]", "output": "[0, -2]", "testtype": "functional"},
        ]
    ),
    "metadata": json.dumps({"func_name": "evens"}),
}
LCB_APPEND = {  # a LiveCodeBench row: call-based, its private tests in the compressed form
    "question_id": "lcb-append",
    "question_content": "Return xs with x appended.",
    "public_test_cases": json.dumps(
        [{"input": "[1, 2]\n3", "output": "[1, 2, 3]", "testtype": "functional"}]
    ),
    "private_test_cases": encode_private_tests(
        [{"input": "[]\n0", "output": "[0]", "testtype": "functional"}]
    ),
    "metadata": json.dumps({"func_name": "append"}),
    "time_limit": 1.0,
}

ADD = "a, b = map(int, input().split())\nprint(a + b)"  # TACO_STDIN's answer
MULTIPLY_CODE = "def multiply(a, b):\n    return a * b"  # TACO_CALL's
EVENS = (
    "class Solution:\n    def evens(self, nums):\n        return [x for x in nums if x % 2 == 0]"
)
APPEND = "class Solution:\n    def append(self, xs, x):\n        return xs + [x]"
LOOP = "while True:\n    pass"


def fenced(code: str) -> str:
    """``code`` as a model's answer: a line of prose, then the program in a python fence."""
    return f"Here it is.\n```python\n{code}\n```"


def solution(row: dict) -> str:
    """A TACO row's first shipped solution."""
    return json.loads(row["solutions"])[0]
