"""``yesno``: yes/no words case-insensitive, everything else case-sensitive."""

import pytest

from evaluator.judges.yesno import check


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("YES", "Yes"),
        ("yes", "YES"),
        ("yEs", "yes"),
        ("No", "NO"),
        ("no\nYES\n", "NO yes"),  # whitespace as in tokens
        ("YES 3\nabc", "yes 3 abc"),
        ("Alice", "Alice"),
    ],
)
def test_yes_no_case_insensitive(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("YES", "NO"),
        ("no", "yes"),
        ("abc", "ABC"),  # case matters outside yes/no
        ("Alice", "alice"),
        ("Alice", "Bob"),
        ("y", "yes"),
        ("yeah", "yes"),
        ("yes.", "yes"),
        ("YES YES", "YES"),
        ("YES", "YES\nYES\nNO"),  # a prefix
        ("1 1", "1"),
        ("ｙｅｓ", "yes"),  # fullwidth letters are not "yes"
        ("", "YES"),
    ],
)
def test_other_differences_rejected(output, expected):
    assert not check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("YES", "NO", "token 1: expected 'NO', got 'YES'"),
        ("yes abc", "YES ABC", "token 2: expected 'ABC', got 'abc'"),
        ("YES", "yes no", "output ended after 1 token, expected 2"),
    ],
)
def test_message(output, expected, message):
    assert check(output, expected).message == message
