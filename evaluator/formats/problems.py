"""Reading problem files of any known format (:mod:`evaluator.formats.registry`).

A file's format is detected from its first record (or named: ``format=``, the CLI's
``--format``) and applied to every record. Records are read one at a time
(:func:`iter_problems`), so a file of many gigabytes streams; ids must be unique over
everything read together. A record that names no id (TACO, CodeContests rows without a name,
KodCode...) gets ``<format>-<index>``, its 0-based position among the file's records (the
row number of the Hugging Face split it came from).

With ``tests_in_memory=N``, once N bytes of tests are held, every later problem's tests are
kept on disk and read back when used (:mod:`.spill`): the CLI reads files of gigabytes so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..problem import Problem
from .errors import BadProblem, InputError, keep_bad
from .fields import describe_type
from .record_files import PathLike, position_unit, read_records
from .registry import Format, detect_format, file_fallback_id, get_format
from .spill import TestSpill

__all__ = [
    "iter_problems",
    "problems_from_records",
    "read_problem_files",
    "read_problems",
    "spill_beyond",
]


def read_problems(
    path: PathLike,
    *,
    bad: list[BadProblem] | None = None,
    format: str | Format | None = None,
    tests_in_memory: int | None = None,
) -> list[Problem]:
    """All problems in ``path`` (JSONL, JSONL.gz, JSON array or parquet).

    Duplicate ids are an :class:`InputError`, as is any bad record, located by file and line;
    with a ``bad`` list, a record that is a JSON object but cannot be converted (undecodable
    tests, a pickle that is not plain data, a missing field) is appended there instead and
    the others are read. The file itself must still be readable JSON, of one known format,
    without duplicate ids. ``tests_in_memory``: see the module docstring.
    """
    return read_problem_files([path], bad=bad, format=format, tests_in_memory=tests_in_memory)


def read_problem_files(
    paths: Iterable[PathLike],
    *,
    format: str | Format | None = None,
    admit: Callable[[dict[str, Any]], bool] | None = None,
    bad: list[BadProblem] | None = None,
    tests_in_memory: int | None = None,
) -> list[Problem]:
    """The problems of several files read as one set (LiveCodeBench's release shards:
    :mod:`evaluator.lcb_releases`); see :func:`iter_problems`."""
    problems = iter_problems(paths, format=format, admit=admit, bad=bad)
    if tests_in_memory is None:
        return list(problems)
    return list(spill_beyond(problems, tests_in_memory))


def spill_beyond(problems: Iterable[Problem], budget: int) -> Iterator[Problem]:
    """``problems`` with the tests of every one read after ``budget`` bytes of tests kept on
    disk (:class:`~.spill.TestSpill`, one file for them all, deleted with the last of them)."""
    held = 0
    spill: TestSpill | None = None
    for problem in problems:
        size = sum(len(t.input) + len(t.output) for t in problem.tests)
        if held + size <= budget:
            held += size
        else:
            spill = spill or TestSpill()
            problem.tests = spill.store(problem.tests)  # type: ignore[assignment]
        yield problem


def iter_problems(
    paths: Iterable[PathLike],
    *,
    format: str | Format | None = None,
    admit: Callable[[dict[str, Any]], bool] | None = None,
    bad: list[BadProblem] | None = None,
) -> Iterator[Problem]:
    """The problems of several files, one at a time (nothing else of a file is held).

    ``format`` names the records' format (default: detected from the first record).
    ``admit`` sees each record before it is converted (its tests undecoded) and may leave it
    out by returning False; an :class:`InputError` it raises is located like any other. Ids
    are unique over all the files; ``bad`` as for :func:`read_problems`.
    """
    sources = ((path, position_unit(path), read_records(path)) for path in paths)
    return _problems_from(sources, format, admit, bad)


def problems_from_records(
    records: Iterable[dict[str, Any]],
    *,
    source: str = "request",
    bad: list[BadProblem] | None = None,
    format: str | Format | None = None,
) -> list[Problem]:
    """The problems of records already in memory (a service request's body), read exactly
    as :func:`read_problems` reads a file; errors are located as ``source`` record N."""
    return list(_problems_from([(source, "record", enumerate(records, 1))], format, None, bad))


_Source = tuple[PathLike, str, Iterable[tuple[int, dict[str, Any]]]]


def _problems_from(
    sources: Iterable[_Source],
    format: str | Format | None,
    admit: Callable[[dict[str, Any]], bool] | None,
    bad: list[BadProblem] | None,
) -> Iterator[Problem]:
    try:
        fmt = get_format(format) if isinstance(format, str) else format
    except ValueError as exc:
        raise InputError(str(exc)) from None
    first_seen: dict[str, tuple[PathLike, int]] = {}
    for path, unit, records in sources:
        for index, (position, record) in enumerate(records):
            where = {"path": path, "line": position, "unit": unit}
            if not isinstance(record, dict):
                raise InputError(f"expected a JSON object, got {describe_type(record)}", **where)
            try:
                if fmt is None:
                    fmt = detect_format(record)
                if admit is not None and not admit(record):
                    continue
            except InputError as exc:
                raise exc.located(**where) from None

            def claim(problem_id: str, where: dict[str, Any] = where) -> None:
                _check_unique(problem_id, first_seen, **where)
                first_seen[problem_id] = (where["path"], where["line"])

            try:
                fallback = file_fallback_id(fmt, index)
                problem = fmt.problem(record, fallback, **where)
            except InputError as exc:
                keep_bad(record, exc, bad, claim, fmt.id_keys)
                continue
            claim(problem.id)
            yield problem


def _check_unique(
    problem_id: str,
    first_seen: dict[str, tuple[PathLike, int]],
    path: PathLike,
    line: int,
    unit: str,
) -> None:
    if problem_id in first_seen:
        where, at = first_seen[problem_id]
        first = f"{unit} {at}" if where == path else f"{where}:{at}"
        raise InputError(
            f"duplicate problem id {problem_id!r} (first at {first})",
            path=path,
            line=line,
            unit=unit,
        )
