"""NeMo-Gym ``code_gen`` rows (``NVIDIA-NeMo/Gym@resources_servers/code_gen``: its
``data/example.jsonl`` and the ``UnitTests`` schema of ``app.py``)::

    {"responses_create_params": {"input": [{"role": "user", "content": "<prompt>"}], ...},
     "verifier_metadata": {"unit_tests": {"inputs": ["4\\n0001\\n...\\n"],
                                          "outputs": ["1\\n3 \\n...\\n"],
                                          "fn_name": null},
                           "difficulty"?: "..."},
     "hash_id": "...", "dataset": "...", "source"?: "..."}

``unit_tests`` follows LiveCodeBench's convention (the schema says so): without ``fn_name``
each input is a test's stdin and each output its expected stdout; with one, each input is
one JSON value per line (one per argument) and each output the JSON text of the return
value. ``verifier_metadata`` and ``unit_tests`` may be JSON texts (NeMo-Gym's preprocessing
starts from such text) or objects.

NeMo-Gym grades with LiveCodeBench's ``testing_util`` (``lcb_integration``): stdin outputs
line by line after stripping; here by the grading default, ``tokens``, as our
:mod:`.livecodebench` format (no judge named), calls by value without unwrapping a one-element list
(``prediction == gt_out``). Here calls compare by value
(:func:`~evaluator.judges.compare_values`): real numbers within 1e-6 where LiveCodeBench's
``==`` is exact. Its per-test timeout is a server setting (``unit_test_timeout_secs``), not
in the rows: the problem keeps our defaults. The id is ``hash_id`` (else the row's
position); ``dataset`` and ``source`` are kept as ``dataset`` and ``platform``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..errors import InputError
from ..fields import expect_dict, optional_judge, require_field, user_text
from ..registry import Format, take_id
from ..testlists import decode_text, io_tests

__all__ = ["FORMAT"]


def _object(value: Any, field: str) -> dict[str, Any]:
    return expect_dict(decode_text(value, field), field)


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("hash_id",), fallback_id or "nemo_gym")
    verifier = _object(require_field(record, "verifier_metadata"), "verifier_metadata")
    if verifier.get("unit_tests") is None:
        raise InputError("missing required field", field="verifier_metadata.unit_tests")
    tests = _object(verifier["unit_tests"], "verifier_metadata.unit_tests")
    decoded = io_tests(tests, "verifier_metadata.unit_tests")
    facts: dict[str, Any] = {}
    for key, value in (
        ("platform", record.get("source")),
        ("dataset", record.get("dataset")),
        ("difficulty", verifier.get("difficulty")),
    ):
        if isinstance(value, str) and value.strip():
            facts[key] = value
    return decoded.problem(problem_id, judge=optional_judge(record), metadata=facts)


def _statement(record: Mapping[str, Any]) -> str:
    params = record.get("responses_create_params")
    return user_text(params.get("input") if isinstance(params, Mapping) else None)


FORMAT = Format(
    name="nemo_gym",
    title="NeMo-Gym code_gen",
    shape="'verifier_metadata' (with 'unit_tests')",
    recognise=lambda record: "verifier_metadata" in record,
    read=_read,
    fields=("hash_id", "verifier_metadata", "source", "dataset", "judge"),
    rank=16,
    id_keys=("hash_id",),
    id_required=False,
    statement=_statement,
    aliases=("nemo-gym", "code_gen"),
)
