"""Call-based values are decoded and compared totally: any text the child or a problem file
holds decodes to plain data or fails with ValueError, with the meaning ``json.loads`` gives
it; nesting of any depth, integers of millions of digits, NaN/inf and huge dicts give a
verdict, never an exception."""

from __future__ import annotations

import json
import time

import pytest
from fuzz_inputs import (
    ANY_TEXT,
    JSON_VALUES,
    MUTATED_JSON,
    assert_outcome,
    json_text,
    same_json,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.judges import compare_values
from evaluator.judges.jsonvalue import LongInt, _decode_iteratively, decode
from evaluator.judges.returned import judge_return
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import RunResult


def _stdlib(text: str):
    """``json.loads``'s answer, or the exception class it raises."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        return type(exc)


@settings(max_examples=300, deadline=None)
@given(value=JSON_VALUES)
def test_decode_reads_what_the_encoder_writes(value):
    text = json_text(value)
    assert same_json(decode(text), json.loads(text))
    assert same_json(_decode_iteratively(text), json.loads(text))
    assert compare_values(decode(text), decode(text)).ok  # NaN equals NaN by the rules


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(MUTATED_JSON, ANY_TEXT))
def test_iterative_decoder_agrees_with_json_loads(text):
    """The hand-written parser accepts exactly what ``json.loads`` accepts, with its values."""
    expected = _stdlib(text)
    try:
        got = _decode_iteratively(text)
    except json.JSONDecodeError:
        assert expected is json.JSONDecodeError or expected is ValueError
    else:
        assert not isinstance(expected, type), (text, got)
        assert same_json(got, expected)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(MUTATED_JSON, ANY_TEXT))
def test_decode_returns_or_raises_value_error_only(text):
    try:
        decode(text)
    except ValueError as exc:
        assert len(str(exc)) <= 200


@settings(max_examples=200, deadline=None)
@given(returned=st.one_of(MUTATED_JSON, ANY_TEXT), expected=st.one_of(MUTATED_JSON, ANY_TEXT))
def test_call_judge_gives_a_verdict_for_any_value_text(returned, expected):
    outcome = judge_return(TestCase("", expected), RunResult(status="ok", value=returned), {})
    assert_outcome(outcome)
    assert outcome[0] in (Verdict.AC, Verdict.WA, Verdict.ERROR)


@settings(max_examples=100, deadline=None)
@given(depth=st.integers(min_value=1, max_value=3000), leaf=st.sampled_from(["1", "[]", "{}"]))
def test_depth_around_the_parser_thresholds(depth, leaf):
    """Both sides of orjson's 1024 and the stdlib cut-over (400) decode to the same value."""
    text = "[" * depth + leaf + "]" * depth
    assert compare_values(decode(text), decode(text)).ok
    wrong = "[" * depth + "2" + "]" * depth
    result = compare_values(decode(wrong), decode(text))
    assert not result.ok and len(result.message) <= 200


DEEP = 300_000


def _deep(leaf: str) -> str:
    return "[" * DEEP + leaf + "]" * DEEP


def test_a_list_nested_300000_deep_decodes_and_compares():
    test = TestCase("", _deep("[]"))
    same = judge_return(test, RunResult(status="ok", value=_deep("[]")), {})
    assert same == (Verdict.AC, "")
    verdict, message = judge_return(test, RunResult(status="ok", value=_deep("1")), {})
    assert verdict is Verdict.WA and len(message) <= 200
    assert message.endswith("expected [] (list), got 1 (int)")
    assert "…" in message  # the 300,000-step path is elided
    shallower = judge_return(test, RunResult(status="ok", value=_deep("")), {})
    assert shallower[0] is Verdict.WA


def test_deep_objects_and_unbalanced_deep_text():
    deep_object = '{"a":' * DEEP + "1" + "}" * DEEP
    assert compare_values(decode(deep_object), decode(deep_object)).ok
    with pytest.raises(ValueError, match="Expecting"):
        decode("[" * DEEP)
    outcome = judge_return(TestCase("", "1"), RunResult(status="ok", value="[" * DEEP), {})
    assert outcome[0] is Verdict.ERROR and len(outcome[1]) <= 200


@pytest.mark.parametrize("digits", [5_000, 1_000_000, 3_000_000])
def test_integers_of_millions_of_digits_compare_in_linear_time(digits):
    text = "7" * digits
    started = time.perf_counter()
    assert isinstance(decode(text), LongInt)
    same = judge_return(TestCase("", text), RunResult(status="ok", value=text), {})
    other = judge_return(TestCase("", text), RunResult(status="ok", value=text[:-1] + "8"), {})
    negative = judge_return(TestCase("", text), RunResult(status="ok", value="-" + text), {})
    as_float = judge_return(TestCase("", text), RunResult(status="ok", value="1e308"), {})
    assert time.perf_counter() - started < 5  # int(str) of 3M digits alone takes a minute
    assert same == (Verdict.AC, "")
    assert other == (Verdict.WA, f"expected <int of {digits} digits>, got <int of {digits} digits>")
    assert negative[0] is Verdict.WA and as_float[0] is Verdict.WA


def test_long_integers_meet_python_ints_exactly():
    big = 10**5000 + 7
    text = "1" + "0" * 4996 + "0007"
    assert compare_values(decode(text), big).ok
    assert compare_values(big, decode(text)).ok
    assert not compare_values(decode(text), big + 1).ok
    assert not compare_values(decode(text), 5).ok
    assert not compare_values(decode(text), 1e300).ok
    assert not compare_values(decode(text), True, bool_as_int=True).ok


@pytest.mark.parametrize(
    ("returned", "expected", "verdict"),
    [
        ("NaN", "NaN", Verdict.AC),
        ("Infinity", "Infinity", Verdict.AC),
        ("-Infinity", "Infinity", Verdict.WA),
        ("1e999", "Infinity", Verdict.AC),
        ("[NaN,1]", "[NaN,1.0]", Verdict.AC),
        ('"\\ud800"', '"\\ud800"', Verdict.AC),
        ('"\\u0000"', '"\\u0000"', Verdict.AC),
        ('"\\ud800"', '"\\udcff"', Verdict.WA),
        ("[1,2", "[1,2]", Verdict.ERROR),
        ("[1,2]", "not json", Verdict.ERROR),
    ],
)
def test_named_values(returned, expected, verdict):
    outcome = judge_return(TestCase("", expected), RunResult(status="ok", value=returned), {})
    assert_outcome(outcome)
    assert outcome[0] is verdict, outcome


def test_huge_dicts_compare():
    expected = json.dumps({f"k{i}": i for i in range(300_000)})
    actual = json.dumps({f"k{i}": i for i in reversed(range(300_000))})
    assert judge_return(TestCase("", expected), RunResult(status="ok", value=actual), {})[0] is (
        Verdict.AC
    )
    missing = json.dumps({f"k{i}": i for i in range(299_999)})
    verdict, message = judge_return(
        TestCase("", expected), RunResult(status="ok", value=missing), {}
    )
    assert verdict is Verdict.WA and message == "missing key 'k299999'"


def test_broken_tolerance_is_an_error_not_an_exception():
    outcome = judge_return(
        TestCase("", "1.0"), RunResult(status="ok", value="1.0"), {"abs_tol": -1}
    )
    assert outcome[0] is Verdict.ERROR and "abs_tol" in outcome[1]
