"""The plain-data codec of split assertion tests: exact built-in types only, behaviour left
behind, nothing but plain data accepted back."""

from __future__ import annotations

import marshal

import pytest

from evaluator.sandbox.inside.plain import dumps, loads, to_plain


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
