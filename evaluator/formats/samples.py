"""Samples: the programs submitted for each problem, in the formats people have.

One or more records per problem (several records of one problem are joined in file order):

* LiveCodeBench: ``{"question_id", "code_list": [...]}`` (extracted programs; preferred when
  present, as in ``eval_all`` files) or ``{"question_id", "output_list": [...]}`` (raw model
  answers: ``Samples.raw`` is true and the caller runs
  :func:`~evaluator.formats.extract.extract_code` on each);
* HumanEval / EvalPlus: ``{"task_id", "completion"}`` (continues the problem's prompt:
  ``Samples.continues_prompt``) or ``{"task_id", "solution"}`` (a whole program);
* HumanEval-X: ``{"task_id", "generation"}`` (the prompt's continuation, which the problem
  joins with its prompt and tests: :mod:`evaluator.harness.test_program`);
* MultiPL-E: ``{"name", "completions": [...]}`` (their generation files) or ``{"name",
  "completion"}``, continuations joined likewise; their ``language`` field restates the
  problem's in MultiPL-E's own tags (``go_test.go``), so the problem's language is used;
* ours: ``{"id", "code" | "codes" | "output" | "outputs"}`` (``output``/``outputs`` are raw).

Any of them may say ``language``. :func:`read_samples` detects which of these a file holds
from the fields of its first record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..languages import get_language
from .errors import InputError
from .fields import describe_type, expect_list, expect_str, require_field
from .record_files import PathLike, loads_json, position_unit, read_records

__all__ = [
    "Samples",
    "read_samples",
    "sample_format",
    "samples_from_record",
    "samples_from_records",
]


@dataclass(slots=True)
class Samples:
    """The programs submitted for one problem.

    ``raw``: the texts are whole model answers, run ``extract_code`` on each before grading.
    ``continues_prompt``: the texts continue the problem's prompt (HumanEval ``completion``),
    so the harness runs ``prompt + code``. ``language``: what the records' ``language`` field
    says the programs are written in (a language name or fence tag, e.g. ``"cpp"``); None
    leaves it to each answer's fence, else Python.
    """

    problem_id: str
    codes: list[str] = field(default_factory=list)
    raw: bool = False
    continues_prompt: bool = False
    language: str | None = None


def _problem_id(record: dict[str, Any], key: str) -> str:
    """The problem a samples record is for: a non-empty string, or an integer (MBPP's and
    APPS's ids are numbers; the problem reader names them by their decimal text)."""
    value = require_field(record, key)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return expect_str(value, key, non_empty=True)


def _string_list(value: Any, field_name: str) -> list[str]:
    """A list of strings; a JSON-encoded list in a string is accepted (some exports do that)."""
    if isinstance(value, str):
        try:
            value = loads_json(value)
        except ValueError:
            raise InputError(
                "expected a list of strings, got a string that is not a JSON list",
                field=field_name,
            ) from None
    items = expect_list(value, field_name)
    for index, item in enumerate(items):
        expect_str(item, f"{field_name}[{index}]")
    return items


def _lcb_samples(record: dict[str, Any]) -> Samples:
    problem_id = _problem_id(record, "question_id")
    if record.get("code_list") is not None:
        return Samples(problem_id, list(_string_list(record["code_list"], "code_list")))
    if record.get("output_list") is not None:
        return Samples(
            problem_id, list(_string_list(record["output_list"], "output_list")), raw=True
        )
    raise InputError("missing required field (or 'output_list')", field="code_list")


def _humaneval_samples(record: dict[str, Any]) -> Samples:
    problem_id = _problem_id(record, "task_id")
    if record.get("completion") is not None:
        code = expect_str(record["completion"], "completion")
        return Samples(problem_id, [code], continues_prompt=True)
    if record.get("solution") is not None:
        return Samples(problem_id, [expect_str(record["solution"], "solution")])
    if record.get("generation") is not None:  # HumanEval-X's generation files
        return Samples(problem_id, [expect_str(record["generation"], "generation")])
    raise InputError("missing required field (or 'solution', 'generation')", field="completion")


def _multipl_e_samples(record: dict[str, Any]) -> Samples:
    problem_id = _problem_id(record, "name")
    if record.get("completions") is not None:
        return Samples(problem_id, list(_string_list(record["completions"], "completions")))
    if record.get("completion") is not None:
        return Samples(problem_id, [expect_str(record["completion"], "completion")])
    raise InputError("missing required field (or 'completion')", field="completions")


def _ours_samples(record: dict[str, Any]) -> Samples:
    problem_id = _problem_id(record, "id")
    for name, raw, many in (
        ("code", False, False),
        ("codes", False, True),
        ("output", True, False),
        ("outputs", True, True),
    ):
        if record.get(name) is None:
            continue
        codes = _string_list(record[name], name) if many else [expect_str(record[name], name)]
        return Samples(problem_id, list(codes), raw=raw)
    raise InputError("missing required field (or 'codes', 'output', 'outputs')", field="code")


_SAMPLE_KINDS: tuple[tuple[str, str, tuple[str, ...], Callable[[dict[str, Any]], Samples]], ...] = (
    ("LiveCodeBench", "question_id", ("code_list", "output_list"), _lcb_samples),
    (
        "HumanEval/EvalPlus",  # and HumanEval-X's generation files: their results alike
        "task_id",
        ("completion", "solution", "generation"),
        _humaneval_samples,
    ),
    ("MultiPL-E", "name", ("completions", "completion"), _multipl_e_samples),
    ("ours", "id", ("code", "codes", "output", "outputs"), _ours_samples),
)
# Sample kinds whose records' ``language`` is not ours to read (MultiPL-E's tags: the
# problem says the language).
_LANGUAGE_FROM_PROBLEM = (_multipl_e_samples,)


def sample_format(record: dict[str, Any]) -> str | None:
    """``"LiveCodeBench"``, ``"HumanEval/EvalPlus"``, ``"MultiPL-E"`` or ``"ours"`` for a samples record, from
    its fields (an id field with a payload field first, else the id field alone); None when
    it is none of them."""
    for label, key, payload, _ in _SAMPLE_KINDS:
        if key in record and any(name in record for name in payload):
            return label
    for label, key, _, _ in _SAMPLE_KINDS:
        if key in record:
            return label  # its converter reports the missing payload field
    return None


def _sample_converter(record: dict[str, Any]) -> Callable[[dict[str, Any]], Samples]:
    label = sample_format(record)
    for kind, _, _, converter in _SAMPLE_KINDS:
        if kind == label:
            return converter
    expected = "; ".join(
        f"{label}: {key!r} with {' or '.join(repr(p) for p in payload)}"
        for label, key, payload, _ in _SAMPLE_KINDS
    )
    raise InputError(f"not a known samples record (expected {expected})")


def samples_from_record(
    record: dict[str, Any], *, path: PathLike | None = None, line: int | None = None
) -> Samples:
    """The :class:`Samples` of one record of any supported samples format (see the module
    docstring). ``path``/``line`` only locate errors."""
    try:
        return _sample_converter(record)(record)
    except InputError as exc:
        raise exc.located(path=path, line=line) from None


def read_samples(path: PathLike) -> dict[str, Samples]:
    """Samples in ``path`` grouped per problem id, problems and codes in file order.

    The format is detected from the first record. Records of one problem must agree on
    whether they hold raw answers or code.
    """
    return _group_samples(path, position_unit(path), read_records(path))


def samples_from_records(
    records: Iterable[dict[str, Any]], *, source: str = "request"
) -> dict[str, Samples]:
    """:func:`read_samples` of records already in memory; errors located as ``source``
    record N."""
    return _group_samples(source, "record", enumerate(records, 1))


def _group_samples(
    path: PathLike, unit: str, records: Iterable[tuple[int, dict[str, Any]]]
) -> dict[str, Samples]:
    grouped: dict[str, Samples] = {}
    converter: Callable[[dict[str, Any]], Samples] | None = None
    for position, record in records:
        try:
            if not isinstance(record, dict):
                raise InputError(f"expected a JSON object, got {describe_type(record)}")
            if converter is None:
                converter = _sample_converter(record)
            samples = converter(record)
            if record.get("language") is not None and converter not in _LANGUAGE_FROM_PROBLEM:
                samples.language = _language_name(record["language"])
            known = grouped.get(samples.problem_id)
            if known is None:
                grouped[samples.problem_id] = samples
                continue
            if (known.raw, known.continues_prompt) != (samples.raw, samples.continues_prompt):
                raise InputError(
                    f"problem {samples.problem_id!r} mixes raw answers and code, or "
                    "completions and whole solutions, across records"
                )
            if known.language != samples.language:
                raise InputError(
                    f"problem {samples.problem_id!r} mixes languages across records "
                    f"({known.language or 'unstated'} and {samples.language or 'unstated'})",
                    field="language",
                )
            known.codes.extend(samples.codes)
        except InputError as exc:
            raise exc.located(path=path, line=position, unit=unit) from None
    return grouped


def _language_name(value: Any) -> str:
    """A samples record's ``language``: the name of a known language (a name or fence tag of
    :mod:`evaluator.languages`, any case: ``"C++"`` is ``"cpp"``)."""
    name = expect_str(value, "language", non_empty=True)
    try:
        return get_language(name).name
    except ValueError as exc:
        raise InputError(str(exc), field="language") from None
