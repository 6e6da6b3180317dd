"""MBPP rows (``google-research/google-research@mbpp/README.md``; Hugging Face
``google-research-datasets/mbpp``), both configurations.

Original (``mbpp.jsonl``, the ``full`` config)::

    {"task_id": 11, "text": "Write a python function to ...", "code": "def ...",
     "test_list": ["assert remove_Occ(\\"hello\\",\\"l\\") == \\"heo\\"", ...],
     "test_setup_code": "", "challenge_test_list": []}

Sanitized (``sanitized-mbpp.json``, the ``sanitized`` config)::

    {"source_file": "...", "task_id": 11, "prompt": "Write a python function to ...",
     "code": "def ...", "test_imports": ["import math"], "test_list": [...]}

A row is an assertion problem (:func:`~evaluator.formats.assert_lists.assertion_problem`):
the imports (``test_imports``) and ``test_setup_code`` first, then ``check(candidate)`` running the
``test_list`` asserts as written, with the function's name (the first one they call that is
not a builtin) bound to the candidate. MBPP's convention (its paper's evaluation, PRIME's
``eval/Coding/mbpp/evaluate_mbpp.py``) is exactly that: run the program, then each assert;
pass when none fails. ``challenge_test_list`` (the original's harder extra asserts, empty in
almost every row) is not run, as MBPP's evaluation does not run it; it is kept in the
metadata. The id is ``task_id``; the reference is ``code``; the statement ``text`` (original)
or ``prompt`` (sanitized).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..assert_lists import assertion_problem
from ..fields import expect_list, optional_memory_limit, optional_time_limit, require_field
from ..registry import Format, Solution, take_id

__all__ = ["FORMAT"]


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("task_id",), fallback_id, numbers=True)
    imports = record.get("test_imports")
    pairs = [
        (text, f"test_imports[{index}]")
        for index, text in enumerate(expect_list(imports, "test_imports") if imports else [])
    ]
    setup = record.get("test_setup_code")
    metadata: dict[str, Any] = {"source_format": "mbpp"}
    challenge = record.get("challenge_test_list")
    if challenge:
        metadata["challenge_test_list"] = expect_list(challenge, "challenge_test_list")
    return assertion_problem(
        problem_id,
        require_field(record, "test_list"),
        "test_list",
        entry_point=record.get("entry_point") or None,
        entry_field="entry_point",
        imports=pairs,
        setup=(setup, "test_setup_code") if setup is not None else None,
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        metadata=metadata,
    )


def _references(record: Mapping[str, Any]) -> list[Solution]:
    code = record.get("code")
    return [Solution(code)] if isinstance(code, str) and code.strip() else []


def _statement(record: Mapping[str, Any]) -> str:
    for key in ("text", "prompt"):
        if isinstance(record.get(key), str):
            return record[key]
    return ""


FORMAT = Format(
    name="mbpp",
    title="MBPP",
    shape="'task_id' with 'test_list'",
    recognise=lambda record: "task_id" in record and "test_list" in record,
    read=_read,
    fields=(
        "task_id",
        "test_list",
        "test_imports",
        "test_setup_code",
        "challenge_test_list",
        "entry_point",
        "time_limit",
        "memory_limit",
    ),
    rank=31,
    id_keys=("task_id",),
    statement=_statement,
    references=_references,
    aliases=("google-research-datasets/mbpp", "mbpp-sanitized"),
)
