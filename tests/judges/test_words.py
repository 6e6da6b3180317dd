"""``words``: tokens equal ignoring ASCII letter case."""

import pytest

from evaluator.judges import get_judge
from evaluator.judges.case_insensitive import check, fold


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("yEs", "YES"),
        ("Alice", "ALICE"),
        ("no\nYES\n", "NO yes"),  # whitespace as in tokens
        ("First 3 WIN", "first 3 win"),
        ("NaN", "nan"),
        ("Ünïcode", "ÜNïCODE"),  # the ASCII letters fold; the others match as they are
        ("", ""),
    ],
)
def test_case_insensitive(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("Alice", "Bob", "token 1: expected 'Bob', got 'Alice'"),
        ("YES NO", "yes yes", "token 2: expected 'yes', got 'NO'"),
        ("ä", "Ä", "token 1: expected 'Ä', got 'ä'"),  # no Unicode folding
        ("s", "ſ", "token 1: expected 'ſ', got 's'"),  # long s: str.casefold() says 's'
        ("ｙｅｓ", "YES", "token 1: expected 'YES', got 'ｙｅｓ'"),  # fullwidth letters
        ("1.0", "1", "token 1: expected '1', got '1.0'"),  # numbers as text
        ("yes", "yes yes", "output ended after 1 token, expected 2"),
        ("a b c", "A B", "output has 3 tokens, expected 2; extra token 3: 'c'"),
    ],
)
def test_wrong_answers_and_messages(output, expected, message):
    result = check(output, expected)
    assert not result.ok
    assert result.message == message


def test_fold_is_ascii_only():
    assert fold("AbC") == "abc"
    assert fold("ÀBÇ") == "ÀbÇ"  # only the ASCII letter changes
    assert fold("İX") == "İx"  # str.lower() would give 'i̇x'


def test_registered():
    assert get_judge("words")("Yes", "YES").ok
