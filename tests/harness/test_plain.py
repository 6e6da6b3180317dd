"""The plain-data codec of split assertion tests: exact built-in types only, behaviour left
behind, nothing but plain data accepted back."""

from __future__ import annotations

import marshal

import pytest

from evaluator.sandbox.inside.harness import encode_strict
from evaluator.sandbox.inside.plain import dumps, loads, only_exact_types, to_plain


class LyingList(list):
    def __eq__(self, other):
        return True

    def __iter__(self):
        return iter([])


class LyingInt(int):
    def __eq__(self, other):
        return True


class LyingStr(str):
    def __str__(self):
        return "lie"


def test_round_trip_keeps_types():
    value = {(1, 2): {3, 4}, "a": [1.5, 2j, b"x", None, True, frozenset({5})]}
    back = loads(dumps(value))
    assert back == value
    assert type(back["a"][4]) is bool and type(next(iter(back))) is tuple


def test_subclasses_become_their_base_type_without_calling_overrides():
    plain = to_plain(LyingList([LyingInt(2), LyingStr("x")]))
    assert type(plain) is list and plain == [2, "x"]
    assert [type(item) for item in plain] == [int, str]
    assert plain != [3, "x"]


@pytest.mark.parametrize(
    "value",
    [object(), lambda: 1, iter([1]), [1, {2: object()}], type("Fake", (), {"__class__": list})()],
    ids=["object", "lambda", "iterator", "nested", "forged-class"],
)
def test_anything_else_is_refused(value):
    with pytest.raises(TypeError):
        to_plain(value)


def test_loads_refuses_code_objects():
    with pytest.raises(TypeError):
        loads(marshal.dumps(compile("1", "x", "eval")))
    with pytest.raises(TypeError):
        loads(marshal.dumps(("ok", [compile("1", "x", "eval")])))


def test_unhashable_keys_are_refused():
    class Key(tuple):
        pass

    assert to_plain({Key((1,)): 1}) == {(1,): 1}
    with pytest.raises(TypeError):
        to_plain({frozenset(): 1, 2: {3: [LyingList([1])]}} | {"k": object()})


def _nested(depth: int, bottom: object) -> list:
    value: object = bottom
    for _ in range(depth):
        value = [value]
    return value  # type: ignore[return-value]


def test_only_exact_types_is_true_only_for_exact_data_within_the_limit():
    assert only_exact_types({"a": [1, (2.5, None)], 3: {"b": "c"}})
    assert only_exact_types(_nested(5000, []), limit=5001)
    assert not only_exact_types(_nested(5000, []), limit=4999)
    for hidden in (LyingList(), LyingInt(1), {1}, object()):
        assert not only_exact_types(_nested(3000, [0, hidden]))
    assert not only_exact_types({LyingStr("k"): 1})


def test_a_value_too_deep_for_marshal_is_encoded_and_a_deep_subclass_is_still_read_as_data():
    """Past marshal's 2,000 levels the scan replaces the recursive copy; a list subclass
    deeper than marshal looked is still read through ``list``, never its ``__iter__``."""
    assert encode_strict(_nested(3000, [])) == "[" * 3001 + "]" * 3001
    assert encode_strict(_nested(3000, LyingList([LyingInt(7)]))) == "[" * 3001 + "7" + "]" * 3001
    with pytest.raises(TypeError):
        encode_strict(_nested(3000, object()))
