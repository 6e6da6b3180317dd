"""Every stdin judge is total: any two texts (invalid UTF-8 read with surrogate escapes, NUL,
lone surrogates, number-like token soup, lines of tens of MB) give a Comparison whose
message is short and UTF-8-writable; equal texts are always accepted."""

from __future__ import annotations

import time

import pytest
from fuzz_inputs import JUDGE_TEXT, OUTPUT_BYTES, assert_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.judges import JUDGES, Comparison, get_judge
from evaluator.judges.base import MAX_MESSAGE
from evaluator.judges.stdout import judge_stdout
from evaluator.problem import TestCase, Verdict
from evaluator.sandbox import RunResult

# Every judge, and the float judge with other tolerances (exact arithmetic at the bound).
CHECKS = {name: check for name, check in JUDGES.items()}
CHECKS["float-tight"] = get_judge("float", abs_tol=0.0, rel_tol=1e-9)
CHECKS["float-loose"] = get_judge("float", abs_tol=0.5, rel_tol=0.0)


def _assert_comparison(result: object) -> None:
    assert isinstance(result, Comparison)
    assert type(result.ok) is bool
    assert type(result.message) is str
    assert len(result.message) <= MAX_MESSAGE
    result.message.encode("utf-8")  # repr()'d values: no raw surrogate can reach a file


@pytest.mark.parametrize("name", sorted(CHECKS))
@settings(max_examples=150, deadline=None)
@given(output=JUDGE_TEXT, expected=JUDGE_TEXT)
def test_any_two_texts_give_a_bounded_comparison(name, output, expected):
    _assert_comparison(CHECKS[name](output, expected))


# ``silent``, ``no_error`` and ``quiet_stderr`` compare nothing: they judge what a test
# program printed
COMPARISONS = sorted(name for name in CHECKS if name not in ("silent", "no_error", "quiet_stderr"))


@pytest.mark.parametrize("name", COMPARISONS)
@settings(max_examples=60, deadline=None)
@given(text=JUDGE_TEXT)
def test_equal_texts_are_accepted(name, text):
    result = CHECKS[name](text, text)
    assert result.ok, result.message


@pytest.mark.parametrize("name", sorted(JUDGES))
@settings(max_examples=60, deadline=None)
@given(stdout=OUTPUT_BYTES, expected=JUDGE_TEXT)
def test_stdio_judge_reads_any_stdout_bytes(name, stdout, expected):
    """The harness decodes whatever bytes the program wrote and always gives a verdict."""
    run = RunResult(status="ok", stdout=stdout)
    outcome = judge_stdout(TestCase("", expected), run, JUDGES[name])
    assert_outcome(outcome)
    assert outcome[0] in (Verdict.AC, Verdict.WA)


_MB = 1 << 20


@pytest.mark.parametrize("name", sorted(JUDGES))
@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("7" * (20 * _MB) + "1\n", "7" * (20 * _MB) + "2\n"),  # one 20 MB line, last digit off
        ("1" * (20 * _MB) + "x", "1.5"),  # a digit run then a letter (was quadratic in float)
        ("0." + "3" * (20 * _MB), "0.333"),
        ("a\x00" * (5 * _MB), "a\x00" * (5 * _MB) + "b"),
        ("\udcff" * (5 * _MB), "\ud800" * (5 * _MB)),
    ],
    ids=["long-line", "digits-then-letter", "long-real", "nul", "surrogates"],
)
def test_lines_of_tens_of_megabytes(name, output, expected):
    started = time.perf_counter()
    result = JUDGES[name](output, expected)
    _assert_comparison(result)
    assert time.perf_counter() - started < 30  # linear: about a second; quadratic: hours


def test_long_digit_token_is_linear_in_the_float_judge():
    """The token classifier once backtracked quadratically: 16,000 digits took 9 s."""
    started = time.perf_counter()
    result = JUDGES["float"]("1" * 1_000_000 + "x", "1.5")
    assert not result.ok and result.message.startswith("token 1: expected '1.5'")
    assert time.perf_counter() - started < 5


@settings(max_examples=50, deadline=None)
@given(
    digits=st.integers(min_value=1, max_value=4000),
    exponent=st.integers(min_value=-(10**20), max_value=10**20),
)
def test_float_judge_on_extreme_literals(digits, exponent):
    """Literals beyond a double and beyond Decimal's exponent range are still judged."""
    literal = f"{'9' * digits}e{exponent}"
    _assert_comparison(JUDGES["float"](literal, "1.0"))
    _assert_comparison(JUDGES["float"]("1.0", literal))
    assert JUDGES["float"](literal, literal).ok
