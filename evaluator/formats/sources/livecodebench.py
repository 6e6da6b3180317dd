"""LiveCodeBench problems: records of the ``livecodebench/code_generation_lite`` dataset::

    {"question_id", "question_title", "question_content", "platform", "contest_id",
     "contest_date", "starter_code", "difficulty",
     "public_test_cases":  "[{\\"input\\": ..., \\"output\\": ..., \\"testtype\\": \\"stdin\\"}]",
     "private_test_cases": same JSON, or base64(zlib(pickle(<that JSON string>))),
     "metadata": "{\\"func_name\\": \\"maxSum\\"}"}

Only ``question_id`` is required. A problem without tests is read without complaint (grading
reports it as an ERROR verdict), but tests that cannot be decoded are an :class:`InputError`.
The compressed form is decoded with an unpickler that refuses every class and function, so a
crafted file cannot run code: a pickle's only way to call anything is to look it up through
``find_class``; and it is inflated within a bound (:mod:`.inflate`: 128 times its compressed
size, at least 32 MiB, at most 1 GiB), so a crafted row cannot take the grader's memory. The harness is decided by the tests' ``testtype`` (``stdin`` or
``functional``); tests without one defer to ``metadata.func_name`` (present: functional).
Graded by LiveCodeBench's rule but for the line layout: stdin tests by the grading default,
``tokens``, as the contests' judges compare (LiveCodeBench's own line rule is the ``lcb``
judge), values for call-based ones (``docs/datasets.md``).

NVIDIA's LiveCodeBench-CPP (``nvidia/LiveCodeBench-CPP``: the same fields, its answers C++)
is read here too. Its stdin rows are LiveCodeBench's; a functional row holds one test whose
``input`` is a C++ ``main`` that calls the starter code's method and whose ``output`` is
empty. It is graded as its evaluation (NeMo-Skills' ``livecodebench`` with
``language=cpp``) runs it: ``#include <bits/stdc++.h>``, ``using namespace std;``, the code
and that ``main`` joined into one program, built by ``g++`` with no flags (GCC's defaults),
run once, passing on a clean exit; its problems take C++ answers only.
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
import re
import zlib
from collections.abc import Mapping
from typing import Any

import orjson

from ...problem import PROGRAM_PREFIX, PROGRAM_SUFFIX, Harness, Problem, TestCase
from ..code_tests import joined_program_problem
from ..errors import InputError, json_error_detail
from ..fields import (
    describe_type,
    expect_dict,
    expect_list,
    expect_str,
    leetcode_output_arg,
    optional_judge,
    optional_memory_limit,
    optional_time_limit,
    solutions_of,
)
from ..inflate import InflateError, inflate_zlib
from ..record_files import PathLike, loads_json
from ..registry import Format, solutions, take_id
from ..testlists import DecodedTests

__all__ = [
    "FORMAT",
    "decode_test_cases",
    "encode_private_tests",
    "problem_from_lcb",
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
# LiveCodeBench-CPP: its functional test is a C++ main joined after the code
_CPP_MAIN = re.compile(r"\bmain\s*\(")
CPP_HARNESS_PREFIX = "#include <bits/stdc++.h>\nusing namespace std;\n\n\n"


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
    """Undo LiveCodeBench's ``base64(zlib(pickle(json_string)))``, the zlib step within its
    bound (:func:`~.inflate.inflate_zlib`); raises ValueError (:class:`~.inflate.InflateError`
    past the bound)."""
    try:
        compressed = base64.b64decode(text.strip().encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error) as exc:
        raise ValueError(f"not base64: {exc}") from None
    try:
        pickled = inflate_zlib(compressed)
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
    except InflateError as exc:
        raise InputError(f"LiveCodeBench's compressed form {exc}", field=field) from None
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


def _lcb_metadata(record: Mapping[str, Any]) -> dict[str, Any]:
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
    record: Mapping[str, Any], func_name: str | None
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
    record: Mapping[str, Any], *, path: PathLike | None = None, line: int | None = None
) -> Problem:
    """Convert a LiveCodeBench ``code_generation_lite`` record into a :class:`Problem`.

    See the module docstring for the fields. ``path``/``line`` only locate errors. Raises
    :class:`InputError` for a missing ``question_id``, undecodable or mixed-type tests, or a
    functional problem without ``metadata.func_name``.
    """
    return FORMAT.problem(record, path=path, line=line)


def _convert_lcb(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    question_id = take_id(record, ("question_id",), fallback_id)
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
    if harness is Harness.FUNCTIONAL and _cpp_harness(tests):
        return _cpp_harness_problem(record, question_id, tests, facts)
    decoded = DecodedTests(harness, tests, func_name if harness is Harness.FUNCTIONAL else None)
    return decoded.problem(
        question_id,
        judge=optional_judge(record),
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        metadata=facts,
        output_arg=leetcode_output_arg(meta) if harness is Harness.FUNCTIONAL else None,
    )


def _cpp_harness(tests: list[TestCase]) -> bool:
    """Whether functional tests are LiveCodeBench-CPP's: a C++ ``main`` to join after the
    code, with an empty output (a call's expected value is never empty)."""
    return any(not test.output.strip() and _CPP_MAIN.search(test.input) for test in tests)


def _cpp_harness_problem(
    record: Mapping[str, Any], question_id: str, tests: list[TestCase], facts: dict[str, Any]
) -> Problem:
    """A LiveCodeBench-CPP functional problem: its one test's ``main`` joined after the code
    (the module docstring says how it runs)."""
    if len(tests) != 1:
        raise InputError(
            f"LiveCodeBench-CPP's functional problems have one test, a C++ main; this one has "
            f"{len(tests)}",
            field="private_test_cases",
        )
    facts.update(
        {
            "source_format": "livecodebench_cpp",
            "language": "cpp",
            "languages": ["cpp"],
            "cpp_flags": [],  # their build: g++ solution.cpp -o solution
            PROGRAM_PREFIX: CPP_HARNESS_PREFIX,
            PROGRAM_SUFFIX: "\n\n" + tests[0].input,
        }
    )
    return joined_program_problem(
        question_id,
        judge="exit",
        time_limit=optional_time_limit(record),
        memory_limit=optional_memory_limit(record),
        metadata=facts,
    )


def _has_tests(record: Mapping[str, Any]) -> bool:
    return "public_test_cases" in record or "private_test_cases" in record


FORMAT = Format(
    name="livecodebench",
    title="LiveCodeBench",
    shape="'question_id' with 'public_test_cases'/'private_test_cases'",
    recognise=_has_tests,
    read=_convert_lcb,
    fields=(
        "question_id",
        "public_test_cases",
        "private_test_cases",
        "metadata",
        "judge",
        "time_limit",
        "memory_limit",
        *_LCB_METADATA_FIELDS,
    ),
    rank=20,
    id_keys=("question_id",),
    statement=lambda record: str(record.get("question_content") or ""),
    references=lambda record: solutions(solutions_of(record.get("reference_solution"))),
    aliases=("lcb", "code_generation_lite"),
)
