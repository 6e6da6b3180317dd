"""microsoft/rStar-Coder rows with tests: the ``seed_testcase`` and ``synthetic_rl_testcase``
configurations (the dataset card's configs; columns as several independent descriptions of
the parquet files give them, not read from the card itself)::

    seed_testcase:
    {"question_id": "...", "question": "...", "starter_code": "" | "class Solution: ...",
     "inputs": "<JSON list>", "outputs": "<JSON list>", "func_name": "" | "maxSum",
     "class_name": "" | "Solution", "is_synthesized": "<JSON list>",
     "test_case_type": "<JSON list>"}

    synthetic_rl_testcase:
    {"question_id": "synthetic_50262", "question": "...", "inputs": "<JSON list>",
     "outputs": "<JSON list>"}

``inputs`` and ``outputs`` are JSON texts of lists (a decoded list is taken as it is).
Without ``func_name`` each item is a test's stdin text and its expected stdout. With one,
each input is the test's argument list and each output the expected return value; an item
may itself be JSON text needing a second decoding (said of ``seed_testcase``, not verified
on the files): an input that is a text is decoded (a Python literal is accepted too; one
value per line, LiveCodeBench's way, when the whole text is not one value), a list being the
argument list and anything else the one argument, and its output is decoded likewise; an
input that is already a list is the argument list and its output the value as it is.
``class_name`` other than ``Solution`` is kept in the metadata (the call harness calls
``Solution().<func_name>`` or a top-level function).

No grader ships with rStar-Coder (the ``microsoft/rStar`` repository holds none); its users
train on it through verl's ``prime_code`` (``sungyub/rstar-coder-verl`` turns
``synthetic_rl_testcase`` into ``prime_code`` ground truths), APPS's rule. So it is graded
as :mod:`.taco` is: stdin tests by the ``float`` judge, calls by value, a one-element-list
expected value also accepting its item (``{"unwrap": true}``, when some expected value is so
wrapped). The id is ``question_id``; there are no limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Harness, Problem, TestCase
from ..errors import InputError
from ..fields import expect_list, expect_str, optional_judge, require_field
from ..registry import Format, take_id
from ..source_rules import contest_judge
from ..testlists import DecodedTests, call_input, decode_text, json_text, stdin_text

__all__ = ["FORMAT"]


def _decoded(text: str, field: str) -> tuple[Any, bool]:
    """A text holding one value (JSON or a Python literal), or one value per line: the
    value, and whether it was one value."""
    try:
        return decode_text(text, field, literal=True), True
    except InputError as whole:
        lines = text.strip().split("\n")
        if len(lines) < 2:
            raise whole from None
    values = [
        decode_text(line, f"{field} line {n}", literal=True) for n, line in enumerate(lines, 1)
    ]
    return values, False


def _call(given: Any, wanted: Any, index: int) -> tuple[TestCase, bool]:
    where_in, where_out = f"inputs[{index}]", f"outputs[{index}]"
    if isinstance(given, str):
        value, single = _decoded(given, where_in)
        args = value if not single or isinstance(value, list) else [value]
        if isinstance(wanted, str):
            wanted = decode_text(wanted, where_out, literal=True)
    else:
        args = given if isinstance(given, list) else [given]
    try:
        expected = json_text(wanted)
    except (TypeError, ValueError) as exc:
        raise InputError(f"not JSON data: {exc}", field=where_out) from None
    wrapped = type(wanted) is list and len(wanted) == 1
    return TestCase(call_input(args, where_in), expected), wrapped


def _tests(record: Mapping[str, Any], func_name: str | None) -> DecodedTests:
    inputs = expect_list(decode_text(require_field(record, "inputs"), "inputs"), "inputs")
    outputs = expect_list(decode_text(require_field(record, "outputs"), "outputs"), "outputs")
    if len(inputs) != len(outputs):
        raise InputError(f"{len(inputs)} inputs but {len(outputs)} outputs", field="outputs")
    pairs = list(zip(inputs, outputs, strict=True))
    if func_name is None:
        tests = [
            TestCase(stdin_text(given, f"inputs[{i}]"), stdin_text(wanted, f"outputs[{i}]"))
            for i, (given, wanted) in enumerate(pairs)
        ]
        return DecodedTests(Harness.STDIN, tests, shape="inputs_outputs")
    tests, wrapped = [], False
    for index, (given, wanted) in enumerate(pairs):
        test, one = _call(given, wanted, index)
        tests.append(test)
        wrapped = wrapped or one
    return DecodedTests(Harness.FUNCTIONAL, tests, func_name, wrapped, "inputs_outputs")


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("question_id",), fallback_id)
    func_name = None
    if record.get("func_name") is not None:
        func_name = expect_str(record["func_name"], "func_name").strip() or None
    decoded = _tests(record, func_name)
    facts: dict[str, Any] = {}
    for key in ("starter_code", "class_name"):
        if isinstance(record.get(key), str) and record[key].strip():
            facts[key] = record[key]
    return decoded.problem(
        problem_id, judge=optional_judge(record), rule=contest_judge, metadata=facts
    )


FORMAT = Format(
    name="rstar",
    title="rStar-Coder (seed_testcase, synthetic_rl_testcase)",
    shape="'question' with 'inputs' and 'outputs' ('func_name' for calls)",
    recognise=lambda record: "question" in record and "inputs" in record and "outputs" in record,
    read=_read,
    fields=("question_id", "inputs", "outputs", "func_name", "class_name", "starter_code", "judge"),
    rank=55,
    id_keys=("question_id",),
    statement=lambda record: str(record.get("question") or ""),
    aliases=("microsoft/rstar-coder", "rstar-coder"),
)
