"""Call-based return values: JSON-decoded plain data, compared by stated type rules."""

import math

import pytest

from evaluator.judges import compare_values

NAN = float("nan")
INF = float("inf")


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ([[1, 1]], [[1, 1]]),  # [(1, 1)] after JSON
        ([(1, 1)], [[1, 1]]),  # a tuple, if one ever gets here undecoded
        ((1, [2, (3,)]), [1, [2, [3]]]),
        ("cba", "cba"),
        ("", ""),
        (None, None),
        (True, True),
        (False, False),
        (2.0, 2),  # int vs float by value
        (2, 2.0),
        (10**30, 10**30),  # big ints exactly
        (float(10**20), 10**20),
        (0.1 + 0.2, 0.3),
        (0.3333333, 0.333333),  # within 1e-6
        (1e9 + 1, 1e9),  # relative 1e-9
        (1, 1.0000001),  # an int for a float expected value, within tolerance
        (NAN, NAN),
        (INF, INF),
        (-INF, -INF),
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}),  # key order irrelevant
        ({}, {}),
        ([], []),
    ],
)
def test_equal(actual, expected):
    assert compare_values(actual, expected).ok


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        (True, 1),  # bool is not int, both ways
        (1, True),
        (False, 0),
        (0, False),
        (1.0, True),
        (True, 1.0),
        (True, False),
        ([True], [1]),
        (2.0000001, 2),  # an int expected value takes no tolerance
        (1000000000, 1000000007),
        (1000000000.0, 1000000007),
        (-100000, -100001),
        (0.1234, 0.1231),
        (1.0000011, 1.0),
        (NAN, 1.0),
        (1.0, NAN),
        (NAN, 1),
        (INF, 1e308),
        (-INF, INF),
        (INF, NAN),
        (10**400, 1.0),  # too large for a float
        ("1", 1),
        (1, "1"),
        ("abc", "ABC"),
        ("cba", "abc"),
        ("x", ""),  # expected empty string
        (None, ""),
        ("", None),  # expected None
        (0, None),
        ([], None),
        ([1, 1], [1]),
        ([1], [1, 2, 3]),  # a prefix
        ([2, 1], [1, 2]),
        ([[1]], [1]),
        ([1], [[1]]),
        ({"a": 1}, {"a": 1, "b": 2}),
        ({"a": 1, "b": 2}, {"a": 1}),
        ({"a": 1}, {"a": 2}),
        ([1, 2], {"0": 1, "1": 2}),
        ({1: 2}, {"1": 2}),  # non-str key in the candidate's value
        ({1, 2}, [1, 2]),  # a set is not plain data
        (object(), None),
    ],
)
def test_different(actual, expected):
    assert not compare_values(actual, expected).ok


class _AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


@pytest.mark.parametrize("expected", [1, "x", None, [1], {"a": 1}, 1.5, True])
def test_never_trusts_a_candidate_eq(expected):
    assert not compare_values(_AlwaysEqual(), expected).ok
    assert not compare_values([_AlwaysEqual()], [expected]).ok


def test_int_subclass_is_not_plain():
    class MyInt(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    assert not compare_values(MyInt(3), 4).ok


@pytest.mark.parametrize(
    ("actual", "expected", "message"),
    [
        ([1, 2, [4]], [1, 2, [3]], "at [2][0]: expected 3, got 4"),
        (4, 3, "expected 3, got 4"),
        ([[1, 2], [3, 4]], [[1, 2], [4, 4]], "at [1][0]: expected 4, got 3"),
        ({"a": [1, 1]}, {"a": [1, True]}, "at ['a'][1]: expected True (bool), got 1 (int)"),
        ([1, 2], [1, 2, 3], "expected 3 items, got 2"),
        ({"a": 1}, {"a": 1, "b": 2}, "missing key 'b'"),
        ({"a": 1, "c": 2}, {"a": 1}, "unexpected key 'c'"),
        ("x", None, "expected None (None), got 'x' (str)"),
        (None, "", "expected '' (str), got None (None)"),
        ((1, 2), "12", "expected '12' (str), got [1, 2] (list)"),
        ([0.5], [0.25], "at [0]: expected 0.25, got 0.5"),
    ],
)
def test_message(actual, expected, message):
    result = compare_values(actual, expected)
    assert not result.ok
    assert result.message == message


def test_message_is_capped_and_cheap_for_huge_values():
    big = list(range(1_000_000))
    result = compare_values([big, 1], [big, 2])
    assert result.message == "at [1]: expected 2, got 1"
    result = compare_values(big, 5)
    assert len(result.message) <= 200
    assert "…" in result.message
    huge = 10**10_000  # str() of this raises ValueError in Python 3.11
    result = compare_values(huge, huge + 1)
    assert "int of" in result.message


def test_tolerance_options():
    assert not compare_values(1.0000001, 1.0, abs_tol=1e-9, rel_tol=1e-9).ok
    assert compare_values(1.01, 1.0, abs_tol=0.02, rel_tol=0).ok
    assert compare_values(2.0, 2, abs_tol=0, rel_tol=0).ok
    with pytest.raises(ValueError):
        compare_values(1.0, 1.0, abs_tol=-1)


def test_deep_nesting_does_not_recurse():
    deep_a: list = []
    deep_e: list = []
    a, e = deep_a, deep_e
    for _ in range(5000):
        a.append([])
        e.append([])
        a, e = a[0], e[0]
    e.append(1)
    a.append(2)
    result = compare_values(deep_a, deep_e)
    assert not result.ok
    assert result.message.endswith("expected 1, got 2")
    assert len(result.message) <= 200


@pytest.mark.parametrize("expected", [{1, 2}, {1: 2}, object(), b"x"])
def test_malformed_expected_raises(expected):
    with pytest.raises(TypeError):
        compare_values(None, expected)


def test_nan_is_not_equal_via_identity_only():
    # Two distinct NaN objects still compare equal under the stated rule.
    assert compare_values(float("nan"), math.nan).ok


@pytest.mark.parametrize(
    ("actual", "expected", "ok"),
    [
        ([1, "1", None], [1, "1", None], True),
        (["1", 1], [1, "1"], False),
        ([True, False], [True, False], True),
        ([True, 1], [1, 1], False),
        ([1, 1], [True, 1], False),
        ([1.0, 2], [1, 2], True),  # mixed kinds take the item-by-item walk
        (list(range(10_000)), list(range(10_000)), True),
        (tuple(range(10_000)), list(range(10_000)), True),
    ],
)
def test_flat_sequences(actual, expected, ok):
    assert compare_values(actual, expected).ok is ok


def test_flat_sequence_difference_is_located():
    expected = list(range(10_000))
    actual = expected[:7_000] + [-1] + expected[7_001:]
    assert compare_values(actual, expected).message == "at [7000]: expected 7000, got -1"


def test_metaclass_equality_is_not_trusted():
    class Meta(type):
        def __eq__(cls, other):
            return True

        __hash__ = type.__hash__

    class Evil(metaclass=Meta):
        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    assert not compare_values(Evil(), 1).ok
    assert not compare_values([Evil(), Evil()], [1, 2]).ok
    assert not compare_values({"a": Evil()}, {"a": "x"}).ok


@pytest.mark.parametrize(
    ("actual", "expected"),
    [(0, False), (1, True), (True, 1), ([1, 0], [True, False]), ({"a": 1.0}, {"a": True})],
)
def test_bool_as_int_is_pythons_equality(actual, expected):
    """EvalPlus/MBPP grade with Python's ``==``: there ``0`` answers ``False``."""
    assert not compare_values(actual, expected).ok
    assert compare_values(actual, expected, bool_as_int=True).ok
    assert not compare_values(2, True, bool_as_int=True).ok
