"""LiveCodeBench problems and samples, the multi-format file readers, and results output.

Problems: records of the ``livecodebench/code_generation_lite`` dataset::

    {"question_id", "question_title", "question_content", "platform", "contest_id",
     "contest_date", "starter_code", "difficulty",
     "public_test_cases":  "[{\\"input\\": ..., \\"output\\": ..., \\"testtype\\": \\"stdin\\"}]",
     "private_test_cases": same JSON, or base64(zlib(pickle(<that JSON string>))),
     "metadata": "{\\"func_name\\": \\"maxSum\\"}"}

Only ``question_id`` is required. A problem without tests is read without complaint (grading
reports it as an ERROR verdict), but tests that cannot be decoded are an :class:`InputError`.
The compressed form is decoded with an unpickler that refuses every class and function, so a
crafted file cannot run code: a pickle's only way to call anything is to look it up through
``find_class``. The harness is decided by the tests' ``testtype`` (``stdin`` or
``functional``); tests without one defer to ``metadata.func_name`` (present: functional).

Samples, one or more records per problem (several records of one problem are joined in file
order):

* LiveCodeBench: ``{"question_id", "code_list": [...]}`` (extracted programs; preferred when
  present, as in ``eval_all`` files) or ``{"question_id", "output_list": [...]}`` (raw model
  answers: ``Samples.raw`` is true and the caller runs
  :func:`~evaluator.formats.extract.extract_code` on each);
* HumanEval / EvalPlus: ``{"task_id", "completion"}`` (continues the problem's prompt:
  ``Samples.continues_prompt``) or ``{"task_id", "solution"}`` (a whole program);
* ours: ``{"id", "code" | "codes" | "output" | "outputs"}`` (``output``/``outputs`` are raw).

:func:`read_problems` and :func:`read_samples` detect which of these a file holds from the
fields of its first record.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import os
import pickle
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..languages import get_language
from ..problem import Harness, Problem, TestCase
from .errors import BadProblem, InputError, json_error_detail, keep_bad
from .humaneval import problem_from_humaneval
from .ours import problem_from_ours
from .records import (
    PathLike,
    describe_type,
    dumps_json,
    expect_dict,
    expect_list,
    expect_str,
    loads_json,
    optional_judge,
    optional_memory_limit,
    optional_time_limit,
    position_unit,
    read_records,
    require_field,
)

__all__ = [
    "Samples",
    "problem_from_lcb",
    "encode_private_tests",
    "decode_test_cases",
    "samples_from_record",
    "sample_format",
    "read_problems",
    "read_samples",
    "write_lcb_results",
]

# Problem fields copied into Problem.metadata for reports.
_LCB_METADATA_FIELDS = (
    "platform",
    "difficulty",
    "contest_date",
    "question_title",
    "starter_code",
    "contest_id",
)
_TESTTYPES = {"stdin": Harness.STDIN, "functional": Harness.FUNCTIONAL}


# --- compressed private tests ------------------------------------------------------------------


class _NoGlobalsUnpickler(pickle.Unpickler):
    """Unpickler that resolves no class or function at all.

    Every way a pickle can call code (REDUCE, BUILD, NEWOBJ, INST, OBJ, extensions) needs a
    callable that only ``find_class`` can produce; refusing it leaves plain data (str, bytes,
    numbers, lists, dicts...), which is all LiveCodeBench's format ever contains.
    """

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}: only plain data allowed")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refusing persistent ids: only plain data allowed")


def _decode_compressed(text: str) -> str:
    """Undo LiveCodeBench's ``base64(zlib(pickle(json_string)))``; raises ValueError."""
    try:
        compressed = base64.b64decode(text.strip().encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error) as exc:
        raise ValueError(f"not base64: {exc}") from None
    try:
        pickled = zlib.decompress(compressed)
    except zlib.error as exc:
        raise ValueError(f"not zlib data: {exc}") from None
    try:
        payload = _NoGlobalsUnpickler(io.BytesIO(pickled)).load()
    except Exception as exc:  # garbage pickles raise many exception types
        raise ValueError(f"not a plain-data pickle: {exc}") from None
    if not isinstance(payload, str):
        raise ValueError(f"pickle holds {type(payload).__name__}, expected a JSON string")
    return payload


def encode_private_tests(tests: list[dict[str, Any]]) -> str:
    """LiveCodeBench's compressed ``private_test_cases``: base64(zlib(pickle(json))).

    The inverse of what :func:`problem_from_lcb` decodes; used to build fixtures.
    """
    text = orjson.dumps(tests).decode()
    return base64.b64encode(zlib.compress(pickle.dumps(text))).decode("ascii")


def decode_test_cases(value: Any, field: str) -> list[dict[str, Any]]:
    """The list of test dicts in a ``public_test_cases``/``private_test_cases`` value.

    Accepts an already-decoded list, a JSON string, or the compressed form; ``None`` and an
    empty string mean no tests.
    """
    if value is None:
        return []
    if isinstance(value, list):
        decoded: Any = value
    elif isinstance(value, str):
        if not value.strip():
            return []
        decoded = _parse_tests_text(value, field)
    else:
        raise InputError(
            f"expected a JSON string or a list of tests, got {describe_type(value)}",
            field=field,
        )
    tests = expect_list(decoded, field)
    for index, test in enumerate(tests):
        expect_dict(test, f"{field}[{index}]")
    return tests


def _parse_tests_text(text: str, field: str) -> Any:
    # Plain JSON first (public tests, and private ones in older releases), as LiveCodeBench does.
    try:
        return loads_json(text)
    except ValueError as json_exc:
        json_reason = json_error_detail(json_exc)
    try:
        inner = _decode_compressed(text)
    except ValueError as exc:
        if text.lstrip().startswith(("[", "{")):
            # Looks like JSON: the JSON error is the useful one.
            raise InputError(f"not valid JSON ({json_reason})", field=field) from None
        raise InputError(
            f"neither JSON ({json_reason}) nor LiveCodeBench's compressed form ({exc})",
            field=field,
        ) from None
    try:
        return loads_json(inner)
    except ValueError as exc:
        raise InputError(
            f"compressed tests hold invalid JSON ({json_error_detail(exc)})", field=field
        ) from None


# --- problems ----------------------------------------------------------------------------------


def _lcb_metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The record's ``metadata`` (a JSON string or an object) as a dict."""
    value = record.get("metadata")
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = loads_json(value)
        except ValueError as exc:
            raise InputError(
                f"not valid JSON ({json_error_detail(exc)})", field="metadata"
            ) from None
    return expect_dict(value, "metadata")


def _tests_and_harness(
    record: dict[str, Any], func_name: str | None
) -> tuple[list[TestCase], Harness, int]:
    """The tests (public first), their harness and how many are public."""
    tests: list[TestCase] = []
    public = 0
    harness: Harness | None = None
    first_typed = ""  # where the deciding testtype came from, for the mixed-type message
    for name in ("public_test_cases", "private_test_cases"):
        if name == "private_test_cases":
            public = len(tests)
        for index, test in enumerate(decode_test_cases(record.get(name), name)):
            where = f"{name}[{index}]"
            texts = []
            for key in ("input", "output"):
                if test.get(key) is None:
                    raise InputError("missing required field", field=f"{where}.{key}")
                texts.append(expect_str(test[key], f"{where}.{key}"))
            tests.append(TestCase(texts[0], texts[1]))
            testtype = test.get("testtype")
            if testtype is None:
                continue
            kind = _TESTTYPES.get(testtype) if isinstance(testtype, str) else None
            if kind is None:
                raise InputError(
                    f"unknown testtype {testtype!r} (expected 'stdin' or 'functional')",
                    field=f"{where}.testtype",
                )
            if harness is None:
                harness, first_typed = kind, where
            elif kind is not harness:
                raise InputError(
                    f"testtype {testtype!r} differs from {harness.value!r} of {first_typed}: "
                    "a problem's tests must all be of one type",
                    field=f"{where}.testtype",
                )
    if harness is None:
        harness = Harness.FUNCTIONAL if func_name else Harness.STDIN
    return tests, harness, public


def problem_from_lcb(
    record: dict[str, Any], *, path: PathLike | None = None, line: int | None = None
) -> Problem:
    """Convert a LiveCodeBench ``code_generation_lite`` record into a :class:`Problem`.

    See the module docstring for the fields. ``path``/``line`` only locate errors. Raises
    :class:`InputError` for a missing ``question_id``, undecodable or mixed-type tests, or a
    functional problem without ``metadata.func_name``.
    """
    try:
        return _convert_lcb(record)
    except InputError as exc:
        raise exc.located(path=path, line=line) from None


def _convert_lcb(record: dict[str, Any]) -> Problem:
    question_id = expect_str(require_field(record, "question_id"), "question_id", non_empty=True)
    meta = _lcb_metadata(record)
    func_name = meta.get("func_name")
    if func_name is not None:
        func_name = expect_str(func_name, "metadata.func_name", non_empty=True)
    tests, harness, public = _tests_and_harness(record, func_name)
    if harness is Harness.FUNCTIONAL and not func_name:
        raise InputError(
            "functional tests need 'func_name' in metadata", field="metadata.func_name"
        )
    facts = {key: record[key] for key in _LCB_METADATA_FIELDS if record.get(key) is not None}
    facts["public_tests"] = public  # the report says whether a failing test was public
    return Problem(
        id=question_id,
        harness=harness,
        tests=tests,
        func_name=func_name if harness is Harness.FUNCTIONAL else None,
        judge=optional_judge(record),
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        metadata=facts,
    )


# --- samples -----------------------------------------------------------------------------------


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
    problem_id = expect_str(require_field(record, "question_id"), "question_id", non_empty=True)
    if record.get("code_list") is not None:
        return Samples(problem_id, list(_string_list(record["code_list"], "code_list")))
    if record.get("output_list") is not None:
        return Samples(
            problem_id, list(_string_list(record["output_list"], "output_list")), raw=True
        )
    raise InputError("missing required field (or 'output_list')", field="code_list")


def _humaneval_samples(record: dict[str, Any]) -> Samples:
    problem_id = expect_str(require_field(record, "task_id"), "task_id", non_empty=True)
    if record.get("completion") is not None:
        code = expect_str(record["completion"], "completion")
        return Samples(problem_id, [code], continues_prompt=True)
    if record.get("solution") is not None:
        return Samples(problem_id, [expect_str(record["solution"], "solution")])
    raise InputError("missing required field (or 'solution')", field="completion")


def _ours_samples(record: dict[str, Any]) -> Samples:
    problem_id = expect_str(require_field(record, "id"), "id", non_empty=True)
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
    ("HumanEval/EvalPlus", "task_id", ("completion", "solution"), _humaneval_samples),
    ("ours", "id", ("code", "codes", "output", "outputs"), _ours_samples),
)


def sample_format(record: dict[str, Any]) -> str | None:
    """``"LiveCodeBench"``, ``"HumanEval/EvalPlus"`` or ``"ours"`` for a samples record, from
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


# --- file readers ------------------------------------------------------------------------------


def _problem_converter(record: dict[str, Any]) -> Callable[..., Problem]:
    if "harness" in record and "id" in record:
        return problem_from_ours
    if "question_id" in record and (
        "public_test_cases" in record or "private_test_cases" in record
    ):
        return problem_from_lcb
    if "task_id" in record and ("test" in record or "base_input" in record):
        return problem_from_humaneval
    raise InputError(
        "not a known problem record (expected LiveCodeBench: 'question_id' with "
        "'public_test_cases'/'private_test_cases'; HumanEval/EvalPlus: 'task_id' with 'test' "
        "or 'base_input'; ours: 'id' with 'harness')"
    )


def read_problems(path: PathLike, *, bad: list[BadProblem] | None = None) -> list[Problem]:
    """All problems in ``path`` (JSONL, JSONL.gz, JSON array or parquet).

    The format (LiveCodeBench, HumanEval/EvalPlus or ours) is detected from the first record
    and applied to every record. Duplicate ids are an :class:`InputError`, as is any bad
    record, located by file and line; with a ``bad`` list, a record that is a JSON object
    but cannot be converted (undecodable tests, a pickle that is not plain data, a missing
    field) is appended there instead and the others are read. The file itself must still
    be readable JSON, of one known format, without duplicate ids.
    """
    return read_problem_files([path], bad=bad)


def read_problem_files(
    paths: Iterable[PathLike],
    *,
    converter: Callable[..., Problem] | None = None,
    admit: Callable[[dict[str, Any]], bool] | None = None,
    bad: list[BadProblem] | None = None,
) -> list[Problem]:
    """The problems of several files read as one set: the one loop behind
    :func:`read_problems` and LiveCodeBench's release shards (:mod:`evaluator.lcb`).

    ``converter`` turns a record into a problem (default: detected from the first record).
    ``admit`` sees each record before it is converted (its tests undecoded) and may leave it
    out by returning False; an :class:`InputError` it raises is located like any other. Ids
    are unique over all the files; ``bad`` as for :func:`read_problems`.
    """
    sources = ((path, position_unit(path), read_records(path)) for path in paths)
    return _problems_from(sources, converter, admit, bad)


def problems_from_records(
    records: Iterable[dict[str, Any]],
    *,
    source: str = "request",
    bad: list[BadProblem] | None = None,
) -> list[Problem]:
    """The problems of records already in memory (a service request's body), read exactly
    as :func:`read_problems` reads a file; errors are located as ``source`` record N."""
    return _problems_from([(source, "record", enumerate(records, 1))], None, None, bad)


_Source = tuple[PathLike, str, Iterable[tuple[int, dict[str, Any]]]]


def _problems_from(
    sources: Iterable[_Source],
    converter: Callable[..., Problem] | None,
    admit: Callable[[dict[str, Any]], bool] | None,
    bad: list[BadProblem] | None,
) -> list[Problem]:
    problems: list[Problem] = []
    first_seen: dict[str, tuple[PathLike, int]] = {}
    for path, unit, records in sources:
        for position, record in records:
            if not isinstance(record, dict):
                raise InputError(
                    f"expected a JSON object, got {describe_type(record)}",
                    path=path,
                    line=position,
                    unit=unit,
                )
            try:
                if converter is None:
                    converter = _problem_converter(record)
                if admit is not None and not admit(record):
                    continue
            except InputError as exc:
                raise exc.located(path=path, line=position, unit=unit) from None

            def claim(
                problem_id: str, path: PathLike = path, position: int = position, unit: str = unit
            ) -> None:
                _check_unique(problem_id, first_seen, path, position, unit)
                first_seen[problem_id] = (path, position)

            try:
                problem = converter(record)
            except InputError as exc:
                keep_bad(record, exc.located(path=path, line=position, unit=unit), bad, claim)
                continue
            claim(problem.id)
            problems.append(problem)
    return problems


def _check_unique(
    problem_id: str,
    first_seen: dict[str, tuple[PathLike, int]],
    path: PathLike,
    position: int,
    unit: str,
) -> None:
    if problem_id in first_seen:
        where, at = first_seen[problem_id]
        first = f"{unit} {at}" if where == path else f"{where}:{at}"
        raise InputError(
            f"duplicate problem id {problem_id!r} (first at {first})",
            path=path,
            line=position,
            unit=unit,
        )


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
            if record.get("language") is not None:  # any format may say it
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


# --- results -----------------------------------------------------------------------------------


def write_lcb_results(path: PathLike, results: Iterable[Mapping[str, Any]]) -> None:
    """Write LiveCodeBench ``eval_all``-like results: a JSON list, one object per question.

    Each item of ``results`` needs ``question_id`` and ``graded_list`` (one bool per sample);
    ``pass@1`` defaults to the fraction of ``True`` in ``graded_list`` and ``details`` (one
    dict per sample) to ``[]``. Other keys (``code_list``, ``platform``...) are kept after
    these. The file is replaced atomically so an interrupted run leaves no half-written JSON.
    Raises ``ValueError`` for malformed items: they come from code, not from users.
    """
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(results):
        if "question_id" not in item or "graded_list" not in item:
            raise ValueError(f"results[{index}] needs 'question_id' and 'graded_list'")
        graded = list(item["graded_list"])
        if not all(isinstance(g, bool) for g in graded):
            raise ValueError(f"results[{index}]['graded_list'] must hold only bools")
        details = list(item.get("details") or [])
        pass1 = item.get("pass@1")
        if pass1 is None:
            pass1 = sum(graded) / len(graded) if graded else 0.0
        row: dict[str, Any] = {
            "question_id": item["question_id"],
            "graded_list": graded,
            "pass@1": float(pass1),
            "details": details,
        }
        row.update({k: v for k, v in item.items() if k not in row})
        rows.append(row)
    data = dumps_json(rows, indent=True)
    # Write next to the target and rename: an interrupted run never leaves half a file.
    tmp = f"{os.fspath(path)}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.write(b"\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
