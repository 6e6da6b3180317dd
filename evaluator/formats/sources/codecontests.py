"""CodeContests rows (``deepmind/code_contests``), as the Hugging Face split and the source's
``contest_problem.proto`` write them::

    {"name": "76_B. Mice", "description": "...",
     "public_tests":    {"input": ["3 2 0 2\\n0 1 3\\n2 5\\n"], "output": ["1\\n"]},
     "private_tests":   {"input": [...], "output": [...]},
     "generated_tests": {"input": [...], "output": [...]},
     "source": 2, "difficulty": 8,
     "solutions":           {"language": [2, 3], "solution": ["#include ...", "print(...)"]},
     "incorrect_solutions": {"language": [...], "solution": [...]},
     "cf_contest_id": 76, "cf_index": "B", "cf_points": 1000.0, "cf_rating": 2100,
     "cf_tags": ["greedy"], "is_description_translated": false,
     "time_limit": {"seconds": 2, "nanos": 0}, "memory_limit_bytes": 256000000,
     "input_file": "", "output_file": ""}

A row's id is its ``name``. Its tests are the public ones, then the private, then the
generated (``metadata["public_tests"]`` counts the public ones, which a report marks); each
list may also come as the proto's JSON form, a list of ``{"input", "output"}`` objects.
``time_limit`` is a ``{"seconds", "nanos"}`` duration, a number of seconds or null (none);
``memory_limit_bytes`` becomes whole megabytes: ``bytes / 2**20`` when it is a whole number of
MiB, else ``bytes / 10**6`` rounded up (the split writes Codeforces' "256 megabytes" as
256,000,000 bytes; our limit is that 256, enforced as MiB like the platform does). A
non-empty ``input_file``/``output_file`` is the file the program reads its input from / writes
its answer to (the problem's ``input_file``/``output_file``); empty means stdin/stdout.
``source`` and ``difficulty`` are the proto's enums, kept in metadata by name (``platform``:
``codeforces``, ``atcoder``...; ``difficulty``: ``EASY``, ``B``...), with the ``cf_*`` facts.

``solutions``/``incorrect_solutions`` are the references that must pass / must fail: the
proto's language enum 2 (``CPP``) is our ``cpp``, 3 (``PYTHON3``) our ``python``, 4 (``JAVA``)
our ``java``; Python 2 (1) and unknown (0) programs are left out (no such language here).

Graded by the rule of CodeContests' own grader (``execution/tester_sandboxer.cc``
``OutputsMatch``: tokens, lower-cased, numbers within 1e-5 absolute) as far as it is exact:
the ``float`` judge with ``abs_tol=1e-5``, ``rel_tol=0`` and ``yesno``. Real numbers within
1e-5 absolute, integers exactly, ``yes``/``no`` in any case, every other word case-sensitive
(``docs/datasets.md`` says why each difference from it is deliberate).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ...problem import Harness, Problem, TestCase
from ..errors import InputError
from ..fields import (
    checked_memory_limit,
    checked_time_limit,
    describe_type,
    expect_list,
    expect_str,
)
from ..limits import seconds
from ..registry import Format, Solution, take_id
from ..testlists import DecodedTests, case_list, decode_text

__all__ = ["FORMAT", "JUDGE", "LANGUAGES"]

JUDGE: dict[str, Any] = {"type": "float", "abs_tol": 1e-5, "rel_tol": 0, "yesno": True}
"""CodeContests' rule: tokens, real numbers within 1e-5 absolute, integers exactly, yes/no in
any letter case."""

LANGUAGES = {2: "cpp", 3: "python", 4: "java"}
"""The proto's ``Solution.Language`` values we grade (1 PYTHON is Python 2: left out)."""
_LANGUAGE_NAMES = {"CPP": 2, "PYTHON3": 3, "JAVA": 4}

SOURCES = {
    1: "codechef",
    2: "codeforces",
    3: "hackerearth",
    4: "codejam",
    6: "atcoder",
    7: "aizu",
}
"""``ContestProblem.Source`` (0 is UNKNOWN_SOURCE: no platform)."""

DIFFICULTIES = {
    1: "EASY",
    2: "MEDIUM",
    3: "HARD",
    4: "HARDER",
    5: "HARDEST",
    6: "EXTERNAL",
    **{value: letter for value, letter in zip(range(7, 18), "ABCDEFGHIJK", strict=True)},
    **{value: letter for value, letter in zip(range(19, 30), "LMNOPQRSTUV", strict=True)},
}
"""``ContestProblem.Difficulty`` (0 is UNKNOWN_DIFFICULTY; 18 is unused)."""

_TEST_LISTS = ("public_tests", "private_tests", "generated_tests")
_CF_FACTS = ("cf_contest_id", "cf_index", "cf_points", "cf_rating", "cf_tags")


def _tests(record: Mapping[str, Any], field: str) -> list[TestCase]:
    """One of the test lists: ``{"input": [...], "output": [...]}``, or a list of
    ``{"input", "output"}`` (the proto's JSON), or JSON text of either; null: none."""
    value = decode_text(record.get(field), field)
    if value is None:
        return []
    if isinstance(value, list):
        return case_list(value, field).tests
    if not isinstance(value, Mapping):
        raise InputError(
            f"expected an object with 'input' and 'output' lists, got {describe_type(value)}",
            field=field,
        )
    inputs = expect_list(value.get("input") or [], f"{field}.input")
    outputs = expect_list(value.get("output") or [], f"{field}.output")
    if len(inputs) != len(outputs):
        raise InputError(f"{len(inputs)} inputs but {len(outputs)} outputs", field=field)
    return [
        TestCase(
            expect_str(given, f"{field}.input[{i}]"), expect_str(wanted, f"{field}.output[{i}]")
        )
        for i, (given, wanted) in enumerate(zip(inputs, outputs, strict=True))
    ]


def _whole(value: Any, field: str, *, default: int = 0) -> int:
    """An integer field (an integer text too: protobuf's JSON writes int64 as text)."""
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected a whole number, got {describe_type(value)}", field=field)
    return value


def time_limit(value: Any) -> float | None:
    """``time_limit``: a ``{"seconds", "nanos"}`` duration, a number of seconds (or a text
    such as ``"2 seconds"``, ``"2s"``); None when null or zero."""
    if isinstance(value, Mapping):
        whole = _whole(value.get("seconds"), "time_limit.seconds")
        nanos = _whole(value.get("nanos"), "time_limit.nanos")
        try:
            total = whole + nanos / 1e9
        except OverflowError:  # whole numbers past a float's range
            total = math.inf
        return None if total == 0 else checked_time_limit(total, "time_limit")
    if value == 0 and not isinstance(value, bool):
        return None  # the proto's unset duration
    return seconds(value, "time_limit")


def memory_limit(value: Any) -> int | None:
    """``memory_limit_bytes`` as whole megabytes (see the module docstring); None when null or
    zero (unset)."""
    amount = _whole(value, "memory_limit_bytes")
    if amount < 0:
        raise InputError(
            f"expected a positive number of bytes, got {amount}", field="memory_limit_bytes"
        )
    if amount == 0:
        return None
    megabytes = amount >> 20 if amount % (1 << 20) == 0 else -(-amount // 1_000_000)
    return checked_memory_limit(megabytes, "memory_limit_bytes")


def _file_name(record: Mapping[str, Any], field: str) -> str | None:
    """A file the program reads or writes in its working directory; empty: stdin/stdout."""
    value = record.get(field)
    if value is None or value == "":
        return None
    text = expect_str(value, field).strip()
    if not text or "/" in text or "\0" in text or text in (".", ".."):
        raise InputError(f"expected a plain file name, got {value!r}", field=field)
    return text


def _enum_name(value: Any, field: str, names: Mapping[int, str]) -> str | int | None:
    """An enum's name; a name written as text is kept; 0 (unknown) is None; a number the
    proto does not know is kept as that number."""
    if isinstance(value, str) and not value.strip().isdigit():
        name = value.strip()
        return None if not name or name.upper().startswith("UNKNOWN") else name
    number = _whole(value, field)
    return names.get(number, number) if number else None


def _metadata(record: Mapping[str, Any], public: int) -> dict[str, Any]:
    facts: dict[str, Any] = {"public_tests": public}
    platform = _enum_name(record.get("source"), "source", SOURCES)
    if isinstance(platform, str):
        facts["platform"] = platform.lower()
    elif platform is not None:
        facts["source"] = platform
    difficulty = _enum_name(record.get("difficulty"), "difficulty", DIFFICULTIES)
    if difficulty is not None:
        facts["difficulty"] = difficulty
    for key in _CF_FACTS:
        value = record.get(key)
        if value not in (None, "", 0, 0.0, []):
            facts[key] = value
    if record.get("is_description_translated") is True:
        facts["is_description_translated"] = True
    return facts


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("name",), fallback_id)
    public, *others = (_tests(record, field) for field in _TEST_LISTS)
    every = [*public, *(test for tests in others for test in tests)]
    return DecodedTests(Harness.STDIN, every).problem(
        problem_id,
        judge=dict(JUDGE),
        time_limit=time_limit(record.get("time_limit")),
        memory_limit=memory_limit(record.get("memory_limit_bytes")),
        metadata=_metadata(record, len(public)),
        input_file=_file_name(record, "input_file"),
        output_file=_file_name(record, "output_file"),
    )


def _solutions(value: Any) -> list[Solution]:
    """The programs of a ``{"language": [...], "solution": [...]}`` field in a language we
    grade, in order; anything malformed is left out (a reference list never stops a read)."""
    value = value if isinstance(value, Mapping) else {}
    languages, codes = value.get("language"), value.get("solution")
    if not isinstance(languages, list) or not isinstance(codes, list):
        return []
    found = []
    for language, code in zip(languages, codes, strict=False):
        if isinstance(language, str):
            language = _LANGUAGE_NAMES.get(language.strip().upper())
        name = LANGUAGES.get(language) if type(language) is int else None
        if name is not None and isinstance(code, str) and code.strip():
            found.append(Solution(code, name))
    return found


FORMAT = Format(
    name="codecontests",
    title="CodeContests",
    shape="'public_tests'/'private_tests' (with 'name')",
    recognise=lambda record: "public_tests" in record or "private_tests" in record,
    read=_read,
    fields=(
        "name",
        *_TEST_LISTS,
        "time_limit",
        "memory_limit_bytes",
        "input_file",
        "output_file",
        "source",
        "difficulty",
        *_CF_FACTS,
        "is_description_translated",
    ),
    rank=36,
    id_keys=("name",),
    id_required=False,
    statement=lambda record: str(record.get("description") or ""),
    references=lambda record: _solutions(record.get("solutions")),
    wrong_references=lambda record: _solutions(record.get("incorrect_solutions")),
    aliases=("code_contests", "deepmind/code_contests"),
)
