"""``lenient``: the paper's fallback chain. These tests PIN wrong answers it accepts, so that
nobody mistakes it for a correct judge; the default judges reject the same answers."""

import pytest

from evaluator.judges import get_judge
from evaluator.judges.lenient import check, matching_rule

STRICT = ["exact", "lines", "tokens", "float", "yesno"]


@pytest.mark.parametrize(
    ("output", "expected", "rule"),
    [
        ("  5  \n", "5", "stripped"),
        ("1 \n 2", "1\n2", "lines"),
        ("1\n\n2", "1 2", "whitespace"),
        ("[1, 2, 3]", "1 2 3", "containers"),
        ("(1, 2)", "[1, 2]", "containers"),
        ("0.333333", "0.3333333", "allclose"),
        ("0.1234", "0.1231", "rounded"),
        ("1 2", "2 1", "set"),
    ],
)
def test_chain_order(output, expected, rule):
    assert matching_rule(output, expected) == rule
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1 2", "2 1"),  # WRONG: order ignored by the set rule
        ("1 1", "1"),  # WRONG: repetition ignored by the set rule
        ("0.1234", "0.1231"),  # WRONG: rounding to 3 decimals
        ("1000000007", "1000000000"),  # WRONG: relative tolerance on integers
        ("-100001", "-100000"),  # WRONG: same
        ("[1, 2]", "1 2"),  # format ignored
    ],
)
def test_accepts_wrong_answers_that_strict_judges_reject(output, expected):
    assert check(output, expected).ok, "lenient is documented to accept this"
    for name in STRICT:
        assert not get_judge(name)(output, expected).ok, name


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("YES", "NO"),
        ("Alice", "Bob"),
        ("1", "1\n2\n3"),  # a strict prefix
        ("abc", "ABC"),
        ("0.2", "0.1"),
        ("1 2", "1 2 3"),
        ("", "0"),
    ],
)
def test_still_rejects(output, expected):
    assert not check(output, expected).ok


def test_messages():
    assert check("5", "5").message == ""
    assert check("1 2", "2 1").message == "accepted by lenient rule 'set'"
    assert check("YES", "NO").message == (
        "no lenient rule matched; line 1: expected 'NO', got 'YES'"
    )
    assert "output ended after 1 line, expected 3" in check("1", "1\n2\n3").message
