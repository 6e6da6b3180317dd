"""Reading a record's fields: the checks every format's reader shares.

Each raises :class:`~evaluator.formats.errors.InputError` naming the field; the file readers
(:mod:`.record_files`, :mod:`.problems`) add the file and the line. Besides the type checks
(``require_field``, ``expect_str``...), the optional fields our schema shares with other
sources (``judge``, ``time_limit``, ``memory_limit``), LeetCode's in-place argument, a chat
prompt's user text, a solutions field's programs, and JSON-ish type names for messages.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from ..default_limits import memory_limit_fault, time_limit_fault
from .errors import InputError
from .record_files import loads_json

__all__ = [
    "argument_position",
    "checked_memory_limit",
    "checked_time_limit",
    "describe_type",
    "expect_dict",
    "expect_list",
    "expect_str",
    "leetcode_output_arg",
    "optional_judge",
    "optional_memory_limit",
    "optional_time_limit",
    "python_source",
    "require_field",
    "solutions_of",
    "user_text",
]


_MISSING = object()


def require_field(record: Mapping[str, Any], name: str) -> Any:
    """``record[name]``, or an InputError naming the missing field and the fields present."""
    value = record.get(name, _MISSING)
    if value is _MISSING or value is None:
        present = ", ".join(sorted(record)) or "none"
        raise InputError(f"missing required field (fields present: {present})", field=name)
    return value


def expect_str(value: Any, field: str, *, non_empty: bool = False) -> str:
    """``value`` if it is a string (non-empty when asked), else an InputError."""
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {describe_type(value)}", field=field)
    if non_empty and not value.strip():
        raise InputError("must not be empty", field=field)
    return value


def expect_list(value: Any, field: str) -> list[Any]:
    """``value`` if it is a list, else an InputError."""
    if not isinstance(value, list):
        raise InputError(f"expected a list, got {describe_type(value)}", field=field)
    return value


def expect_dict(value: Any, field: str) -> dict[str, Any]:
    """``value`` if it is an object, else an InputError."""
    if not isinstance(value, dict):
        raise InputError(f"expected an object, got {describe_type(value)}", field=field)
    return value


def optional_judge(record: Mapping[str, Any]) -> str | dict[str, Any] | None:
    """The optional ``judge`` field: a judge name or a special-judge spec object."""
    judge = record.get("judge")
    if judge is None or isinstance(judge, dict):
        return judge
    if isinstance(judge, str) and judge.strip():
        return judge
    raise InputError(
        f"expected a judge name or an object, got {describe_type(judge)}", field="judge"
    )


def optional_time_limit(record: Mapping[str, Any]) -> float | None:
    """The optional ``time_limit`` field: CPU seconds per test, a positive number no larger
    than :data:`~evaluator.default_limits.MAX_TIME_LIMIT`."""
    value = record.get("time_limit")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            f"expected a positive number of seconds, got {describe_type(value)}",
            field="time_limit",
        )
    return checked_time_limit(value, "time_limit")


def optional_memory_limit(record: Mapping[str, Any]) -> int | None:
    """The optional ``memory_limit`` field: megabytes, a positive integer no larger than
    :data:`~evaluator.default_limits.MAX_MEMORY_LIMIT`."""
    value = record.get("memory_limit")
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 256.0 from a spreadsheet or a JSON writer is still 256 MB
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(
            f"expected a positive whole number of megabytes, got {value!r}", field="memory_limit"
        )
    return checked_memory_limit(value, "memory_limit")


def checked_time_limit(seconds: float, field: str) -> float:
    """``seconds`` as a test's CPU time limit (a float), or an InputError naming ``field``
    (not positive, ``Infinity``, past the ceiling:
    :func:`~evaluator.default_limits.time_limit_fault`)."""
    fault = time_limit_fault(seconds)
    if fault is not None:
        raise InputError(fault, field=field)
    return float(seconds)


def checked_memory_limit(megabytes: int, field: str) -> int:
    """``megabytes`` as a program's memory limit, or an InputError naming ``field``."""
    fault = memory_limit_fault(megabytes)
    if fault is not None:
        raise InputError(fault, field=field)
    return megabytes


def argument_position(value: Any, field: str) -> int | None:
    """An optional argument's position (``output_arg``): None, or a whole number >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"expected an argument's position (0 or more), got {value!r}", field=field)
    return value


def leetcode_output_arg(meta: Mapping[str, Any], field: str = "metadata") -> int | None:
    """The argument an in-place LeetCode problem is judged by, from the question's metadata as
    LeetCode gives it (``metaData``: ``"return": {"type": "void"}, "output": {"paramindex":
    0}``), or an ``output_arg`` beside ``func_name``; None when the return value is judged.
    An ``output`` with a ``size`` (``removeElement``: the first ``ret`` items of ``nums``
    and the count returned) is a judge of its own, not read here."""
    if meta.get("output_arg") is not None:
        return argument_position(meta["output_arg"], f"{field}.output_arg")
    output = meta.get("output")
    if not isinstance(output, dict) or "size" in output:
        return None
    return argument_position(output.get("paramindex"), f"{field}.output.paramindex")


def user_text(messages: Any) -> str:
    """The text of a chat prompt's user messages (a string is its own text): the statement of
    a row that carries its problem as a prompt (verl rows, NeMo-Gym)."""
    if isinstance(messages, str):
        return messages
    if isinstance(messages, list):
        return "\n\n".join(
            str(message.get("content") or "")
            for message in messages
            if isinstance(message, Mapping) and message.get("role") == "user"
        )
    return ""


def solutions_of(value: Any) -> list[str]:
    """The programs in a record's solutions field: a string, or a list of strings (a JSON
    text of one, as TACO and APPS ship them); empty ones and other values left out."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = loads_json(value)
        except ValueError:
            pass
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list | tuple):
        return [item for item in value if isinstance(item, str) and item.strip()]
    return []


def describe_type(value: Any) -> str:
    """JSON-ish type names for messages: users wrote JSON, not Python."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def python_source(text: str, field: str) -> ast.Module:
    """``text`` (a row's Python: its tests, its prompt) parsed; :class:`InputError` naming
    ``field`` when it is not Python the parser takes, nesting too deep for it included."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        reason = getattr(exc, "msg", None) or str(exc)
        raise InputError(f"not valid Python: {reason}{where}", field=field) from None
    except (RecursionError, MemoryError):  # CPython's parser past its own depth
        raise InputError("not valid Python: nested too deeply to parse", field=field) from None
