"""``lcb``: LiveCodeBench's stdio comparison (strip, lines, exact ``Decimal``), both ways."""

import pytest

from evaluator.judges import get_judge
from evaluator.judges import lines as lines_judge
from evaluator.judges.lcb import check, normalise, same_numbers


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1\n2\n", "1\n2\n"),
        ("1\n2", "1\n2\n"),  # missing final newline
        ("1  \n2\t\n", "1\n2"),  # trailing spaces and tabs
        ("1\r\n2\r\n", "1\n2\n"),  # CRLF
        ("", ""),
        ("\n\n", ""),
        ("YES\n", "YES"),
    ],
)
def test_accepted_like_lines(output, expected):
    assert check(output, expected).ok
    assert lines_judge.check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (" 5", "5"),  # leading whitespace of a line
        ("  1 2\n\t3", "1 2\n3"),
        ("\n\n5", "5"),  # leading empty lines
        ("1.0", "1"),  # equal as Decimals
        ("1e3", "1000"),
        ("+5", "5"),
        ("-0", "0"),
        ("0.50 2", "0.5 2.000"),
        ("1  2", "1 2"),  # inner spacing between numbers
        ("1_000", "1000"),  # Decimal's syntax allows underscores
        ("Infinity", "inf"),
        ("5\xa0", "5"),  # non-ASCII space stripped (str.strip)
    ],
)
def test_accepted_here_rejected_by_lines(output, expected):
    assert check(output, expected).ok
    assert not lines_judge.check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("0.333333", "0.3333333"),  # exact: no tolerance
        ("0.3333333", "0.333333"),
        ("6.44317475868633771086", "6.44317475868633722080"),
        ("1\n\n2", "1\n2"),  # an inner blank line changes the line count
        ("1 2", "1\n2"),
        ("1\n2", "1 2"),
        ("1 1", "1"),  # token counts differ
        ("1", "1 1"),
        ("1", "1\n2\n3"),
        ("1\n2\n3", "1\n2"),
        ("2 1", "1 2"),  # order matters (no set rule)
        ("a  b", "a b"),  # words are compared as strings: inner spacing matters
        ("yes", "YES"),
        ("1.0 x", "1 x"),  # a non-number token: the string must be equal
        ("NaN", "nan"),  # NaN never equals as a Decimal
        ("sNaN", "sNaN1"),  # signalling NaN does not raise
        ("010011110000001", "010011111000001"),
        ("4", ""),
        ("", "4"),
    ],
)
def test_rejected(output, expected):
    assert not check(output, expected).ok


def test_equal_strings_always_match():
    assert check("NaN", "NaN").ok
    assert check("sNaN\n", "sNaN").ok


def test_messages():
    assert check("1\n4\n", "1\n5\n").message == "line 2: expected '5', got '4'"
    assert check("1\n", "1\n2\n").message == "output ended after 1 line, expected 2"
    assert check("1\n2\n7\n", "1\n2\n").message == (
        "output has 3 lines, expected 2; extra line 3: '7'"
    )


def test_helpers():
    assert normalise("\n  a \n b\n\n") == ["a", "b"]
    assert normalise("") == [""]
    assert same_numbers("1.0 2", "1 2.00")
    assert not same_numbers("1 2", "1")
    assert not same_numbers("x", "x")


def test_registered():
    assert get_judge("lcb") is check
