"""``lines``: trailing whitespace and trailing empty lines forgiven, nothing else."""

import pytest

from evaluator.judges.lines import check, normalise


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1\n2\n", "1\n2\n"),
        ("1\n2", "1\n2\n"),  # missing final newline
        ("1  \n2\t\n", "1\n2"),  # trailing spaces and tabs
        ("1\n2\n\n\n", "1\n2"),  # trailing empty lines
        ("1\n2\n  \n\t\n", "1\n2"),  # trailing whitespace-only lines
        ("1\r\n2\r\n", "1\n2\n"),  # CRLF endings
        ("1\n2", "1\r\n2\r\n"),  # CRLF in the expected output
        ("a  b\n", "a  b"),  # inner spacing identical
        ("", ""),
        ("\n\n", ""),  # empty output equals empty expected
    ],
)
def test_trailing_whitespace_forgiven(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1\n\n2", "1\n2"),  # an inner blank line is a different line structure
        (" 5", "5"),  # leading whitespace matters
        ("\n5", "5"),  # a leading empty line matters
        ("1 2", "1  2"),  # inner spacing matters
        ("1 2", "1\n2"),  # one line is not two
        ("YES", "NO"),
        ("Alice", "Bob"),
        ("1 1", "1"),
        ("1", "1\n2\n3"),  # a prefix of the expected output
        ("1\n2\n3", "1\n2"),  # extra output
        ("yes", "YES"),
        ("0.333333", "0.3333333"),  # no numeric tolerance here
        ("", "0"),
        ("0", ""),
        ("5\xa0", "5"),  # U+00A0 is not trailing whitespace on a contest judge
    ],
)
def test_other_differences_rejected(output, expected):
    assert not check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("1\n2\n4\n", "1\n2\n5\n", "line 3: expected '5', got '4'"),
        ("1\n2\n", "1\n2\n3\n", "output ended after 2 lines, expected 3"),
        ("1\n", "1\n2\n3\n", "output ended after 1 line, expected 3"),
        ("1\n2\n3\n7\n", "1\n2\n3\n", "output has 4 lines, expected 3; extra line 4: '7'"),
        (" 5\n", "5\n", "line 1: expected '5', got ' 5'"),
        ("1\n\n2", "1\n2", "line 2: expected '2', got ''"),
    ],
)
def test_message(output, expected, message):
    assert check(output, expected).message == message


def test_normalise():
    assert normalise("a \r\n b\t\n\n \n") == ["a", " b"]
    assert normalise("") == []
