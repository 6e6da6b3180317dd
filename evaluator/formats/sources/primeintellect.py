"""PrimeIntellect's verifiable-coding-problems and SYNTHETIC-1 rows (the ``genesys`` task
schema: ``PrimeIntellect-ai/genesys@README.md``, ``src/genesys/schemas.py``)::

    {"problem_id": "primeintellect_1", "source": "codeforces", "task_type": "verifiable_code",
     "in_source_id": "...", "prompt": "...",
     "gold_standard_solution": "```python\\n...\\n```",
     "verification_info": "{'language': 'python', 'test_cases': [{'type': 'stdin_stdout',
                            'input': '3\\n', 'output': '6\\n'}, ...]}",
     "metadata": "{'difficulty': 'B', 'time_limit': '1 second', 'memory_limit': '256
                  megabytes', 'problem_url': '...'}"}

``verification_info`` and ``metadata`` are written on the Hub as the ``repr`` of a dict (a
Python literal: genesys's ``verify.py`` reads them with ``ast.literal_eval``); derived copies
hold JSON text or the object itself: all three are read. A test case is
``{"type": "stdin_stdout", "input", "output"}`` or ``{"type": "function_call", "fn_name",
"input": <literal of the argument list>, "output": <literal of the value>}``
(:func:`~evaluator.formats.testlists.case_list`). SYNTHETIC-1 rows add response columns
(``llm_response``, ``response_id``...), which are not read; rows of another ``task_type``
than ``verifiable_code`` have no tests to run and are an error.

``verification_info.language`` (python, cpp, rust, javascript) is the language the
problem's solutions are written in: it becomes ``metadata["language"]``, whatever it is (a
problem in a language not run here is still read; grading decides what an answer in it
gets). ``metadata``'s ``time_limit``/``memory_limit`` texts (``memory_limit_bytes`` when
only that is given) become the problem's limits; ``source`` becomes the platform,
``metadata.difficulty`` and ``problem_url`` the difficulty and url.

The rule: genesys's verifier (``src/genesys/verifiers/code_test_verifier.py``) compares a
stdin test's output line by line after stripping each line, and a call's ``str()`` of the
return value with ``str()`` of the expected value. Here a stdin test is judged by the
``float`` judge (tokens; real numbers within 1e-6, absolute or relative; integers exactly:
the sources these problems come from, Codeforces and other contest sites, accept answers
within such an error), and a call by value (:func:`~evaluator.judges.compare_values`): a
tuple equals the list of its items (``str()`` tells ``(1, 2)`` from ``[1, 2]``; JSON, which
the expected values pass through, cannot), a string never equals a number (``str()``
confuses ``"5"`` with ``5``), and real numbers compare within 1e-6 (``str()`` compares their
exact digits).

A bare ``verification_info`` object ``{"language"?, "test_cases": [...]}`` (a verl
``ground_truth`` built from these rows) is read by the second format here by the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...languages import get_language
from ...problem import Problem
from ..errors import InputError
from ..extract import extract_code
from ..fields import expect_dict, expect_list, expect_str, optional_judge, require_field
from ..limits import megabytes, seconds
from ..registry import Format, Solution, take_id
from ..source_rules import pi_judge
from ..testlists import case_list, decode_text

__all__ = ["FORMAT", "problem_from_verification_info"]

TASK_TYPE = "verifiable_code"


def _literal_dict(value: Any, field: str) -> dict[str, Any]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    return expect_dict(decode_text(value, field, literal=True), field)


def _language(info: Mapping[str, Any], field: str) -> str | None:
    value = info.get("language")
    if value is None:
        return None
    return expect_str(value, f"{field}.language", non_empty=True).strip().lower()


def problem_from_verification_info(
    value: Any,
    field: str,
    problem_id: str,
    *,
    judge: Any = None,
    time_limit: float | None = None,
    memory_limit: int | None = None,
    metadata: dict[str, Any] | None = None,
) -> Problem:
    """The problem of a ``verification_info`` value (a literal or JSON text, or the object)
    at ``field``."""
    info = _literal_dict(value, field)
    if not info:
        raise InputError("missing required field", field=field)
    cases = expect_list(info.get("test_cases"), f"{field}.test_cases")
    decoded = case_list(cases, f"{field}.test_cases")
    facts = dict(metadata or {})
    language = _language(info, field)
    if language is not None:
        facts["language"] = language
    return decoded.problem(
        problem_id,
        judge=judge,
        rule=pi_judge,
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=facts,
    )


def _limits(meta: Mapping[str, Any]) -> tuple[float | None, int | None]:
    time_limit = seconds(meta.get("time_limit"), "metadata.time_limit")
    memory_limit = megabytes(meta.get("memory_limit"), "metadata.memory_limit")
    if memory_limit is None and meta.get("memory_limit_bytes") not in (None, "", 0):
        amount = meta["memory_limit_bytes"]
        if isinstance(amount, bool) or not isinstance(amount, int | float):
            raise InputError(
                f"expected a number of bytes, got {amount!r}", field="metadata.memory_limit_bytes"
            )
        # whole bytes divided as integers: a float division of 10**400 would overflow
        mebibytes = amount / (1 << 20) if isinstance(amount, float) else -(-amount // (1 << 20))
        memory_limit = megabytes(mebibytes, "metadata.memory_limit_bytes")
    return time_limit, memory_limit


def _facts(record: Mapping[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for key, value in (
        ("platform", record.get("source")),
        ("difficulty", meta.get("difficulty")),
        ("url", meta.get("problem_url") or meta.get("url")),
        ("in_source_id", record.get("in_source_id")),
    ):
        if isinstance(value, str) and value.strip():
            facts[key] = value
        elif isinstance(value, int | float) and not isinstance(value, bool):
            facts[key] = value  # a numeric difficulty (a Codeforces rating)
    return facts


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("problem_id",), fallback_id)
    task_type = record.get("task_type")
    if task_type is not None and task_type != TASK_TYPE:
        raise InputError(
            f"a {task_type!r} task has no tests to run (only {TASK_TYPE!r} tasks do)",
            field="task_type",
        )
    meta = _literal_dict(record.get("metadata"), "metadata")
    time_limit, memory_limit = _limits(meta)
    return problem_from_verification_info(
        require_field(record, "verification_info"),
        "verification_info",
        problem_id,
        judge=optional_judge(record),
        time_limit=time_limit,
        memory_limit=memory_limit,
        metadata=_facts(record, meta),
    )


def _solution_language(record: Mapping[str, Any]) -> str:
    try:
        info = _literal_dict(record.get("verification_info"), "verification_info")
        language = _language(info, "verification_info") or "python"
    except InputError:
        return "python"
    try:
        return get_language(language).name
    except ValueError:
        return language  # a language not run here: the check says so for this solution


def _references(record: Mapping[str, Any]) -> list[Solution]:
    text = record.get("gold_standard_solution")
    if not isinstance(text, str) or not text.strip():
        return []
    code = extract_code(text) if "```" in text else text
    return [Solution(code, _solution_language(record))] if code else []


def _read_info(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    return problem_from_verification_info(
        dict(record),
        "verification_info",
        take_id(record, ("problem_id",), fallback_id or "verification_info"),
        judge=optional_judge(record),
    )


FORMAT = (
    Format(
        name="primeintellect",
        title="PrimeIntellect verifiable-coding-problems / SYNTHETIC-1",
        shape="'verification_info' (with 'problem_id', 'prompt')",
        recognise=lambda record: "verification_info" in record,
        read=_read,
        fields=("problem_id", "task_type", "verification_info", "metadata", "source", "judge"),
        rank=25,
        id_keys=("problem_id",),
        statement=lambda record: str(record.get("prompt") or ""),
        references=_references,
        aliases=(
            "primeintellect/verifiable-coding-problems",
            "primeintellect/synthetic-1",
            "synthetic-1",
        ),
    ),
    Format(
        name="verification_info",
        title="PrimeIntellect verification_info",
        shape="'test_cases' (PrimeIntellect's typed test cases), 'language' optional",
        recognise=lambda record: "test_cases" in record,
        read=_read_info,
        fields=("test_cases", "language", "problem_id", "judge"),
        rank=96,
    ),
)
