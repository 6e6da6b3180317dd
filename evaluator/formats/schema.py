"""Our own plain problem schema: one JSON object per problem, one per line in a JSONL file.

Schema (fields marked ``?`` are optional)::

    {
      "id":           "two-sum",                    # unique problem id, non-empty string
      "harness":      "stdin" | "functional" | "assertion",
      "tests":        [{"input": "...", "output": "..."}, ...],
      "func_name"?:   "twoSum",                     # required for "functional"
      "judge"?:       "lines" | "float" | ... | {special-judge spec object},
      "judge_reason"?: "reals within 1e-4 ...",    # why: the statement's phrase (its rule)
      "needs_checker"?: false,                      # many answers are right, no checker
      "time_limit"?:  2.0,                          # CPU seconds per test, > 0
      "memory_limit"?: 256,                         # megabytes, whole number > 0
      "prompt"?:      "def f(x):\\n",               # assertion: code the sample continues
      "test_code"?:   "def check(candidate): ...",  # assertion: required, defines check()
      "entry_point"?: "f",                          # assertion: required, passed to check()
      "metadata"?:    {...},                        # free-form, kept for reports
      "environment"?: "plain" | "leetcode" | ...    # interpreter environment; default: by platform
      "input_file"?:  "input.txt",                  # stdin tests: read from this file, not stdin
      "output_file"?: "output.txt",                 # stdin tests: answer in this file, not stdout
      "output_arg"?:  0                             # functional: judged by this argument after
    }                                               #   the call (in-place), not the return

Test texts are strings in every harness. For ``stdin`` they are the program's input and
expected output. For ``functional`` the input is one JSON value per line (one per argument)
and the output the JSON of the expected return value, as in LiveCodeBench: a test of
``twoSum([2, 7], 9) == [0, 1]`` is ``{"input": "[2, 7]\\n9", "output": "[0, 1]"}``.
``assertion`` problems carry their tests in ``test_code``; ``tests`` may be left out and
defaults to one placeholder test ``{"input": "", "output": ""}``.

A problem with no tests is read without complaint; grading reports it as an ERROR verdict.
Unknown top-level fields are rejected, to catch typos such as ``time_limt``; put anything
else under ``metadata``.

This module is the one place a :class:`~evaluator.problem.Problem` becomes a record and back.
The schema's fields are the dataclass's fields: each has one reader here, checked at import,
so a field added to ``Problem`` without a reader fails at once instead of being dropped on
some path. The Ray wire, the journal's fingerprint and the reward's dataset columns all go
through it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ..languages import languages
from ..problem import (
    PROGRAM_CUT,
    PROGRAM_IMPORTS,
    PROGRAM_PREFIX,
    PROGRAM_SUFFIX,
    Harness,
    Problem,
    TestCase,
)
from .errors import InputError
from .fields import (
    argument_position,
    describe_type,
    expect_dict,
    expect_list,
    expect_str,
    optional_judge,
    optional_memory_limit,
    optional_time_limit,
    require_field,
)

__all__ = [
    "OURS_FIELDS",
    "PROBLEM_FIELDS",
    "problem_to_ours",
    "read_ours",
    "rebuild_problem",
    "tests_from_list",
]

PROBLEM_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Problem))
"""The fields of :class:`Problem`, in declaration order: the schema's fields."""
OURS_FIELDS = frozenset(PROBLEM_FIELDS)

_DEFAULTS: dict[str, Any] = {
    f.name: f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
    for f in dataclasses.fields(Problem)
    if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
}
_PLACEHOLDER = [TestCase("", "")]


def tests_from_list(value: Any, field: str) -> list[TestCase]:
    """Tests from a list of ``{"input": str, "output": str}`` objects; extra keys ignored
    (LiveCodeBench adds ``testtype``)."""
    tests: list[TestCase] = []
    for index, item in enumerate(expect_list(value, field)):
        where = f"{field}[{index}]"
        item = expect_dict(item, where)
        texts: list[str] = []
        for key in ("input", "output"):
            if item.get(key) is None:
                raise InputError("missing required field", field=f"{where}.{key}")
            texts.append(expect_str(item[key], f"{where}.{key}"))
        tests.append(TestCase(texts[0], texts[1]))
    return tests


# --- reading: one reader per field, each given the record and its harness -----------------------


def _read_id(record: Mapping[str, Any], harness: Harness) -> str:
    return expect_str(require_field(record, "id"), "id", non_empty=True)


def _read_harness(record: Mapping[str, Any], harness: Harness) -> Harness:
    return harness


def _harness(record: Mapping[str, Any]) -> Harness:
    text = expect_str(require_field(record, "harness"), "harness")
    try:
        return Harness(text.strip().lower())
    except ValueError:
        allowed = ", ".join(repr(h.value) for h in Harness)
        raise InputError(f"unknown harness {text!r} (expected one of {allowed})", field="harness")


def _read_tests(record: Mapping[str, Any], harness: Harness) -> list[TestCase]:
    if harness is Harness.ASSERTION and record.get("tests") is None:
        return list(_PLACEHOLDER)  # assertion problems carry their tests in test_code
    return tests_from_list(require_field(record, "tests"), "tests")


def _read_func_name(record: Mapping[str, Any], harness: Harness) -> str | None:
    if record.get("func_name") is None:
        if harness is Harness.FUNCTIONAL:
            require_field(record, "func_name")  # raises, naming the field
        return None
    return expect_str(record["func_name"], "func_name", non_empty=True)


def _text(name: str, *, required_for: Harness | None = None) -> Callable[..., str]:
    def read(record: Mapping[str, Any], harness: Harness) -> str:
        if harness is required_for:
            return expect_str(require_field(record, name), name, non_empty=True)
        return expect_str(record.get(name, ""), name)

    return read


def _flag(record: Mapping[str, Any], name: str) -> bool:
    value = record.get(name, False)
    if not isinstance(value, bool):
        raise InputError(f"expected true or false, got {describe_type(value)}", field=name)
    return value


def _read_metadata(record: Mapping[str, Any], harness: Harness) -> dict[str, Any]:
    metadata = record.get("metadata")
    if metadata is None:
        return {}
    found = dict(expect_dict(metadata, "metadata"))
    _check_build_flags(found)
    _check_joined_program(found)
    return found


def _check_joined_program(metadata: Mapping[str, Any]) -> None:
    """The keys that join a test program around the code (:mod:`evaluator.harness.test_program`)
    hold the shapes it reads, else an :class:`InputError` naming the key: a value of another
    shape would be ignored, and the program built without it."""
    for key in (PROGRAM_PREFIX, PROGRAM_SUFFIX):
        if key in metadata and not isinstance(metadata[key], str):
            raise InputError("expected a string", field=f"metadata.{key}")
    if PROGRAM_CUT in metadata and metadata[PROGRAM_CUT] != "top_level":
        raise InputError(
            "expected 'top_level' (the only cut there is)", field=f"metadata.{PROGRAM_CUT}"
        )
    if PROGRAM_IMPORTS not in metadata:
        return
    imports = metadata[PROGRAM_IMPORTS]
    field = f"metadata.{PROGRAM_IMPORTS}"
    if not isinstance(imports, dict) or set(imports) - {"head", "packages"}:
        raise InputError('expected an object with "head" and "packages"', field=field)
    if not isinstance(imports.get("head", ""), str):
        raise InputError("expected a string", field=f"{field}.head")
    packages = imports.get("packages", [])
    if not isinstance(packages, list) or not all(isinstance(p, str) for p in packages):
        raise InputError("expected a list of import paths", field=f"{field}.packages")


def _check_build_flags(metadata: Mapping[str, Any]) -> None:
    """A problem's build flags (``cpp_flags``) are data, never commands: each must be a shape
    its language takes from data (:mod:`evaluator.languages.flag_rules`), else an
    :class:`InputError` naming the field and the flag."""
    if not any(isinstance(key, str) and key.endswith("_flags") for key in metadata):
        return  # the common case: no language's modules to import
    for language in languages().values():
        value = metadata.get(language.flags_key)
        if not language.compiled or value is None:
            continue
        why = language.flags_refusal(value)
        if why is not None:
            raise InputError(why, field=f"metadata.{language.flags_key}")


def _read_environment(record: Mapping[str, Any], harness: Harness) -> str | None:
    value = record.get("environment")
    if value is None:
        return None
    # checked against the known environments when graded (an ERROR verdict there), so that
    # a file written for a newer grader still reads
    return expect_str(value, "environment", non_empty=True)


def _file_name(record: Mapping[str, Any], name: str) -> str | None:
    """A file the program reads or writes in its working directory: a plain file name (no
    directory, not ``.`` or ``..``); None or empty: stdin / stdout."""
    value = record.get(name)
    if value is None or value == "":
        return None
    text = expect_str(value, name).strip()
    if "/" in text or "\0" in text or text in (".", "..") or not text:
        raise InputError(f"expected a plain file name, got {value!r}", field=name)
    return text


_READERS: dict[str, Callable[[dict[str, Any], Harness], Any]] = {
    "id": _read_id,
    "harness": _read_harness,
    "tests": _read_tests,
    "func_name": _read_func_name,
    "judge": lambda record, harness: optional_judge(record),
    "judge_reason": _text("judge_reason"),
    "needs_checker": lambda record, harness: _flag(record, "needs_checker"),
    "time_limit": lambda record, harness: optional_time_limit(record),
    "memory_limit": lambda record, harness: optional_memory_limit(record),
    "prompt": _text("prompt"),
    "test_code": _text("test_code", required_for=Harness.ASSERTION),
    "entry_point": _text("entry_point", required_for=Harness.ASSERTION),
    "metadata": _read_metadata,
    "environment": _read_environment,
    "input_file": lambda record, harness: _file_name(record, "input_file"),
    "output_file": lambda record, harness: _file_name(record, "output_file"),
    "output_arg": lambda record, harness: argument_position(record.get("output_arg"), "output_arg"),
}
if set(_READERS) != OURS_FIELDS:  # a new Problem field needs a reader (and a test value)
    raise AssertionError(f"schema readers {sorted(_READERS)} != Problem fields {PROBLEM_FIELDS}")


def read_ours(record: Mapping[str, Any], fallback_id: str | None = None) -> Problem:
    """The :class:`Problem` of one record of our schema (see the module docstring), every
    field checked (an :class:`InputError` naming the field); ``fallback_id`` names a record
    that names none. The ``ours`` format's reader (:mod:`.sources.ours`, which also applies
    the statement's rule) and the ``tests`` format's (:mod:`.sources.tests_field`) read
    through it."""
    unknown = sorted(set(record) - OURS_FIELDS)
    if unknown:
        raise InputError(
            f"unknown field (allowed: {', '.join(sorted(OURS_FIELDS))}; "
            "put extra data under 'metadata')",
            field=unknown[0],
        )
    if record.get("id") is None and fallback_id is not None:
        record = {**record, "id": fallback_id}
    _read_id(record, Harness.STDIN)  # the id is checked first: errors name a problem
    harness = _harness(record)
    return Problem(**{name: _READERS[name](record, harness) for name in PROBLEM_FIELDS})


# --- writing ---------------------------------------------------------------------------------------


def _encoded(name: str, value: Any) -> Any:
    if name == "harness":
        return Harness(value).value
    if name == "tests":
        return [{"input": t.input, "output": t.output} for t in value]
    if name == "metadata":
        return dict(value)
    return value


def problem_to_ours(problem: Problem, *, tests: bool = True) -> dict[str, Any]:
    """The record of our schema for ``problem``; ``problem_from_ours`` reads it back equal.

    Optional fields that hold their default (``None``, ``""``, empty metadata) are left out
    so that files stay short and readable. ``tests=False`` leaves the tests out (the
    journal's fingerprint hashes them apart, without building their records).
    """
    record: dict[str, Any] = {}
    for name in PROBLEM_FIELDS:
        if name == "tests" and not tests:
            continue
        value = getattr(problem, name)
        if name in _DEFAULTS and value == _DEFAULTS[name]:
            continue
        record[name] = _encoded(name, value)
    return record


def rebuild_problem(record: dict[str, Any]) -> Problem:
    """The problem :func:`problem_to_ours` wrote, field for field and without the schema's
    checks: for records that never left our own hands (the Ray wire), where a problem built
    in code may hold a value the reader refuses and must still be graded as it was."""
    values = {name: record[name] for name in PROBLEM_FIELDS if name in record}
    values["harness"] = Harness(values["harness"])
    values["tests"] = [TestCase(t["input"], t["output"]) for t in values.get("tests", [])]
    if "metadata" in values:
        values["metadata"] = dict(values["metadata"])
    return Problem(**values)
