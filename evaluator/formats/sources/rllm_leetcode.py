"""rllm's LeetCode rows, and their ``{"functional": ...}`` ground truth on its own.

rllm builds them from LeetCodeDataset (``newfacade/LeetCodeDataset``, the ``v2`` train and
test files) in ``rllm/data/preprocess/code/leetcode.ipynb`` (``rllm-org/rllm``, formerly
``agentica-project/rllm``; every file named here as of ``9beb6e0f676a46d38858991fd79ac5f8e0b16d4c``)::

    {"problem": "Please solve the programming task below ...\\n\\n<statement and starter>",
     "solutions": "<LeetCodeDataset's completion: the class Solution>",
     "tests": {"functional": "<LeetCodeDataset's test>\\n\\ncheck(Solution().minOperations)"}}

``functional`` is LeetCodeDataset's ``def check(candidate): assert candidate(...) == ...``
followed by the call of ``check`` on its ``entry_point``. verl rows made of them
(``scripts/data/code_dataset.py``) carry ``tests`` as the JSON text of that object under
``reward_model.ground_truth`` with ``data_source: "leetcode"``: the object alone (a record
whose key is ``functional``) is read here too; a ``tests`` field given as JSON text is
recognised by its first key.

**rllm's rule** (``rllm/rewards/code_reward.py``, ``leetcode_check_correctness``, routed
there by ``data_source == "leetcode"``): the program, then a newline, then
``functional``, run by ``code_utils/firejail_exec.py`` after a block of imports
(``BASE_IMPORTS``: typing, collections, heapq, math, ...) and LeetCode's list and tree helpers
(``BASE_LEETCODE_IMPORTS``); the problem passes when the run exits with status 0 within 30 s
(``RLLM_FIREJAIL_EXEC_TIMEOUT_S``). The test the reward's own suite runs
(``rllm-org/rllm@9beb6e0:tests/rewards/test_code_reward.py``, ``test_reward_leetcode``) has
exactly this shape.

**Here** an assertion-harness problem (as HumanEval's): ``test_code`` is ``functional`` without
its closing ``check(...)`` call, and that call's argument names the entry point
(``Solution().minOperations``: LeetCode's class, a fresh instance, method ``minOperations``;
a row's ``entry_point`` field, LeetCodeDataset's spelling, when the call is missing). The
problem's platform is ``leetcode``, so the program finds LeetCode's names without an import
(``List``, ``deque``, ``inf``...: :mod:`evaluator.harness.assertion`), as rllm's import block
gives them; the time limit is rllm's 30 s. A pass needs every assert to hold and ``check``
to return (an exit before it is no pass, where rllm's exit status 0 would be one).

Refused with the reason: a row whose tests use LeetCode's ``ListNode``/``TreeNode`` helpers
(``list_node``, ``tree_node``, ``is_same_list``, ``is_same_tree``; 121 of LeetCodeDataset
v0.2.0's 1,890 train problems). rllm defines them before the program, and the program's own
signatures name the classes when it is defined; the assertion harness runs nothing of the
problem's before the program, so such a row would fail every right answer. References: the
row's ``solutions`` (LeetCodeDataset's completion). Statement: ``problem`` (or ``question``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..code_tests import tests_function_problem
from ..errors import InputError
from ..fields import expect_dict, expect_str, python_source, solutions_of
from ..registry import Format, Solution, solutions
from ..testlists import decode_text

__all__ = ["FORMAT", "TIME_LIMIT"]

TIME_LIMIT = 30.0
"""rllm's ``firejail_exec.py`` timeout for the whole run (``RLLM_FIREJAIL_EXEC_TIMEOUT_S``)."""

_KEY = "functional"
_NODE_HELPERS = re.compile(r"\b(list_node|tree_node|is_same_list|is_same_tree|ListNode|TreeNode)\b")


def _is_tests_object(value: Any) -> bool:
    """``tests`` holds rllm's object: its key, or, as JSON text, its first key."""
    if isinstance(value, Mapping):
        return _KEY in value
    return isinstance(value, str) and value.lstrip().startswith('{"functional"')


def _recognise(record: Mapping[str, Any]) -> bool:
    return _KEY in record or ("tests" in record and _is_tests_object(record["tests"]))


def _functional(record: Mapping[str, Any]) -> tuple[str, str]:
    """The ``functional`` text and the field it was read from."""
    if _KEY in record:
        return expect_str(record[_KEY], _KEY, non_empty=True), _KEY
    tests = expect_dict(decode_text(record["tests"], "tests"), "tests")
    field = f"tests.{_KEY}"
    if _KEY not in tests:
        raise InputError("missing required field", field=field)
    return expect_str(tests[_KEY], field, non_empty=True), field


def _entry_of(node: ast.expr) -> str | None:
    """The method or function a ``check(...)`` argument names: ``Solution().name`` or
    ``name``."""
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "Solution"
        and not node.value.args
        and not node.value.keywords
    ):
        return node.attr
    return None


def _closing_call(tree: ast.Module) -> tuple[ast.stmt, str] | None:
    """The last statement when it is ``check(<entry>)``, and the entry's name."""
    if not tree.body:
        return None
    last = tree.body[-1]
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return None
    call = last.value
    if not (isinstance(call.func, ast.Name) and call.func.id == "check"):
        return None
    if len(call.args) != 1 or call.keywords:
        return None
    entry = _entry_of(call.args[0])
    return (last, entry) if entry else None


def _named_entry(record: Mapping[str, Any], field: str) -> str:
    """The row's ``entry_point`` (``Solution().name`` or ``name``), for tests that do not
    call ``check`` themselves."""
    value = record.get("entry_point")
    if value is None:
        raise InputError(
            "the tests do not end with check(<entry point>) and the row names no entry_point",
            field=field,
        )
    name = expect_str(value, "entry_point", non_empty=True).strip().rsplit(".", 1)[-1]
    if not name.isidentifier():
        raise InputError(f"{value!r} names no method or function", field="entry_point")
    return name


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    text, field = _functional(record)
    text = text.replace("\r\n", "\n")
    tree = python_source(text, field)
    if not any(isinstance(s, ast.FunctionDef) and s.name == "check" for s in tree.body):
        raise InputError("does not define check(candidate)", field=field)
    helper = _NODE_HELPERS.search(text)
    if helper is not None:
        raise InputError(
            f"the tests use LeetCode's list/tree helpers ({helper.group(1)}), which rllm "
            "defines before the program; the assertion harness cannot run them before it",
            field=field,
        )
    closing = _closing_call(tree)
    if closing is not None:
        statement, entry_point = closing
        lines = text.split("\n")
        end = statement.end_lineno or statement.lineno
        test_code = "\n".join(lines[: statement.lineno - 1] + lines[end:]).rstrip() + "\n"
    else:
        entry_point, test_code = _named_entry(record, field), text
    metadata: dict[str, Any] = {"source_format": "rllm_leetcode", "platform": "leetcode"}
    if isinstance(record.get("starter_code"), str) and record["starter_code"].strip():
        metadata["starter_code"] = record["starter_code"]
    return tests_function_problem(
        fallback_id or "rllm_leetcode",
        test_code=test_code,
        entry_point=entry_point,
        time_limit=TIME_LIMIT,
        metadata=metadata,
    )


def _statement(record: Mapping[str, Any]) -> str:
    for key in ("problem", "question"):
        if isinstance(record.get(key), str):
            return record[key]
    return ""


def _references(record: Mapping[str, Any]) -> list[Solution]:
    return solutions(solutions_of(record.get("solutions")))


FORMAT = Format(
    name="rllm_leetcode",
    title="rllm LeetCode rows",
    shape="'tests' (or the record itself) with 'functional' (def check(candidate) ...)",
    recognise=_recognise,
    read=_read,
    fields=("tests", _KEY, "entry_point", "starter_code"),
    rank=27,  # before DeepCoder's 'problem' with 'tests' and the generic 'tests'
    statement=_statement,
    references=_references,
    aliases=("rllm-leetcode", "rllm/leetcode"),
)
