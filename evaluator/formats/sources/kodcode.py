"""KodCode rows (``KodCode/KodCode-V1``, ``KodCode/KodCode-Light-RL-10K``; ``docs/kodcode.md``)::

    {"question_id": "Leetcode_123_I", "question": "...", "solution": "def f(...): ...",
     "test": "from solution import f\\n\\ndef test_f():\\n    assert f(1) == 2\\n",
     "test_info": [{"function_name": "f", "parameter_list": "(x)", "docstring": "...",
                    "function_declaration": "def f(x):"}],
     "style": "instruct", "subset": "Leetcode", "gpt_difficulty": "easy", ...}

``test`` (``test_code`` in older revisions) is a pytest file that imports the program as the
module ``solution``. KodCode's authors run ``pytest`` on it beside ``solution.py``
(``KodCode-AI/kodcode``, ``run_test.sh`` of each trial: pass when pytest exits 0); we run it
with real pytest in the sandbox child (:mod:`evaluator.harness.pytest_file`), the program as
``solution.py`` beside ``test_solution.py`` (its ``__main__`` block does not run). The
problem is an assertion problem whose ``test_code`` is that file, marked
``metadata["test_runner"] = "pytest"``; a pass needs pytest's exit status 0 with at least
one test passed, reported by the harness (an exit of the program is never a pass).

The id is ``question_id``; the entry point is ``test_info``'s first ``function_name`` (else
``test_entry_point``, older revisions), kept for reports: the tests name what they import.
``subset`` becomes the platform (reports group by it), ``gpt_difficulty`` the difficulty;
the environment is ``plain`` (pytest's defaults), whatever the subset is called. The statement
is ``question``, the reference ``solution``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..code_tests import tests_function_problem
from ..errors import InputError
from ..fields import describe_type, expect_str
from ..registry import Format, Solution, take_id

__all__ = ["FORMAT", "TEST_FIELDS"]

TEST_FIELDS = ("test", "test_code")
"""Where a row keeps its pytest file: ``test`` (current revision), ``test_code`` (older)."""

_FACTS = {"subset": "platform", "gpt_difficulty": "difficulty", "style": "style"}


def _tests(record: Mapping[str, Any]) -> str:
    for field in TEST_FIELDS:
        if record.get(field) is not None:
            return expect_str(record[field], field, non_empty=True)
    present = ", ".join(sorted(map(str, record))) or "none"
    raise InputError(
        f"missing required field (or 'test_code'; fields present: {present})", field="test"
    )


def _entry_point(record: Mapping[str, Any]) -> str:
    """``test_info[0].function_name``; else ``test_entry_point``; else empty."""
    info = record.get("test_info")
    if info is not None:
        if not isinstance(info, list | tuple):
            raise InputError(f"expected a list, got {describe_type(info)}", field="test_info")
        for index, entry in enumerate(info):
            if not isinstance(entry, Mapping):
                raise InputError(
                    f"expected an object, got {describe_type(entry)}", field=f"test_info[{index}]"
                )
            name = entry.get("function_name")
            if name is None:
                continue
            if not isinstance(name, str):
                raise InputError(
                    f"expected a string, got {describe_type(name)}",
                    field=f"test_info[{index}].function_name",
                )
            if name.strip():
                return name.strip()
    entry_point = record.get("test_entry_point")
    if entry_point is not None:
        return expect_str(entry_point, "test_entry_point").strip()
    return ""


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("question_id",), fallback_id)
    tests = _tests(record)
    entry_point = _entry_point(record)
    metadata: dict[str, Any] = {"test_runner": "pytest", "source_format": "kodcode"}
    for theirs, ours in _FACTS.items():
        value = record.get(theirs)
        if isinstance(value, str) and value.strip():
            metadata[ours] = value.strip()
    return tests_function_problem(
        problem_id,
        test_code=tests,
        entry_point=entry_point,
        metadata=metadata,
        environment="plain",
    )


def _references(record: Mapping[str, Any]) -> list[Solution]:
    code = record.get("solution")
    return [Solution(code)] if isinstance(code, str) and code.strip() else []


FORMAT = Format(
    name="kodcode",
    title="KodCode",
    shape="'question_id' or 'test_info' with 'test' (or 'test_code')",
    recognise=lambda record: (
        any(field in record for field in TEST_FIELDS)
        and ("question_id" in record or "test_info" in record)
    ),
    read=_read,
    fields=("question_id", *TEST_FIELDS, "test_info", "test_entry_point", *_FACTS),
    rank=32,
    id_keys=("question_id",),
    statement=lambda record: str(record.get("question") or ""),
    references=_references,
    aliases=("kodcode/kodcode-v1", "kodcode/kodcode-light-rl-10k", "kodcode-v1"),
)
