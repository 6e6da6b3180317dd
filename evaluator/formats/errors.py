"""The one error type every reader in :mod:`evaluator.formats` raises for bad input.

Users feed the evaluator files they wrote or downloaded; when one is wrong they need to know
*where* (file, line, field) and *what*, in one line, without a traceback. Readers therefore
raise :class:`InputError` and the command line prints ``str(error)``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

__all__ = ["BadProblem", "InputError", "json_error_detail", "position_unit", "record_id"]


def position_unit(path: str | os.PathLike[str]) -> str:
    """What a record position in ``path`` counts: ``"line"`` for line-delimited files,
    ``"record"`` for JSON arrays (``.json``) and ``.parquet`` tables (``.gz`` ignored)."""
    suffixes = [s.lower() for s in PurePath(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return "record" if suffixes and suffixes[-1] in (".json", ".parquet") else "line"


class InputError(ValueError):
    """Bad input data, located as precisely as the reader could.

    ``path`` is the file as the user named it (``None`` when the record did not come from a
    file), ``line`` the 1-based line of a JSONL file, or the 1-based record number of a JSON
    array or parquet file (then ``unit`` is ``"record"``), ``field`` the offending field
    (dotted/indexed, e.g. ``tests[3].output``). ``message`` says what is wrong.

    ``str(error)`` reads like a compiler diagnostic::

        problems.jsonl:12: field 'public_test_cases': not valid JSON (Expecting value at char 0)
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        field: str | None = None,
        unit: str = "line",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.field = field
        self.unit = unit

    def located(
        self,
        *,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        unit: str | None = None,
    ) -> InputError:
        """Return a copy with the location filled in where it is still unknown.

        Record converters know the field, the file readers know path and line; this joins the
        two without losing what the inner layer already said. ``unit`` defaults to what
        :func:`position_unit` says for ``path``.
        """
        if self.line is not None or line is None:
            new_line, new_unit = self.line, self.unit
        else:
            new_line = line
            new_unit = unit or (position_unit(path) if path is not None else "line")
        new_path = self.path if self.path is not None else path
        return InputError(
            self.message, path=new_path, line=new_line, field=self.field, unit=new_unit
        )

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
        if self.line is not None:
            if self.unit == "line":
                where = f"{where}:{self.line}" if where else f"line {self.line}"
            else:
                # JSON arrays and parquet files have records, not lines worth quoting.
                where = f"{where}: {self.unit} {self.line}" if where else f"{self.unit} {self.line}"
        parts = [where] if where else []
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        parts.append(self.message)
        return ": ".join(parts)

    def __reduce__(self):  # keep attributes across pickling (multiprocessing workers)
        return (
            _rebuild,
            (self.message, self.path, self.line, self.field, self.unit),
        )


def _rebuild(
    message: str, path: str | None, line: int | None, field: str | None, unit: str
) -> InputError:
    return InputError(message, path=path, line=line, field=field, unit=unit)


def json_error_detail(exc: ValueError) -> str:
    """Short parser message for a JSON error: ``Expecting value at char 0``.

    orjson's own ``str`` repeats line and column of the *parsed string*, which for a field or a
    JSONL line is not the file position; only the reason and character offset help.
    """
    msg = getattr(exc, "msg", None)
    pos = getattr(exc, "pos", None)
    if msg is not None and pos is not None:
        return f"{msg} at char {pos}"
    return str(exc)


@dataclass(frozen=True, slots=True)
class BadProblem:
    """A problem record that could not be converted (``--skip-bad-problems``): its id when the
    record names one (its samples are then reported as ERROR with ``error`` as the reason),
    the error, and the record's ``platform``/``difficulty`` (text only) for the summary."""

    problem_id: str | None
    error: InputError
    metadata: dict[str, Any] = field(default_factory=dict)


_ID_KEYS = ("question_id", "id", "task_id")


def record_id(record: Mapping[str, Any], keys: tuple[str, ...] = _ID_KEYS) -> str | None:
    """The id a problem record gives itself under the first of ``keys`` it has (a non-empty
    string, or an integer such as APPS's ``problem_id``); None otherwise."""
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return None


def keep_bad(
    record: dict[str, Any],
    error: InputError,
    bad: list[BadProblem] | None,
    claim: Callable[[str], None],
    id_keys: tuple[str, ...] = _ID_KEYS,
) -> None:
    """Note a problem that cannot be decoded in ``bad`` (``--skip-bad-problems``), or raise
    ``error`` when the run stops at it (``bad`` is None). ``claim`` registers its id (under
    ``id_keys``, its format's), so a later problem with the same id is still refused as a
    duplicate."""
    if bad is None:
        raise error
    skipped = bad_problem(record, error, id_keys)
    if skipped.problem_id is not None:
        claim(skipped.problem_id)
    bad.append(skipped)


def bad_problem(
    record: dict[str, Any], error: InputError, id_keys: tuple[str, ...] = _ID_KEYS
) -> BadProblem:
    """The :class:`BadProblem` of ``record``, which failed with ``error``."""
    facts = {
        key: record[key]
        for key in ("platform", "difficulty")
        if isinstance(record.get(key), str) and record[key].strip()
    }
    return BadProblem(record_id(record, id_keys or _ID_KEYS), error, facts)
