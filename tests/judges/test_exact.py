"""``exact``: identical text only."""

import pytest

from evaluator.judges.exact import check


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("5\n", "5\n"),
        ("", ""),
        ("a b\n c\n", "a b\n c\n"),
        ("x" * 100_000, "x" * 100_000),
    ],
)
def test_identical_text_accepted(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("5", "5\n"),  # missing final newline
        ("5\n\n", "5\n"),  # extra empty line
        ("5 \n", "5\n"),  # trailing space
        ("5\r\n", "5\n"),  # CRLF
        (" 5\n", "5\n"),  # leading space
        ("YES\n", "NO\n"),
        ("Alice", "Bob"),
        ("1 1", "1"),
        ("1", "1\n2\n3"),
        ("yes", "YES"),
        ("", "0"),
    ],
)
def test_any_difference_rejected(output, expected):
    result = check(output, expected)
    assert not result.ok
    assert result.message


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("1\n4\n", "1\n5\n", "line 2, column 1: expected '5', got '4'"),
        ("1\n5\r\n", "1\n5\n", "line 2, column 2: expected '5', got '5\\r'"),
        (
            "1",
            "1\n2\n3",
            "output ended at line 1, column 2; expected 4 more characters: '\\n2\\n3'",
        ),
        ("5\n", "5", "output has 1 extra character at line 1, column 2: '\\n'"),
    ],
)
def test_message_locates_first_difference(output, expected, message):
    assert check(output, expected).message == message


def test_message_is_capped_for_huge_lines():
    result = check("a" * 10_000 + "b", "a" * 10_000 + "c")
    assert not result.ok
    assert len(result.message) <= 200
    assert "…" in result.message
    assert result.message.startswith("line 1, column 10001: ")
