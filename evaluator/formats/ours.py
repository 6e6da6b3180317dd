"""Our own plain problem schema: one JSON object per problem, one per line in a JSONL file.

Schema (fields marked ``?`` are optional)::

    {
      "id":           "two-sum",                    # unique problem id, non-empty string
      "harness":      "stdin" | "functional" | "assertion",
      "tests":        [{"input": "...", "output": "..."}, ...],
      "func_name"?:   "twoSum",                     # required for "functional"
      "judge"?:       "lines" | "float" | ... | {special-judge spec object},
      "time_limit"?:  2.0,                          # CPU seconds per test, > 0
      "memory_limit"?: 256,                         # megabytes, whole number > 0
      "prompt"?:      "def f(x):\\n",               # assertion: code the sample continues
      "test_code"?:   "def check(candidate): ...",  # assertion: required, defines check()
      "entry_point"?: "f",                          # assertion: required, passed to check()
      "metadata"?:    {...}                         # free-form, kept for reports
    }

Test texts are strings in every harness. For ``stdin`` they are the program's input and
expected output. For ``functional`` the input is one JSON value per line (one per argument)
and the output the JSON of the expected return value, as in LiveCodeBench: a test of
``twoSum([2, 7], 9) == [0, 1]`` is ``{"input": "[2, 7]\\n9", "output": "[0, 1]"}``.
``assertion`` problems carry their tests in ``test_code``; ``tests`` may be left out and
defaults to one placeholder test ``{"input": "", "output": ""}``.

A problem with no tests is read without complaint; grading reports it as an ERROR verdict.
Unknown top-level fields are rejected, to catch typos such as ``time_limt``; put anything
else under ``metadata``.
"""

from __future__ import annotations

from typing import Any

from ..problem import Harness, Problem, TestCase
from .errors import InputError
from .records import (
    expect_dict,
    expect_list,
    expect_str,
    optional_judge,
    optional_memory_limit,
    optional_time_limit,
    require_field,
)

__all__ = ["problem_from_ours", "problem_to_ours", "tests_from_list", "OURS_FIELDS"]

OURS_FIELDS = frozenset(
    {
        "id",
        "harness",
        "tests",
        "func_name",
        "judge",
        "time_limit",
        "memory_limit",
        "prompt",
        "test_code",
        "entry_point",
        "metadata",
    }
)

_PLACEHOLDER = [TestCase("", "")]


def tests_from_list(value: Any, field: str) -> list[TestCase]:
    """Tests from a list of ``{"input": str, "output": str}`` objects; extra keys ignored
    (LiveCodeBench adds ``testtype``)."""
    tests: list[TestCase] = []
    for index, item in enumerate(expect_list(value, field)):
        where = f"{field}[{index}]"
        item = expect_dict(item, where)
        texts: list[str] = []
        for key in ("input", "output"):
            if item.get(key) is None:
                raise InputError("missing required field", field=f"{where}.{key}")
            texts.append(expect_str(item[key], f"{where}.{key}"))
        tests.append(TestCase(texts[0], texts[1]))
    return tests


def _harness(value: Any) -> Harness:
    text = expect_str(value, "harness")
    try:
        return Harness(text.strip().lower())
    except ValueError:
        allowed = ", ".join(repr(h.value) for h in Harness)
        raise InputError(f"unknown harness {text!r} (expected one of {allowed})", field="harness")


def problem_from_ours(
    record: dict[str, Any], *, path: str | None = None, line: int | None = None
) -> Problem:
    """Convert one record of our schema (see the module docstring) into a :class:`Problem`.

    ``path`` and ``line`` only locate errors; the readers pass them.
    """
    try:
        return _convert(record)
    except InputError as exc:
        raise exc.located(path=path, line=line) from None


def _convert(record: dict[str, Any]) -> Problem:
    unknown = sorted(set(record) - OURS_FIELDS)
    if unknown:
        raise InputError(
            f"unknown field (allowed: {', '.join(sorted(OURS_FIELDS))}; "
            "put extra data under 'metadata')",
            field=unknown[0],
        )
    problem_id = expect_str(require_field(record, "id"), "id", non_empty=True)
    harness = _harness(require_field(record, "harness"))

    if harness is Harness.ASSERTION and record.get("tests") is None:
        tests = list(_PLACEHOLDER)
    else:
        tests = tests_from_list(require_field(record, "tests"), "tests")

    func_name = record.get("func_name")
    if func_name is not None:
        func_name = expect_str(func_name, "func_name", non_empty=True)
    elif harness is Harness.FUNCTIONAL:
        require_field(record, "func_name")  # raises, naming the field

    prompt = expect_str(record.get("prompt", ""), "prompt")
    test_code = expect_str(record.get("test_code", ""), "test_code")
    entry_point = expect_str(record.get("entry_point", ""), "entry_point")
    if harness is Harness.ASSERTION:
        expect_str(require_field(record, "test_code"), "test_code", non_empty=True)
        expect_str(require_field(record, "entry_point"), "entry_point", non_empty=True)

    metadata = record.get("metadata")
    metadata = {} if metadata is None else dict(expect_dict(metadata, "metadata"))

    return Problem(
        id=problem_id,
        harness=harness,
        tests=tests,
        func_name=func_name,
        judge=optional_judge(record),
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        prompt=prompt,
        test_code=test_code,
        entry_point=entry_point,
        metadata=metadata,
    )


def problem_to_ours(problem: Problem) -> dict[str, Any]:
    """The record of our schema for ``problem``; ``problem_from_ours`` reads it back equal.

    Optional fields that hold their default (``None`` or ``""``, empty metadata) are left out
    so that files stay short and readable.
    """
    record: dict[str, Any] = {
        "id": problem.id,
        "harness": Harness(problem.harness).value,
        "tests": [{"input": t.input, "output": t.output} for t in problem.tests],
    }
    optional: dict[str, Any] = {
        "func_name": problem.func_name,
        "judge": problem.judge,
        "time_limit": problem.time_limit,
        "memory_limit": problem.memory_limit,
        "prompt": problem.prompt or None,
        "test_code": problem.test_code or None,
        "entry_point": problem.entry_point or None,
        "metadata": dict(problem.metadata) or None,
    }
    record.update({key: value for key, value in optional.items() if value is not None})
    return record
