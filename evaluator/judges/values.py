"""Comparison of return values for call-based (function-call) problems.

The candidate's return value is serialised to JSON inside the sandbox by a strict encoder and
decoded here, so both sides hold only plain data: ``None``, ``bool``, ``int``, ``float``,
``str``, ``list`` (``tuple`` accepted as a list) and ``dict`` with ``str`` keys. Nothing of the
candidate's ever gets ``==`` called on it: types are checked with ``type(x) is ...`` first, and
``==`` is only used between two values of these exact built-in types.

Rules (``expected`` decides; the first difference in depth-first order is reported):

* list vs tuple are the same, recursively (JSON erased the difference anyway): ``[(1, 1)]``
  equals ``[[1, 1]]``. Lengths must be equal, items compare pairwise.
* dict: the same set of keys, values compared recursively; key order is irrelevant.
* bool is NOT a number: ``True`` never equals ``1`` nor ``1.0``, ``False`` never ``0``, in
  either direction (LeetCode distinguishes ``true`` from ``1``). With ``bool_as_int=True``
  (a problem's ``judge: {"bool_as_int": true}``, for benchmarks graded by Python's ``==`` such
  as EvalPlus and MBPP) a bool is the int it stands for.
* expected int: the actual value must be an int or a float *exactly* equal to it (``2.0``
  equals ``2``; ``2.0000001`` and ``1000000000`` do not equal ``1000000007``). No tolerance:
  an integer answer is a count or an index.
* expected float: the actual int or float ``a`` matches ``e`` when ``|a - e| <= abs_tol`` or
  ``|a - e| <= rel_tol * |e|`` (1e-6 each by default). NaN equals NaN (and nothing else);
  an infinity equals only the same infinity.
* str: exactly equal. ``None``: only ``None``.
* With ``any_order=True`` (a problem's ``judge: {"any_order": true}``: its statement says "return
  the answer in any order") a returned top-level list matches in any order of its items.
* Any depth: the walk keeps its own stack, and the decoder (:mod:`.jsonvalue`) parses texts
  nested deeper than Python's recursion limit iteratively, so a list nested 300,000 levels
  deep that equals the expected one is accepted here (the sandbox's encoder has a depth limit
  of its own: a value it refuses is a wrong answer). Integers longer than 4,000 digits decode to
  :class:`~.jsonvalue.LongInt` (their decimal text) and compare exactly, in linear time.

Malformed *expected* data (a type outside the list above, a non-``str`` dict key) is the
problem's fault, not the candidate's: it raises ``TypeError`` when the comparison reaches it,
so that the grader reports ERROR (loaders should validate expected values up front).
The same in the *actual* value is a wrong answer.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .base import ACCEPTED, ELLIPSIS, MAX_SHOWN, Comparison, shorten, wrong
from .floats import DEFAULT_ABS_TOL, DEFAULT_REL_TOL, validate_tolerances
from .jsonvalue import LongInt

_SEQUENCES = (list, tuple)
_NUMBERS = (int, float)
_KINDS_OF_NUMBER = (int, float, LongInt)
_PLAIN = (type(None), bool, int, float, str, list, tuple, dict, LongInt)
_LOG10_2 = 0.30102999566398120
_BIG_INT_BITS = 1000  # larger ints are shown by size: str() is slow and capped at 4300 digits
# Types are matched by identity (their ids), never with ==: a metaclass could override that.
_PLAIN_IDS = frozenset(map(id, _PLAIN))
_FLAT_IDS = frozenset(map(id, (int, str, type(None))))  # no cross-type equality among them
_BOOL_IDS = frozenset({id(bool)})
_MAX_PATH = 80  # characters of a path in a message

# Where a value sits: (parent, index or key), None at the top. Linked, so that descending costs
# O(1) and the text is built only for the one difference reported.
_Path = tuple["_Path", int | str] | None


def _order_key(item: Any) -> str:
    """An item's place in a list compared in any order: its JSON text (keys sorted)."""
    return json.dumps(item, sort_keys=True, default=str)


def compare_values(
    actual: Any,
    expected: Any,
    *,
    abs_tol: float = DEFAULT_ABS_TOL,
    rel_tol: float = DEFAULT_REL_TOL,
    bool_as_int: bool = False,
    any_order: bool = False,
) -> Comparison:
    """Compare a decoded return value with the decoded expected value (rules in the module).
    ``any_order``: a returned list is right in any order of its items (a statement's "return
    the answer in any order"): both lists are sorted by their items' JSON text first.

    Messages name the path of the first difference: ``at [2][0]: expected 3, got 4``,
    ``at ['a']: expected True (bool), got 1 (int)``, ``at [1]: expected 3 items, got 2``,
    ``missing key 'b'``; at the top level there is no ``at`` part.
    """
    validate_tolerances(abs_tol, rel_tol)
    if any_order and type(expected) is list and type(actual) in _SEQUENCES:
        actual, expected = sorted(actual, key=_order_key), sorted(expected, key=_order_key)
    # An explicit stack rather than recursion: decoders accept nesting deeper than Python's
    # recursion limit.
    stack: list[tuple[Any, Any, _Path]] = [(actual, expected, None)]
    while stack:
        a, e, path = stack.pop()
        ta, te = type(a), type(e)
        if id(te) not in _PLAIN_IDS:
            raise TypeError(f"expected value{_where(path)} has unsupported type {te.__name__}")
        if id(ta) not in _PLAIN_IDS:
            return _fail(path, f"got a value of unsupported type {ta.__name__}")
        # From here on both types are built-ins, whose == on type objects is identity.

        if te in _SEQUENCES:
            if ta not in _SEQUENCES:
                return _mismatch(path, a, e)
            if len(a) != len(e):
                return _fail(path, f"expected {_items(len(e))}, got {len(a)}")
            if _equal_flat(a, e):
                continue
            stack.extend((a[i], e[i], (path, i)) for i in reversed(range(len(e))))
        elif te is dict:
            for key in e:
                if type(key) is not str:
                    raise TypeError(f"expected dict{_where(path)} has a non-str key")
            if ta is not dict:
                return _mismatch(path, a, e)
            for key in a:
                if type(key) is not str:
                    return _fail(path, f"got a dict key of type {type(key).__name__}")
            for key in e:
                if key not in a:
                    return _fail(path, f"missing key {shorten(repr(key))}")
            for key in a:
                if key not in e:
                    return _fail(path, f"unexpected key {shorten(repr(key))}")
            stack.extend((a[k], e[k], (path, k)) for k in reversed(e))
        elif not _scalar_equal(a, e, ta, te, abs_tol, rel_tol, bool_as_int):
            return _mismatch(path, a, e)
    return ACCEPTED


def _equal_flat(a: list | tuple, e: list | tuple) -> bool:
    """Fast path for long flat sequences: ``True`` if they are equal by the rules.

    Only when both hold the same element types from ``int``, ``str`` and ``None`` (or only
    ``bool``): then the built-in sequence ``==`` is exactly the rule (no cross-type equality,
    no tolerance), and runs in C. ``False`` means "walk item by item", not "different".
    """
    kinds = {id(type(item)) for item in e}
    if not (kinds <= _FLAT_IDS or kinds == _BOOL_IDS):
        return False
    if {id(type(item)) for item in a} != kinds:
        return False
    return list(a) == list(e)


def _scalar_equal(
    a: Any, e: Any, ta: type, te: type, abs_tol: float, rel_tol: float, bool_as_int: bool
) -> bool:
    if bool_as_int:  # Python's == (EvalPlus, MBPP): True is 1, False is 0
        if ta is bool:
            a, ta = int(a), int
        if te is bool:
            e, te = int(e), int
    if te is bool or ta is bool:
        return ta is te and a is e  # True/False are singletons; never compared to numbers
    if te is LongInt or ta is LongInt:
        return _long_equal(a, e, ta, te)
    if te is int:
        return ta in _NUMBERS and a == e  # int == int or exact int == float, both built-ins
    if te is float:
        return ta in _NUMBERS and _close(a, e, abs_tol, rel_tol)
    if te is str:
        return ta is str and a == e
    return a is None  # te is NoneType


def _long_equal(a: Any, e: Any, ta: type, te: type) -> bool:
    """Equality when a side is a :class:`LongInt`: its text against another's, or against an
    ``int`` of about as many digits (converted only then); never a float, as no finite float
    has hundreds of digits."""
    if ta is te:
        return a.text == e.text
    long, other = (a, e) if ta is LongInt else (e, a)
    if type(other) is not int:
        return False
    if abs(other.bit_length() * _LOG10_2 - long.digits) > 2:
        return False
    return long.to_int() == other


def _close(a: int | float, e: float, abs_tol: float, rel_tol: float) -> bool:
    a_nan = type(a) is float and math.isnan(a)
    if math.isnan(e) or a_nan:
        return math.isnan(e) and a_nan
    if math.isinf(e) or (type(a) is float and math.isinf(a)):
        return a == e
    try:
        diff = abs(a - e)
    except OverflowError:  # an int too large for a float is far from any finite float
        return False
    return diff <= abs_tol or diff <= rel_tol * abs(e)


def _show_path(path: _Path) -> str:
    """``[2]['a'][0]``; the middle of a very deep path is elided to keep the message useful."""
    steps: list[str] = []
    while path is not None:
        path, step = path
        steps.append(f"[{step}]" if type(step) is int else f"[{shorten(repr(step), 20)}]")
    steps.reverse()
    text = "".join(steps)
    if len(text) <= _MAX_PATH:
        return text
    head = "".join(steps[:3])
    tail: list[str] = []
    for step in reversed(steps[3:]):
        if len(head) + sum(map(len, tail)) + len(step) > _MAX_PATH - 1:
            break
        tail.append(step)
    return head + ELLIPSIS + "".join(reversed(tail))


def _where(path: _Path) -> str:
    return f" at {_show_path(path)}" if path is not None else ""


def _fail(path: _Path, what: str) -> Comparison:
    return wrong(f"at {_show_path(path)}: {what}" if path is not None else what)


def _items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def _mismatch(path: _Path, a: Any, e: Any) -> Comparison:
    ta, te = type(a), type(e)
    same_kind = (
        ta is te
        or (ta in _KINDS_OF_NUMBER and te in _KINDS_OF_NUMBER)
        or (ta in _SEQUENCES and te in _SEQUENCES)
    )
    if same_kind:
        return _fail(path, f"expected {render(e)}, got {render(a)}")
    return _fail(path, f"expected {render(e)} ({_kind(te)}), got {render(a)} ({_kind(ta)})")


def _kind(t: type) -> str:
    if t is type(None):
        return "None"
    if t is LongInt:
        return "int"
    return "list" if t is tuple else t.__name__


def render(value: Any, limit: int = MAX_SHOWN) -> str:
    """A Python-literal view of plain data, at most ``limit`` characters.

    Stops walking once ``limit`` is exceeded, so showing a huge list costs little; never calls
    ``repr`` on anything but plain scalars.
    """
    out: list[str] = []
    size = 0

    def emit(text: str) -> bool:
        nonlocal size
        out.append(text)
        size += len(text)
        return size <= limit

    def walk(v: Any) -> bool:  # False once the budget is spent
        t = type(v)
        if t in _SEQUENCES or t is dict:
            opening, closing = ("{", "}") if t is dict else ("[", "]")
            if not emit(opening):
                return False
            for i, item in enumerate(v.items() if t is dict else v):
                if i and not emit(", "):
                    return False
                if t is dict:
                    key, item = item
                    text = repr(key) if type(key) is str else f"<{type(key).__name__}>"
                    if not emit(shorten(text, limit + 1) + ": "):
                        return False
                if not walk(item):
                    return False
            return emit(closing)
        if t is int and v.bit_length() > _BIG_INT_BITS:
            return emit(f"<int of {v.bit_length()} bits>")
        if t is str:
            return emit(repr(v[: limit + 1]))
        if t in _PLAIN:
            return emit(repr(v))
        return emit(f"<{t.__name__}>")

    walk(value)
    return shorten("".join(out), limit)
