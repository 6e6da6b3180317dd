"""TACO and APPS rows, and their ``input_output`` object on its own (verl's ``prime_code``
ground truth, Eurus-2-RL-Data's).

APPS (``codeparrot/apps``)::

    {"problem_id": 0, "question", "solutions": "<JSON list of programs>",
     "input_output": "{\\"inputs\\": [...], \\"outputs\\": [...], \\"fn_name\\"?: ...}",
     "difficulty": "interview", "url", "starter_code"}

TACO (``BAAI/TACO``): the same ``question``, ``solutions``, ``starter_code`` and
``input_output``, every column a string, no id, plus ``name``, ``source``, ``difficulty``,
``tags``, ``url``, ``time_limit`` (``"1 second"``) and ``memory_limit`` (``"256
megabytes"``), which become the problem's limits. A TACO row's id is ``taco-<row>``, its
0-based position in the file (the split's row number); an APPS row's is its ``problem_id``.
The ``input_output`` shapes are :func:`~evaluator.formats.testlists.io_tests`'.

Graded by the rule of their graders (APPS's ``testing_util.py``, TACO's, verl's
``prime_code``; ``docs/datasets.md``): a stdin test's output is compared by the ``float``
judge (tokens; real numbers within 1e-6 absolute or relative, integers exactly), and a
call's expected value wrapped in a one-element list also accepts the bare value. A call-based
row from Codewars (TACO's ``source`` is ``codewars``, or the row's ``url`` is on
codewars.com: APPS names no source) compares values as Python's ``==`` does for booleans
(judge option ``bool_as_int``: ``True`` is ``1``, ``False`` is ``0``): its graders compare
with ``==`` (TACO's ``metrics/testing_util.py``, APPS's ``eval/testing_util.py``), and so do
the katas' own tests on Codewars (``test.assert_equals(actual, expected)``). Rows from
LeetCode and the other sources keep ``True`` apart from ``1``, as LeetCode's judge does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ...problem import Harness, Problem
from ..errors import InputError
from ..fields import (
    expect_dict,
    optional_judge,
    optional_memory_limit,
    optional_time_limit,
    solutions_of,
)
from ..limits import megabytes, seconds
from ..registry import Format, solutions, take_id
from ..source_rules import contest_judge
from ..testlists import DecodedTests, decode_text, io_tests

__all__ = ["FORMAT", "from_codewars", "problem_from_io"]


def from_codewars(record: Mapping[str, Any]) -> bool:
    """Whether a TACO or APPS row is a Codewars kata: TACO's ``source`` says ``codewars``,
    or the row's ``url`` is on codewars.com (APPS has only the url)."""
    source = record.get("source")
    if isinstance(source, str) and source.strip().lower() == "codewars":
        return True
    url = record.get("url")
    if not isinstance(url, str) or not url.strip():
        return False
    try:
        host = (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return False
    return host == "codewars.com" or host.endswith(".codewars.com")


def problem_from_io(
    value: Any,
    field: str,
    problem_id: str,
    *,
    judge: Any = None,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
    codewars: bool = False,
) -> Problem:
    """The problem of an ``input_output`` value (JSON text or object); ``judge`` None: the
    sources' rule (:func:`~evaluator.formats.source_rules.contest_judge`; ``codewars``: the
    row is a Codewars kata)."""
    io = expect_dict(decode_text(value, field), field) if value not in (None, "") else {}
    decoded = io_tests(io, field) if io else DecodedTests(Harness.STDIN, [])
    return decoded.problem(
        problem_id,
        judge=judge,
        rule=lambda tests: contest_judge(tests, codewars=codewars),
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=metadata,
    )


_FACTS = {"difficulty": "difficulty", "source": "platform", "name": "question_title", "url": "url"}


def _facts(record: Mapping[str, Any]) -> dict[str, Any]:
    facts = {
        ours: record[theirs]
        for theirs, ours in _FACTS.items()
        if isinstance(record.get(theirs), str) and record[theirs].strip()
    }
    if isinstance(record.get("starter_code"), str) and record["starter_code"].strip():
        facts["starter_code"] = record["starter_code"]
    return facts


def _read(record: Mapping[str, Any], fallback_id: str | None, id_keys: tuple[str, ...]) -> Problem:
    problem_id = take_id(record, id_keys, fallback_id, numbers=True)
    if "input_output" not in record:
        raise InputError("missing required field", field="input_output")
    return problem_from_io(
        record["input_output"],
        "input_output",
        problem_id,
        judge=optional_judge(record),
        time_limit=seconds(record.get("time_limit"), "time_limit"),
        memory_limit=megabytes(record.get("memory_limit"), "memory_limit"),
        metadata=_facts(record),
        codewars=from_codewars(record),
    )


def _references(record: Mapping[str, Any]) -> list:
    return solutions(solutions_of(record.get("solutions")))


def _read_io(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("question_id", "id"), fallback_id)
    return problem_from_io(
        dict(record),
        "ground_truth",
        problem_id,
        judge=optional_judge(record),
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
    )


_ROW_FIELDS = ("input_output", "time_limit", "memory_limit", "judge", *_FACTS, "starter_code")

FORMAT = (
    Format(
        name="apps",
        title="APPS",
        shape="'problem_id' with 'input_output'",
        recognise=lambda record: "input_output" in record and "problem_id" in record,
        read=lambda record, fallback: _read(record, fallback, ("problem_id",)),
        fields=("problem_id", *_ROW_FIELDS),
        rank=40,
        id_keys=("problem_id",),
        statement=lambda record: str(record.get("question") or ""),
        references=_references,
        aliases=("codeparrot/apps",),
    ),
    Format(
        name="taco",
        title="TACO",
        shape="'input_output' (and no 'problem_id')",
        recognise=lambda record: "input_output" in record,
        read=lambda record, fallback: _read(record, fallback, ()),
        fields=_ROW_FIELDS,
        rank=41,
        statement=lambda record: str(record.get("question") or ""),
        references=_references,
        aliases=("baai/taco",),
    ),
    Format(
        name="input_output",
        title="APPS/TACO input_output (verl prime_code)",
        shape="'inputs' with 'outputs' (and 'fn_name' for calls)",
        recognise=lambda record: "inputs" in record and "outputs" in record,
        read=_read_io,
        fields=("inputs", "outputs", "fn_name", "func_name", "judge", "time_limit", "memory_limit"),
        rank=95,
        aliases=("prime_code",),
    ),
)
