"""What a reward call's columns hold: each completion's answer and code, each sample's
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
from evaluator.formats.extract import extract_program
from evaluator.formats.livecodebench import problem_from_lcb
from evaluator.formats.ours import PROBLEM_FIELDS, problem_from_ours
from evaluator.problem import Problem

# Keywords TRL passes to reward functions that are not dataset columns.
_TRL_KEYWORDS = frozenset({"trainer_state", "log_extra", "log_metric"})
# Our schema's fields as columns: every Problem field but the id (from question_id, id or
# task_id), the tests (their own column) and the prompt (TRL's "prompt" column is the chat
# prompt: the code a sample continues comes as "prompt_code").
_OURS_COLUMNS = tuple(name for name in PROBLEM_FIELDS if name not in {"id", "tests", "prompt"})
_LCB_COLUMNS = (
    "public_test_cases",
    "private_test_cases",
    "metadata",
    "judge",
    "time_limit",
    "memory_limit",
)
# Every field problem_from_columns reads: the cache key (other columns, such as the
# statement, do not change the problem and are not hashed).
_PROBLEM_FIELDS = tuple(
    dict.fromkeys(
        ("problem_json", "tests", "question_id", "id", "task_id", "prompt_code")
        + _OURS_COLUMNS
        + _LCB_COLUMNS
    )
)


class ProblemError(ValueError):
    """A sample's problem cannot be decoded (its reward is None, its verdict ERROR)."""


# --- completions --------------------------------------------------------------------------------


def completion_text(completion: Any) -> str | None:
    """The answer text of a TRL completion: a string, or chat messages (the last assistant
    message's content; content parts' ``text`` joined). None when there is none."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _content_text(completion.get("content"))
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        for message in reversed(messages):
            if message.get("role", "assistant") == "assistant":
                return _content_text(message.get("content"))
        return None
    return None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def program_of(completion: Any) -> tuple[str | None, str | None]:
    """``(code, fence tag)`` of a completion's answer (:func:`extract_program`, which strips
    ``<think>`` first); ``(None, None)`` when it holds no code."""
    text = completion_text(completion)
    return (None, None) if text is None else extract_program(text)


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


def _fingerprint(value: Any) -> Any:
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


def _sample_id(fields: Mapping[str, Any]) -> str:
    for key in ("question_id", "id", "task_id"):
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    return "sample"


def _json_if_text(value: Any, field: str) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise ProblemError(f"{field}: not valid JSON ({exc})") from None
    return value


def problem_from_columns(fields: Mapping[str, Any]) -> Problem:
    """One sample's :class:`Problem` from its dataset fields (the forms are in
    :mod:`evaluator.reward`; a ``problem_json`` field, a whole record of our schema as JSON text
    or dict, wins over both). Raises :class:`ProblemError` when it cannot be decoded."""
    try:
        if fields.get("problem_json") is not None:  # a whole record of ours (trainer_addon)
            record = _json_if_text(fields["problem_json"], "problem_json")
            if not isinstance(record, dict):
                raise ProblemError("problem_json: expected a JSON object")
            return problem_from_ours(record)
        if fields.get("tests") is not None:
            tests = _json_if_text(fields["tests"], "tests")
            record: dict[str, Any] = {"id": _sample_id(fields), "tests": tests}
            for key in _OURS_COLUMNS:
                if fields.get(key) is not None:
                    record[key] = fields[key]
            if "metadata" in record:  # JSON text in a parquet file, as LiveCodeBench's
                record["metadata"] = _json_if_text(record["metadata"], "metadata")
            if "harness" not in record:
                record["harness"] = "functional" if record.get("func_name") else "stdin"
            if isinstance(fields.get("prompt_code"), str):
                record["prompt"] = fields["prompt_code"]
            return problem_from_ours(record)
        if any(fields.get(key) is not None for key in ("public_test_cases", "private_test_cases")):
            record = {"question_id": _sample_id(fields)}
            for key in _LCB_COLUMNS:
                if fields.get(key) is not None:
                    record[key] = fields[key]
            return problem_from_lcb(record)
    except InputError as exc:
        raise ProblemError(str(exc)) from None
    raise ProblemError(
        "no tests: expected a 'tests' column or LiveCodeBench's "
        "'public_test_cases'/'private_test_cases'"
    )


# --- the problem cache --------------------------------------------------------------------------


class ProblemCache:
    """Decoded problems, the ``size`` most recently used kept (LRU); thread-safe. A problem that
    cannot be decoded is kept as its :class:`ProblemError`, so a broken row is decoded once.
    ``hits`` and ``misses`` count the look-ups."""

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
        except Exception as exc:  # noqa: BLE001 - a broken row is that row's ERROR only
            found = ProblemError(f"{type(exc).__name__}: {exc}")
        with self._lock:
            self._found[key] = found
            while len(self._found) > self.size:
                self._found.popitem(last=False)
        return found

    def for_fields(self, fields: Mapping[str, Any]) -> Problem | None:
        """One sample's problem from its fields (:func:`problem_from_columns`), decoded once per
        distinct problem; None when it cannot be decoded."""
        found = self.get(
            (
                "columns",
                tuple(
                    (key, _fingerprint(fields.get(key)))
                    for key in _PROBLEM_FIELDS
                    if fields.get(key) is not None
                ),
            ),
            lambda: problem_from_columns(fields),
        )
        return found if isinstance(found, Problem) else None

    def for_columns(self, count: int, columns: Mapping[str, Any]) -> list[Problem | None]:
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
        problems: list[Problem | None] = []
        memo: dict[tuple[int, ...], Problem | None] = {}
        relevant = [name for name in aligned if name in _PROBLEM_FIELDS]
        for index in range(count):
            fields = {
                name: (values[index] if values is not None else columns[name])
                for name, values in aligned.items()
            }
            # The G completions of a group often share the very same objects: skip hashing.
            identity = tuple(id(fields[name]) for name in relevant)
            if identity in memo:
                with self._lock:
                    self.hits += 1
                problems.append(memo[identity])
                continue
            problem = self.for_fields(fields)
            memo[identity] = problem
            problems.append(problem)
        return problems
