"""open-r1/codeforces rows (its ``default`` and ``verifiable`` configs), as the dataset card
describes them::

    {"id": "1/A", "contest_id": "1", "index": "A", "title": "Theatre Square",
     "description": "...", "input_format": "...", "output_format": "...",
     "interaction_format": null, "time_limit": 1.0, "memory_limit": 256.0,
     "official_tests": [{"input": "6 6 4\\n", "output": "4\\n"}, ...],
     "official_tests_complete": true, "input_mode": "stdio",
     "generated_checker": null, "rating": 1000, "tags": ["math"], "generated_tests": 0, ...}

A row's id is its ``id`` (``contest/index``). Its tests are ``official_tests``, with a carriage
return before each line end removed, as open-r1's grader (the piston package
``codeforces/1.0.0/run``) prepares every test. ``time_limit`` is seconds; ``memory_limit``
megabytes (rounded up to a whole number). ``input_mode`` ``"file"`` means the program reads
``input.txt`` and writes ``output.txt`` (the problem's ``input_file``/``output_file``);
``"stdio"`` (or none) stdin and stdout. A row with a non-empty ``interaction_format`` is an
interactive problem, which we cannot grade: reading it is an :class:`InputError` (a run skips
it with ``--skip-bad-problems``).

Graded by open-r1's rule. With a ``generated_checker`` (Python source), the judge is the
checker run by its convention, ``{"type": "codeforces", "code": ...}``
(:mod:`evaluator.judges.cf_checker`). Without one, the ``yesno`` judge: tokens (empty lines and
runs of whitespace do not matter), ``yes``/``no`` in any letter case, everything else exactly,
no tolerance for real numbers, the same as piston's ``normalize_output`` and ``diff -b``.
C++ programs are built as open-r1 builds them, with ``ONLINE_JUDGE`` defined
(``metadata["cpp_flags"]``, :data:`CPP_FLAGS`; ``--cpp-flags`` replaces them).

The generated tests ship apart, one parquet file per contest, ``test_cases_0001.parquet``
(rows: ``problem_id``, ``input``, ``output``...): :func:`attach_tests` appends a problem's
rows after its official tests, as open-r1's ``cf_scoring.py`` does. A contest without a file
keeps its official tests only (open-r1 does the same), and says so with
``metadata["generated_tests"] == 0``.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...languages.cpp import ONLINE_JUDGE_FLAGS
from ...problem import Harness, Problem, TestCase
from ..errors import InputError
from ..fields import describe_type
from ..limits import megabytes, seconds
from ..record_files import parquet_batches
from ..registry import Format, take_id
from ..testlists import DecodedTests, case_list, decode_text

__all__ = ["CPP_FLAGS", "FORMAT", "TESTS_FILE", "attach_tests", "judge_of"]

TESTS_FILE = "test_cases_{contest:04d}.parquet"
"""The generated tests' file of a contest, in the directory given to :func:`attach_tests`."""

FILE_MODE = ("input.txt", "output.txt")  # piston's run: input_mode "file"
CPP_FLAGS = ONLINE_JUDGE_FLAGS
"""open-r1's C++ build (piston's ``codeforces`` ``compile``, ``c++17``): contest programs
often read ``input.txt`` unless ``ONLINE_JUDGE`` is defined. A flag set of the grader's own
(:attr:`~evaluator.languages.cpp.Cpp.known_flags`): its problems' builds share a prepared
header."""
_INPUT_MODES = ("stdio", "file")
_CACHED_CONTESTS = 2  # contests' generated tests kept in memory (problems come by contest)

_LINE_END_CR = re.compile(r"\r(?=\n|\Z)")


def _unix(text: str) -> str:
    """``text`` with a carriage return before each line end removed (piston: ``sed 's/\\r$//'``)."""
    return _LINE_END_CR.sub("", text) if "\r" in text else text


def _text_or_none(record: Mapping[str, Any], field: str) -> str | None:
    value = record.get(field)
    if value is None or isinstance(value, str):
        return value
    raise InputError(f"expected a string or null, got {describe_type(value)}", field=field)


def judge_of(checker: str | None) -> str | dict[str, Any]:
    """open-r1's rule for a problem with this ``generated_checker``."""
    if checker and checker.strip():
        return {"type": "codeforces", "code": checker}
    return "yesno"


def _official_tests(record: Mapping[str, Any]) -> list[TestCase]:
    value = decode_text(record.get("official_tests"), "official_tests")
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(
            f"expected a list of {{'input', 'output'}} objects, got {describe_type(value)}",
            field="official_tests",
        )
    return [
        TestCase(_unix(test.input), _unix(test.output))
        for test in case_list(value, "official_tests").tests
    ]


def _files(record: Mapping[str, Any]) -> tuple[str | None, str | None]:
    mode = _text_or_none(record, "input_mode")
    if mode is None or mode == "stdio":
        return None, None
    if mode == "file":
        return FILE_MODE
    raise InputError(f"expected one of {', '.join(_INPUT_MODES)}, got {mode!r}", field="input_mode")


_FACTS = {
    "title": "question_title",
    "rating": "rating",
    "tags": "tags",
    "contest_id": "contest_id",
    "contest_name": "contest_name",
    "index": "index",
    "official_tests_complete": "official_tests_complete",
}


def _metadata(record: Mapping[str, Any], official: int) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "platform": "codeforces",
        "official_tests": official,
        "cpp_flags": list(CPP_FLAGS),
    }
    for theirs, ours in _FACTS.items():
        if record.get(theirs) not in (None, "", []):
            facts[ours] = record[theirs]
    if isinstance(facts.get("rating"), int) and not isinstance(facts["rating"], bool):
        facts["difficulty"] = facts["rating"]  # Codeforces' difficulty is the rating
    return facts


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = take_id(record, ("id",), fallback_id)
    interaction = _text_or_none(record, "interaction_format")
    if interaction and interaction.strip():
        raise InputError("interactive problems are not supported", field="interaction_format")
    tests = _official_tests(record)
    input_file, output_file = _files(record)
    return DecodedTests(Harness.STDIN, tests).problem(
        problem_id,
        judge=judge_of(_text_or_none(record, "generated_checker")),
        time_limit=seconds(record.get("time_limit"), "time_limit"),
        memory_limit=megabytes(record.get("memory_limit"), "memory_limit"),
        metadata=_metadata(record, len(tests)),
        input_file=input_file,
        output_file=output_file,
    )


def _statement(record: Mapping[str, Any]) -> str:
    parts = (record.get(key) for key in ("description", "input_format", "output_format"))
    return "\n\n".join(part for part in parts if isinstance(part, str) and part.strip())


# --- the generated tests ---------------------------------------------------------------------

_cache: OrderedDict[tuple[str, int, int], dict[str, list[TestCase]]] = OrderedDict()
_cache_lock = threading.Lock()


def attach_tests(problem: Problem, directory: str) -> Problem:
    """``problem`` with its generated tests from ``directory`` appended after its official
    ones (``metadata["generated_tests"]``: how many). The contest is the id's part before the
    ``/`` (open-r1's way), else ``metadata["contest_id"]``. A contest without a file, or a file
    without rows of this problem, adds none. A problem already given its generated tests is
    returned as it is. Each contest's file is read once, in batches of rows, and the tests of
    its problems are kept for the next problems of the same contest (the last
    ``_CACHED_CONTESTS`` contests). Raises :class:`InputError` when ``directory`` is not a
    directory, or a file is not a readable parquet table of ``problem_id``, ``input`` and
    ``output`` texts."""
    if "generated_tests" in problem.metadata:
        return problem
    if not os.path.isdir(directory):
        raise InputError("the generated tests' directory does not exist", path=directory)
    contest = _contest(problem)
    found: list[TestCase] = []
    if contest is not None:
        path = os.path.join(directory, TESTS_FILE.format(contest=contest))
        found = _contest_tests(path).get(problem.id, [])
    return replace(
        problem,
        tests=[*problem.tests, *found],
        metadata={**problem.metadata, "generated_tests": len(found)},
    )


def _contest(problem: Problem) -> int | None:
    for text in (problem.id.split("/", 1)[0], problem.metadata.get("contest_id")):
        if isinstance(text, int) and not isinstance(text, bool):
            return text
        if isinstance(text, str) and text.strip().isdigit():
            return int(text)
    return None


def _contest_tests(path: str) -> dict[str, list[TestCase]]:
    """The tests of a contest's file by problem id (empty when there is no file), cached by
    the file's path, size and modification time."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    with _cache_lock:
        tests = _cache.get(key)
        if tests is None:
            tests = _read_tests_file(path)
            _cache[key] = tests
            while len(_cache) > _CACHED_CONTESTS:
                _cache.popitem(last=False)
        else:
            _cache.move_to_end(key)
        return tests


def _read_tests_file(path: str) -> dict[str, list[TestCase]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow comes with `datasets`
        raise InputError("reading generated tests needs the 'pyarrow' package", path=path)
    columns = ["problem_id", "input", "output"]
    grouped: dict[str, list[TestCase]] = {}
    row = 0
    try:
        table = pq.ParquetFile(path, pre_buffer=False)
        missing = [name for name in columns if name not in table.schema_arrow.names]
        if missing:
            raise InputError(f"no column {', '.join(map(repr, missing))}", path=path)
        for batch in parquet_batches(path, columns, table):
            ids, inputs, outputs = (batch.column(name).to_pylist() for name in columns)
            for problem_id, given, wanted in zip(ids, inputs, outputs, strict=True):
                row += 1
                for name, value in (
                    ("problem_id", problem_id),
                    ("input", given),
                    ("output", wanted),
                ):
                    if not isinstance(value, str):
                        raise InputError(
                            f"expected a string, got {describe_type(value)}",
                            path=path,
                            line=row,
                            unit="record",
                            field=name,
                        )
                grouped.setdefault(problem_id, []).append(TestCase(_unix(given), _unix(wanted)))
    except InputError:
        raise
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=path) from None
    except Exception as exc:  # noqa: BLE001 - pyarrow's ArrowInvalid and kin: a corrupt file
        raise InputError(f"cannot read parquet file: {exc}", path=path) from None
    return grouped


FORMAT = Format(
    name="codeforces",
    title="open-r1/codeforces",
    shape="'official_tests' (with 'id')",
    recognise=lambda record: "official_tests" in record,
    read=_read,
    fields=(
        "id",
        "official_tests",
        "time_limit",
        "memory_limit",
        "input_mode",
        "generated_checker",
        "interaction_format",
        *_FACTS,
    ),
    rank=35,
    id_keys=("id",),
    statement=_statement,
    aliases=("open-r1/codeforces", "open-r1-codeforces"),
    attach_tests=attach_tests,
)
