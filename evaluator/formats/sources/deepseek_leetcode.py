"""DeepSeek-Coder's LeetCode contest set (``deepseek-ai/DeepSeek-Coder``, ``Evaluation/LeetCode``,
at ``2f9fd85927c669dae3c0fbb2d607274023af243e``):
``Evaluation/LeetCode/data/20240121-Jul.jsonl`` (180 problems of LeetCode's contests from July
2023 to January 2024) and its Chinese twin ``20240121-Jul-zh.jsonl``, one record a line::

    {"task_id": "weekly-contest-381-minimum-number-of-pushes-to-type-word-i",
     "url": "https://leetcode.com/problems/...", "title": "<slug>",
     "meta": {"questionId", "questionFrontendId", "title", "titleSlug", "isPaidOnly",
              "difficulty": "Easy", "likes", "dislikes", "categoryTitle"},
     "prompt": "\\"\\"\\"\\n<statement>\\n\\"\\"\\"\\nclass Solution:\\n    def m(self, ...) -> int:\\n        ",
     "prompt_sft": "<statement>\\n\\nPlease complete the code below ...```python ...```",
     "test": "\\nmy_solution = Solution()\\n\\ntest_input = { \\"word\\": \\"abcde\\" }\\n"
             "assert my_solution.minimumPushes(**test_input) == 5\\n...",
     "start_time": 1705804200}

``test`` is a script, not HumanEval's ``check``: one ``Solution()`` and about 100 asserts
calling one of its methods with keyword arguments.

**DeepSeek's rule** (``Evaluation/LeetCode/evaluate_leetcode.py``, which calls
``human_eval/evaluation.py``'s ``evaluate_functional_correctness``; the program assembled by
``process_humaneval_test``, run by ``human_eval/execution.py``'s ``check_correctness``): its
import lines (``IMPORT_HELPER["python"]``: ``math``, ``re``, ``collections``, ``heapq``...,
``from typing import *``, ``from collections import *``, ``from functools import *``), the
sample's ``generation`` (a whole program: the code block of the model's answer), then
``test``, executed once; the problem passes when nothing raises within 10 s (the function's
default ``timeout``).

**Here** an assertion-harness problem: ``test_code`` defines ``check(candidate)`` whose body
is the script, statement for statement (written back from its syntax tree, so indenting it
changes no string); the entry point is the method the script calls (``minimumPushes``), so a
program without it fails. The script's own ``Solution()`` serves all its asserts, as in
DeepSeek's run. The problem's platform is ``leetcode``: the program finds LeetCode's names
without an import (:mod:`evaluator.harness.assertion`), which cover DeepSeek's import lines
but ``numpy`` and ``hashlib`` (a program using them imports them). The time limit is
DeepSeek's 10 s for the whole script. ``prompt`` is the code a completion continues
(HumanEval's convention: ``{"task_id", "completion"}`` samples run ``prompt + completion``);
DeepSeek's own ``generation`` files are whole programs (``{"task_id", "generation"}``).
Statement: ``prompt_sft`` (else ``prompt``). The set ships no solutions.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..code_tests import tests_function_problem
from ..errors import InputError
from ..fields import expect_str, python_source, require_field
from ..registry import Format, take_id

__all__ = ["FORMAT", "TIME_LIMIT"]

TIME_LIMIT = 10.0
"""DeepSeek's ``evaluate_functional_correctness(timeout=10.0)``, for the whole script."""


def _instances(tree: ast.Module) -> set[str]:
    """The names the script binds to ``Solution()``."""
    names: set[str] = set()
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id == "Solution"
        ):
            names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return names


def _entry_point(tree: ast.Module) -> str:
    """The method of the script's ``Solution()`` that its first call on it names."""
    instances = _instances(tree)
    if not instances:
        raise InputError("the script makes no Solution() to test", field="test")
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in instances
    ]
    if not calls:
        raise InputError("the script calls no method of its Solution()", field="test")
    first = min(calls, key=lambda node: (node.lineno, node.col_offset))
    return first.func.attr  # type: ignore[attr-defined]


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("task_id",), fallback_id)
    prompt = expect_str(record.get("prompt") or "", "prompt")
    script = expect_str(require_field(record, "test"), "test", non_empty=True)
    tree = python_source(script.replace("\r\n", "\n"), "test")
    entry_point = _entry_point(tree)
    body = ["    " + line for line in ast.unparse(tree).splitlines()]
    test_code = "def check(candidate):\n" + "\n".join(body) + "\n"
    metadata: dict[str, Any] = {"source_format": "deepseek_leetcode", "platform": "leetcode"}
    meta = record.get("meta")
    if isinstance(meta, Mapping):
        for theirs, ours in (("difficulty", "difficulty"), ("title", "question_title")):
            if isinstance(meta.get(theirs), str) and meta[theirs].strip():
                metadata[ours] = meta[theirs]
    if isinstance(record.get("url"), str) and record["url"].strip():
        metadata["url"] = record["url"]
    return tests_function_problem(
        problem_id,
        test_code=test_code,
        entry_point=entry_point,
        prompt=prompt,
        time_limit=TIME_LIMIT,
        metadata=metadata,
    )


def _statement(record: Mapping[str, Any]) -> str:
    for key in ("prompt_sft", "prompt"):
        if isinstance(record.get(key), str):
            return record[key]
    return ""


FORMAT = Format(
    name="deepseek_leetcode",
    title="DeepSeek-Coder LeetCode",
    shape="'task_id' with 'test' and 'prompt_sft'",
    recognise=lambda record: "task_id" in record and "test" in record and "prompt_sft" in record,
    read=_read,
    fields=("task_id", "prompt", "test", "meta", "url"),
    rank=27,  # before HumanEval's 'task_id' with 'test'
    id_keys=("task_id",),
    statement=_statement,
    aliases=("deepseek-coder-leetcode", "deepseek-ai/deepseek-coder"),
)
