"""``unordered_tokens`` (a permutation of the expected tokens) and ``unordered_lines`` (the
same lines in any order): right answers in another order pass, wrong ones name the first
token or line whose count differs."""

import pytest

from evaluator.judges import get_judge
from evaluator.judges.unordered_lines import check as lines_check
from evaluator.judges.unordered_lines import normalise
from evaluator.judges.unordered_tokens import check as tokens_check


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("3 1 2", "1 2 3"),
        ("1\n2\n3\n", "3 2 1"),  # any layout
        ("2 1 1", "1 1 2"),  # repeats, in any order
        ("  b\ta\r\n\n", "a b"),
        ("", ""),
        ("\n \t", ""),
        ("x", "x"),
    ],
)
def test_tokens_any_order(output, expected):
    assert tokens_check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("1 2 2", "1 1 2", "token '1': 1 occurrence, expected 2"),
        ("1 2", "1 2 3", "token '3': 0 occurrences, expected 1 (output has 2 tokens, expected 3)"),
        (
            "3 1 2 7",
            "1 2 3",
            "token '7': 1 occurrence, expected 0 (output has 4 tokens, expected 3)",
        ),
        ("1.0 2", "2 1", "token '1': 0 occurrences, expected 1"),  # numbers compare as text
        ("yes", "YES", "token 'YES': 0 occurrences, expected 1"),  # case matters
        ("12", "1 2", "token '1': 0 occurrences, expected 1 (output has 1 token, expected 2)"),
        ("1\xa02", "2 1", "token '2': 0 occurrences, expected 1 (output has 1 token, expected 2)"),
        ("", "0", "token '0': 0 occurrences, expected 1 (output has 0 tokens, expected 1)"),
    ],
)
def test_tokens_wrong_counts_named(output, expected, message):
    result = tokens_check(output, expected)
    assert not result.ok
    assert result.message == message


def test_tokens_message_is_capped():
    result = tokens_check("a", "x" * 1000)
    assert not result.ok and len(result.message) <= 200
    assert result.message.startswith("token 'xxx")


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1 2\n3 4\n", "3 4\n1 2"),
        ("3  4 \r\n\n1\t2\n\n\n", "1 2\n3 4\n"),  # whitespace in a line, blank lines
        ("a b\na b\nc\n", "c\na b\na b"),  # repeated lines
        ("", "\n\n"),
        ("only\n", "only"),
    ],
)
def test_lines_any_order(output, expected):
    assert lines_check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("2 1\n3 4", "1 2\n3 4", "line '1 2': 0 occurrences, expected 1"),  # order in a line
        (
            "1 2 3 4",
            "1 2\n3 4",
            "line '1 2': 0 occurrences, expected 1 (output has 1 line, expected 2)",
        ),
        (
            "3 4\n1 2\n1 2",
            "1 2\n3 4",
            "line '1 2': 2 occurrences, expected 1 (output has 3 lines, expected 2)",
        ),
        (
            "1 2\n3 4\n5 6",
            "3 4\n1 2",
            "line '5 6': 1 occurrence, expected 0 (output has 3 lines, expected 2)",
        ),
        ("A B\n", "a b\n", "line 'a b': 0 occurrences, expected 1"),
        ("", "1", "line '1': 0 occurrences, expected 1 (output has 0 lines, expected 1)"),
    ],
)
def test_lines_wrong_counts_named(output, expected, message):
    result = lines_check(output, expected)
    assert not result.ok
    assert result.message == message


def test_lines_normalised():
    assert normalise(" 1  2\r\n\n\t\n3\x0b4\n\n") == ["1 2", "3 4"]


def test_registered():
    assert get_judge("unordered_tokens")("2 1", "1 2").ok
    assert get_judge("unordered_lines")("b\na", "a\nb").ok
    assert not get_judge("unordered_lines")("a b", "b a").ok
