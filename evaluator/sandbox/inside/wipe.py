"""Wiping the harness's own copies of a test's input from the child's memory.

A batch child runs a submission's tests one after another. Freed memory keeps its bytes until
it is reused, so without this a program could scan its own address space (``/proc/self/mem``,
``ctypes``) in a later test and find an earlier test's input in what the harness decoded and
dropped. The harness overwrites what it made before dropping it: the bytes it read, the text it
decoded from them, and the strings of the arguments it decoded, unless the program still holds
them (then they are the program's own data, as on a judge that runs every test in one
process). Numbers need nothing: their objects hold binary digits, not the input's text.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

_ASCII_HEADER = sys.getsizeof("") - 1  # PyASCIIObject, then the characters and a NUL
_COMPACT_HEADER = sys.getsizeof("\u0100") - 4  # PyCompactUnicodeObject, then UCS-2 + NUL
# PyASCIIObject.state (CPython 3.11: ob_refcnt, ob_type, length, hash, then the state bits:
# interned:2, kind:3, compact:1, ascii:1): an interned string's reference count leaves out
# the interned table's own, so it is never taken for one the harness holds alone.
_STATE_OFFSET = 4 * ctypes.sizeof(ctypes.c_void_p)
_refcount = sys.getrefcount
_memset = ctypes.memset


def _state(value: str) -> int:
    return ctypes.c_uint8.from_address(id(value) + _STATE_OFFSET).value


def _layout_known() -> bool:
    """Whether this interpreter lays str objects out as above (checked on probes, so another
    version wipes no string rather than the wrong bytes)."""
    plain = "".join(["wipe", "-probe"])
    shared = sys.intern("".join(["wipe", "-interned"]))
    wide = "".join(["\u0100", "x"])
    return (
        sys.implementation.name == "cpython"
        and _state(plain) & 0b1111111 == 0b1100100  # ascii, compact, kind 1, not interned
        and _state(shared) & 0b11 != 0
        and (_state(wide) >> 2) & 0b111 == 2  # kind 2 (UCS-2), compact
        and (_state(wide) >> 5) & 1 == 1
    )


_STRINGS = _layout_known()


def buffer(data: bytearray) -> None:
    """Zero a bytearray the harness owns (its contents, not its allocation)."""
    if data:
        _memset((ctypes.c_char * len(data)).from_buffer(data), 0, len(data))


def text(value: str, holders: int = 0) -> None:
    """Overwrite the characters of ``value``, a str object the harness made, if nothing holds
    it but the caller's variable and ``holders`` more references (its container's)."""
    if not _STRINGS or type(value) is not str or len(value) < 2:
        return  # empty and one-character strings are shared singletons
    state = _state(value)
    if state & 0b11 or not state & 0b100000 or _refcount(value) > 3 + holders:
        return  # interned, not compact, or held by someone else
    if state & 0b1000000:  # ASCII
        _memset(id(value) + _ASCII_HEADER, 0, len(value))
    else:
        _memset(id(value) + _COMPACT_HEADER, 0, len(value) * ((state >> 2) & 0b111))


def objects(values: list[Any]) -> None:
    """Wipe the strings inside ``values`` (decoded arguments: lists, dicts, strings, numbers),
    at any depth, that only their containers hold; a container the program kept is left
    alone with everything in it."""
    stack: list[Any] = list(values)
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            text(value, holders=1)
        elif kind is list and _refcount(value) <= 3:
            stack.extend(value)
        elif kind is dict and _refcount(value) <= 3:
            stack.extend(value.keys())
            stack.extend(value.values())
        del value
