"""``tokens`` (testlib wcmp): any whitespace between tokens, tokens exact."""

import pytest

from evaluator.judges.tokens import check


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1 2 3", "1 2 3"),
        ("1\n\n2", "1\n2"),  # a blank line is just whitespace here
        ("1\n2", "1 2"),
        ("  1\t2  \r\n3\n\n", "1 2 3"),
        ("1\x0b2\x0c3", "1 2 3"),  # vertical tab and form feed are whitespace
        ("", ""),
        ("\n \t", ""),
    ],
)
def test_whitespace_insensitive(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("YES", "NO"),
        ("yes", "YES"),  # case matters (use yesno for that)
        ("abc", "ABC"),
        ("Alice", "Bob"),
        ("1 1", "1"),
        ("1", "1\n2\n3"),
        ("1 2", "2 1"),
        ("12", "1 2"),  # tokens do not merge
        ("1\xa02", "1 2"),  # U+00A0 is not a separator (testlib rule)
        ("1\x1c2", "1 2"),  # nor is \x1c (str.split() would say it is)
        ("1\u20032", "1 2"),  # nor U+2003
        ("0.333333", "0.3333333"),
        ("5.0", "5"),
        ("", "0"),
    ],
)
def test_token_differences_rejected(output, expected):
    assert not check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("1 2 3 4 5 6 0.6", "1 2 3 4 5 6 0.5", "token 7: expected '0.5', got '0.6'"),
        ("1\n2", "1 2 3", "output ended after 2 tokens, expected 3"),
        ("1 2 3 7", "1 2 3", "output has 4 tokens, expected 3; extra token 4: '7'"),
        ("", "0", "output ended after 0 tokens, expected 1"),
    ],
)
def test_message(output, expected, message):
    assert check(output, expected).message == message


def test_split_tokens():
    from evaluator.judges.base import split_tokens

    assert split_tokens(" a\tb\r\nc\x0bd\x0ce ") == ["a", "b", "c", "d", "e"]
    assert split_tokens("a\x1cb c") == ["a\x1cb", "c"]
    assert split_tokens("é\xa0è ü") == ["é\xa0è", "ü"]
    assert split_tokens("") == []
