"""A record whose tests are under ``tests``, with our schema's other fields beside it: the
form of a dataset's columns (the reward's, a parquet file's) and of a verl ``ground_truth``
that is a bare list of tests.

``tests`` holds any shape of :mod:`evaluator.formats.testlists` (a list of ``{"input",
"output"}`` texts, with LiveCodeBench's ``testtype`` or PrimeIntellect's ``type``; APPS's
``{"inputs", "outputs", "fn_name"}``), as a value or as JSON text. Beside it, any field of
our schema (:mod:`evaluator.formats.schema`: ``harness``, ``func_name``, ``judge``,
``time_limit``, ``memory_limit``, ``test_code``/``entry_point``, ``metadata`` (a JSON text
or an object; its ``func_name`` names the function when no column does), ``environment``,
``input_file``, ``output_file``), ``prompt_code`` (or ``prompt``) for the schema's
``prompt`` (the code an assertion problem's sample continues), and ``question_id``, ``id`` or
``task_id`` for its id.
Other fields (the statement, solutions, anything a dataset carries) are ignored.

The harness is the tests' own type when they say it, else ``functional`` when a function is
named, else ``stdin``; a ``harness`` field that contradicts the tests is an error. The judge
is the ``judge`` field, else the rule of the source the tests' shape comes from: APPS's
``inputs``/``outputs`` by APPS's (:mod:`.taco`), PrimeIntellect's typed cases by its
(:mod:`.primeintellect`: the ``float`` judge for stdin), others by our defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Harness, Problem
from ..errors import InputError
from ..fields import expect_dict, expect_str, optional_judge
from ..registry import Format, take_id
from ..schema import PROBLEM_FIELDS, read_ours
from ..source_rules import contest_judge, pi_judge
from ..testlists import DecodedTests, decode_text, tests_value

__all__ = ["FORMAT", "TEST_ID_KEYS"]

TEST_ID_KEYS = ("question_id", "id", "task_id")
# Our schema's fields that may stand beside the tests as they are.
_BESIDE = tuple(name for name in PROBLEM_FIELDS if name not in {"id", "tests", "prompt"})


def _metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    value = record.get("metadata")
    if value is None or value == "":
        return {}
    return dict(expect_dict(decode_text(value, "metadata"), "metadata"))


def _harness(record: Mapping[str, Any]) -> Harness | None:
    value = record.get("harness")
    if value is None:
        return None
    text = expect_str(value, "harness").strip().lower()
    try:
        return Harness(text)
    except ValueError:
        allowed = ", ".join(repr(h.value) for h in Harness)
        raise InputError(f"unknown harness {value!r} (expected one of {allowed})", field="harness")


def _judge(decoded: DecodedTests) -> Any:
    if decoded.shape == "inputs_outputs":
        return contest_judge(decoded)
    if decoded.shape == "type":
        return pi_judge(decoded)
    return None


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, TEST_ID_KEYS, fallback_id, numbers=True)
    metadata = _metadata(record)
    harness = _harness(record)
    fields: dict[str, Any] = {
        key: record[key] for key in _BESIDE if record.get(key) is not None and key != "metadata"
    }
    for name in ("prompt_code", "prompt"):  # the code a sample continues (see above)
        if isinstance(record.get(name), str):
            fields["prompt"] = record[name]
            break
    if metadata:
        fields["metadata"] = metadata
    if harness is Harness.ASSERTION:  # the tests are in test_code: our schema's own reading
        if record.get("tests") not in (None, "", []):
            fields["tests"] = decode_text(record["tests"], "tests")
        return read_ours({"id": problem_id, **fields, "harness": "assertion"}, None)
    fields.pop("prompt", None)  # a stdin or call problem continues no code: a statement, if any
    func_name = fields.get("func_name") or metadata.get("func_name")
    if func_name is not None:
        func_name = expect_str(func_name, "func_name", non_empty=True)
    elif harness is Harness.FUNCTIONAL:
        raise InputError(
            "missing required field: call-based tests need the function's name",
            field="func_name",
        )
    decoded = tests_value(
        record.get("tests"), "tests", func_name=None if harness is Harness.STDIN else func_name
    )
    if harness is not None and harness is not decoded.harness:
        raise InputError(
            f"says {harness.value!r} but the tests are {decoded.harness.value} tests",
            field="harness",
        )
    judge = optional_judge(record)
    fields.update(
        harness=decoded.harness.value,
        func_name=decoded.func_name,
        judge=judge if judge is not None else _judge(decoded),
        tests=[{"input": t.input, "output": t.output} for t in decoded.tests],
    )
    return read_ours({"id": problem_id, **{k: v for k, v in fields.items() if v is not None}}, None)


FORMAT = Format(
    name="tests",
    title="a 'tests' field (dataset columns)",
    shape="'tests' (a list of tests, or APPS's inputs/outputs), with our schema's fields",
    recognise=lambda record: "tests" in record,
    read=_read,
    fields=("tests", "prompt_code", "prompt", *TEST_ID_KEYS, *_BESIDE),
    rank=90,
    id_keys=TEST_ID_KEYS,
    id_required=False,
)
