"""A test's report as bytes: what a child tells its server, and what the server tells the pool.

Both are the same record, the fields of :class:`~evaluator.sandbox.jobs.RunResult` but the
program's output: a fixed binary header, then the rare text fields as JSON (only when there
are any), and the return value of a call-based test as a frame of its own, never escaped
inside another document (it can be megabytes). A child's header starts with the run's key and
the index of the test it reports (:func:`pack_signed`), so bytes a program writes on the
channel by chance are told apart and a report is bound to its test.

The key is no secret from the program: it runs in the harness's process and can reach the
harness's sender (and read all its memory). Nothing the server decides rests on it: CPU time,
peak memory, limits and the end of a test come from the kernel and the server, a report counts
only in the number and order the harness sends them, and of a child's report the server keeps
only what the program could have made its harness say anyway (:func:`child_fields`): its return
value, an exception's name, an exit status.

Nothing here is ever unpickled or unmarshalled: a server reads what an untrusted child wrote,
so decoding is ``struct`` and JSON only, and anything malformed is "not a report".
"""

from __future__ import annotations

import json
import struct
from typing import Any

KEY_SIZE = 16
_TEST = struct.Struct("<I")  # after the key: the number of the test reported
_SIGNED = KEY_SIZE + _TEST.size
_TEXT_CAP = 2000  # characters kept of a child's exception name, refused operation...
STATUSES = (
    "ok",
    "exit",
    "exception",
    "error",
    "bad_input",
    "compile",
    "lost",
    "unsplittable",
    "program_gone",
    "worker_died",
    "not_started",  # a program file the sandbox could not execute (a noexec mount, say)
)
LIMITS = (None, "cpu", "wall", "memory", "output")
_STATUS = {name: code for code, name in enumerate(STATUSES)}
_LIMIT = {name: code for code, name in enumerate(LIMITS)}
# status, limit, flags, exit code, signal, CPU s, wall s, peak memory KB
_HEAD = struct.Struct("<BBHiiddq")
_FIXED = frozenset(
    {"status", "limit", "exit_code", "signal", "cpu_time", "wall_time", "peak_memory_kb"}
    | {"checked", "stdout_truncated", "stderr_truncated", "value"}
)
_CHECKED, _OUT_CUT, _ERR_CUT, _HAS_EXIT, _HAS_SIGNAL, _EXTRAS = 1, 2, 4, 8, 16, 32


def pack(fields: dict[str, Any]) -> tuple[bytes, bytes]:
    """``fields`` (RunResult's names; absent ones are the defaults) as its header and value
    frames. A status or limit this module does not know travels in the text fields."""
    extras = {k: v for k, v in fields.items() if k not in _FIXED and v is not None}
    status, limit = fields.get("status", "lost"), fields.get("limit")
    status_code, limit_code = _STATUS.get(status), _LIMIT.get(limit)
    if status_code is None:
        extras["status"], status_code = status, _STATUS["lost"]
    if limit_code is None:
        extras["limit"], limit_code = limit, 0
    exit_code, signal = fields.get("exit_code"), fields.get("signal")
    flags = (
        (_CHECKED if fields.get("checked") else 0)
        | (_OUT_CUT if fields.get("stdout_truncated") else 0)
        | (_ERR_CUT if fields.get("stderr_truncated") else 0)
        | (_HAS_EXIT if exit_code is not None else 0)
        | (_HAS_SIGNAL if signal is not None else 0)
        | (_EXTRAS if extras else 0)
    )
    head = _HEAD.pack(
        status_code,
        limit_code,
        flags,
        _int32(exit_code),
        _int32(signal),
        float(fields.get("cpu_time") or 0.0),
        float(fields.get("wall_time") or 0.0),
        int(fields.get("peak_memory_kb") or 0),
    )
    if extras:
        head += json.dumps(extras, allow_nan=True).encode()
    value = fields.get("value")
    return head, value.encode("utf-8", "surrogatepass") if value is not None else b""


def unpack(head: bytes, value: bytes) -> dict[str, Any] | None:
    """The fields :func:`pack` was given (defaults left out), or None for bytes that are not
    a report."""
    if len(head) < _HEAD.size:
        return None
    status, limit, flags, exit_code, signal, cpu, wall, memory = _HEAD.unpack_from(head)
    if status >= len(STATUSES) or limit >= len(LIMITS):
        return None
    fields: dict[str, Any] = {
        "status": STATUSES[status],
        "cpu_time": cpu,
        "wall_time": wall,
        "peak_memory_kb": memory,
    }
    if limit:
        fields["limit"] = LIMITS[limit]
    if flags & _HAS_EXIT:
        fields["exit_code"] = exit_code
    if flags & _HAS_SIGNAL:
        fields["signal"] = signal
    if flags & _CHECKED:
        fields["checked"] = True
    if flags & _OUT_CUT:
        fields["stdout_truncated"] = True
    if flags & _ERR_CUT:
        fields["stderr_truncated"] = True
    if flags & _EXTRAS:
        try:
            extras = json.loads(head[_HEAD.size :])
        except ValueError:
            return None
        if not isinstance(extras, dict):
            return None
        fields.update(extras)
    if value:
        fields["value"] = value.decode("utf-8", "surrogatepass")
    return fields


def pack_signed(key: bytes, test: int, fields: dict[str, Any]) -> tuple[bytes, bytes]:
    """A child's report of its test number ``test`` (counted from its first): its header
    starts with the run's key and that number."""
    head, value = pack(fields)
    return key + _TEST.pack(test) + head, value


def unpack_signed(head: bytes, value: bytes, key: bytes) -> tuple[int, dict[str, Any]] | None:
    """A child's report, as the number of the test it reports and its fields; None for a
    frame without the run's key (bytes the program wrote) or that is not a report."""
    if head[:KEY_SIZE] != key or len(key) != KEY_SIZE or len(head) < _SIGNED:
        return None
    try:
        fields = unpack(head[_SIGNED:], value)
    except (UnicodeDecodeError, struct.error):
        return None
    return None if fields is None else (_TEST.unpack_from(head, KEY_SIZE)[0], fields)


# What a program's child may report: statuses its harness gives (a program can make it give
# any of them, by returning, raising or exiting) and the fields that say which. Everything
# else (CPU time, memory, limits, signals, output) is the server's to measure.
PROGRAM_STATUSES = frozenset({"ok", "exit", "exception", "error", "bad_input"})
_TEXT_FIELDS = ("exception", "blocked", "changed")


def child_fields(fields: dict[str, Any]) -> dict[str, Any] | None:
    """The part of a program's child's report the server keeps (its status, return value,
    exception name, refused operation, exit status, ``checked``, ``changed``), or None when
    its status is not one a harness gives (``worker_died``, ``not_started``...: the
    sandbox's own, which a program could otherwise claim)."""
    status = fields.get("status")
    if status not in PROGRAM_STATUSES:
        return None
    kept: dict[str, Any] = {"status": status}
    exit_code = fields.get("exit_code")
    if type(exit_code) is int:
        kept["exit_code"] = exit_code
    for name in _TEXT_FIELDS:
        if fields.get(name) is not None:
            kept[name] = str(fields[name])[:_TEXT_CAP]
    if fields.get("checked"):
        kept["checked"] = True
    if type(fields.get("value")) is str:
        kept["value"] = fields["value"]
    return kept


def _int32(value: Any) -> int:
    if value is None:
        return 0
    return max(-(1 << 31), min((1 << 31) - 1, int(value)))
