"""What a reward call's columns hold: each completion's stated language, each sample's
:class:`~evaluator.problem.Problem` (the forms are in :mod:`evaluator.reward`), and the cache
of decoded problems a reward keeps between calls."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from evaluator.formats.errors import InputError
from evaluator.formats.registry import Format, detect_format
from evaluator.problem import Harness, Problem

# Keywords TRL passes to reward functions that are not dataset columns.
__all__ = [
    "ON_BAD_PROBLEM_ENV",
    "ROW_ID",
    "ProblemCache",
    "ProblemError",
    "fingerprint",
    "json_if_text",
    "languages_column",
    "problem_from_columns",
    "problem_of_record",
    "row_format",
    "row_record",
]

_TRL_KEYWORDS = frozenset({"trainer_state", "log_extra", "log_metric"})
# The id of a row that names none (a reward needs none: rows are told apart by position).
ROW_ID = "sample"


class ProblemError(ValueError):
    """A sample's problem cannot be decoded (its reward is None, its verdict ERROR)."""


ON_BAD_PROBLEM_ENV = "MICROCODER_ON_BAD_PROBLEM"
"""Environment variable: what the module-level adapters (verl's functions, the frameworks'
labels) do with a problem that cannot be read, ``raise`` (default) or ``skip`` (score 0.0, one
warning per problem, counted); a call's ``on_bad_problem`` keyword (verl's ``reward_kwargs``)
wins."""


# --- completions --------------------------------------------------------------------------------


def languages_column(count: int, columns: Mapping[str, Any]) -> list[str | None]:
    """The ``language`` column of ``count`` completions (one value per completion, or one for
    all; None where it is absent or empty)."""
    value = columns.get("language")
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != count:
            raise ValueError(f"column 'language' has {len(value)} values for {count} completions")
        return [v if isinstance(v, str) and v.strip() else None for v in value]
    return [value if isinstance(value, str) and value.strip() else None] * count


# --- problems from dataset columns --------------------------------------------------------------


def fingerprint(value: Any) -> Any:
    """A cheap, hashable stand-in for a column value (long texts and containers hashed)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        if len(value) <= 256:
            return value
        data = value.encode("utf-8", "surrogatepass")
    else:
        try:
            data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
        except TypeError:
            data = repr(value).encode("utf-8", "surrogatepass")
    return (len(data), hashlib.blake2b(data, digest_size=16).digest())


def json_if_text(value: Any, field: str) -> Any:
    """``value`` decoded when it is JSON text (a dataset column of text), as it is otherwise;
    :class:`ProblemError` naming ``field`` for text that is not JSON."""
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise ProblemError(f"{field}: not valid JSON ({exc})") from None
    return value


def row_record(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset row's problem record: its columns without TRL's own keywords and without
    null values (a parquet file's missing fields), ``prompt_code`` as the record's
    ``prompt`` (TRL's ``prompt`` column is the chat prompt, never passed to a reward: the
    code a HumanEval-style sample continues comes as ``prompt_code``); a ``problem_json``
    column (a whole record of any format, as JSON text or an object) stands for the row."""
    if fields.get("problem_json") is not None:
        record = json_if_text(fields["problem_json"], "problem_json")
        if not isinstance(record, dict):
            raise ProblemError("problem_json: expected a JSON object")
        return record
    record = {
        key: value
        for key, value in fields.items()
        if value is not None and key not in _TRL_KEYWORDS
    }
    if "prompt_code" in record:
        record["prompt"] = record.pop("prompt_code")
    return record


def row_format(record: Mapping[str, Any]) -> Format:
    """The format of a row's record (:func:`~evaluator.formats.registry.detect_format`);
    :class:`ProblemError` naming the columns when no format reads it."""
    try:
        return detect_format(record)
    except InputError as exc:
        raise ProblemError(str(exc)) from None


def problem_of_record(record: Mapping[str, Any], fmt: Format | None = None) -> Problem:
    """The problem of one row's record, read by its format exactly as a file's record of that
    format is read (the id, when the row names none, is :data:`ROW_ID`). Raises
    :class:`ProblemError` when it cannot be read, or when it has nothing to grade (no
    tests): a dataset's defect, never a program's."""
    fmt = fmt or row_format(record)
    # Only the fields the format reads: a dataset's other columns (its statement, solutions,
    # anything) are not fields of the problem, which a strict format would refuse. The
    # statement is read apart: what it says the judge accepts.
    fields = {key: record[key] for key in fmt.fields if key in record}
    try:
        problem = fmt.judged(fmt.read(fields, ROW_ID), record)
    except InputError as exc:
        raise ProblemError(f"{fmt.title} record: {exc}") from None
    if not problem.tests or (problem.harness is Harness.ASSERTION and not problem.test_code):
        raise ProblemError(f"{fmt.title} record {problem.id!r}: no tests")
    return problem


def problem_from_columns(fields: Mapping[str, Any]) -> Problem:
    """One sample's :class:`Problem` from its dataset fields: the row's record
    (:func:`row_record`) read by the format its columns are (the forms are in
    :mod:`evaluator.reward`). Raises :class:`ProblemError` when it cannot be read."""
    return problem_of_record(row_record(fields))


# --- the problem cache --------------------------------------------------------------------------


class ProblemCache:
    """Decoded problems, the ``size`` most recently used kept (LRU); thread-safe. A problem that
    cannot be decoded is kept as its :class:`ProblemError`, so a broken row is decoded once.
    ``hits`` and ``misses`` count the look-ups. Keys are fingerprints of the fields the
    row's format reads and of its statement (what it says the judge accepts); its solutions
    are never hashed."""

    def __init__(self, size: int = 4096) -> None:
        self.size = max(1, size)
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._found: OrderedDict[Any, Problem | ProblemError] = OrderedDict()

    def get(self, key: Any, decode: Callable[[], Problem]) -> Problem | ProblemError:
        """The problem kept under ``key``, else what ``decode()`` returns or raises (kept)."""
        with self._lock:
            found = self._found.get(key)
            if found is not None:
                self._found.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        try:
            found = decode()
        except ProblemError as exc:
            found = exc
        except Exception as exc:  # noqa: BLE001 - a broken row is that row's error only
            found = ProblemError(f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._found[key] = found
            while len(self._found) > self.size:
                self._found.popitem(last=False)
        return found

    def for_record(self, record: Mapping[str, Any]) -> Problem | ProblemError:
        """The problem of a row's record (:func:`problem_of_record`), decoded once per
        distinct problem; its :class:`ProblemError` when it cannot be read."""
        try:
            fmt = row_format(record)
        except ProblemError as exc:
            return exc
        key = (
            fmt.name,
            tuple((k, fingerprint(record[k])) for k in fmt.fields if record.get(k) is not None),
            fingerprint(fmt.statement(record)),  # what it says the judge accepts
            record.get("needs_checker") is True,
        )
        return self.get(key, lambda: problem_of_record(record, fmt))

    def for_fields(self, fields: Mapping[str, Any]) -> Problem | ProblemError:
        """One sample's problem from its dataset fields (:func:`problem_from_columns`)."""
        try:
            record = row_record(fields)
        except ProblemError as exc:
            return exc
        return self.for_record(record)

    def for_columns(self, count: int, columns: Mapping[str, Any]) -> list[Problem | ProblemError]:
        """The problem of each of ``count`` samples from TRL's keyword columns (one list per
        field, or a scalar for every sample; TRL's own keywords skipped)."""
        aligned: dict[str, Sequence[Any] | None] = {}
        for name, value in columns.items():
            if name in _TRL_KEYWORDS:
                continue
            is_list = isinstance(value, Sequence) and not isinstance(value, str | bytes)
            if is_list and len(value) != count and name in ("tests", "public_test_cases"):
                raise ValueError(f"column {name!r} has {len(value)} values for {count} completions")
            aligned[name] = value if is_list and len(value) == count else None
        problems: list[Problem | ProblemError] = []
        memo: dict[tuple[int, ...], Problem | ProblemError] = {}
        for index in range(count):
            fields = {
                name: (values[index] if values is not None else columns[name])
                for name, values in aligned.items()
            }
            # The G completions of a group often share the very same objects: skip hashing.
            identity = tuple(id(value) for value in fields.values())
            if identity in memo:
                with self._lock:
                    self.hits += 1
                problems.append(memo[identity])
                continue
            problem = self.for_fields(fields)
            memo[identity] = problem
            problems.append(problem)
        return problems
