"""``float`` (testlib rcmp6 style): real tokens within tolerance, integer tokens exact."""

import pytest

from evaluator.judges.floats import check


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("0.333333", "0.3333333"),  # |diff| = 3.3e-7 <= 1e-6
        ("0.3333333333", "0.333333"),
        ("1.000001", "1.000000"),  # exactly on the absolute bound: inclusive
        ("0.5", "0.50"),
        ("2", "2.0"),  # an integer output for a real expected token
        ("2.", "2.0"),
        (".5", "0.5"),
        ("1e-7", "0.0"),
        ("-0.0", "0.0"),
        ("1.0E+9", "1e9"),
        ("1000000001.0", "1e9"),  # relative error 1e-9
        ("1000001000.0", "1e9"),  # relative error exactly 1e-6: inclusive
        ("1 2.0000001 abc", "1 2.0 abc"),  # mixed tokens
        ("1\n\n2.5", "1 2.5"),  # whitespace as in tokens
        ("1000000007", "1000000007"),
        ("-100001", "-100001"),
        ("nan", "nan"),
        ("NaN", "nan"),
        ("-nan", "NAN"),
        ("inf", "Infinity"),
        ("+INF", "inf"),
        ("-inf", "-Infinity"),
        ("1e999", "1e999"),
        ("1.0000001e999", "1e999"),  # beyond a double, still a number: relative tolerance
    ],
)
def test_accepted(output, expected):
    assert check(output, expected).ok


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1000000007", "1000000000"),  # integer tokens: no tolerance
        ("-100001", "-100000"),
        ("1000001", "1000000"),
        ("5.0", "5"),  # an integer expected token needs the identical token
        ("+5", "5"),
        ("05", "5"),
        ("-0", "0"),
        ("1.0000011", "1.000000"),  # just over the absolute bound
        ("1000001001.0", "1e9"),  # just over the relative bound
        ("0.1234", "0.1231"),
        ("0.6", "0.5"),
        ("abc", "0.5"),
        ("0x1p-1", "0.5"),  # only decimal literals are numbers
        ("1_0.0", "10.0"),
        ("nan", "0.5"),  # NaN never matches a finite number
        ("inf", "1e308"),
        ("1e999", "1.0"),
        ("0.5", "nan"),
        ("inf", "nan"),
        ("-inf", "inf"),
        ("inf", "-inf"),
        ("1e308", "inf"),  # inf matches only an infinity word
        ("1e999", "inf"),
        ("inf", "1e999"),
        ("-1e999", "1e999"),
        ("2e999", "1e999"),
        ("1e308", "1e999"),
        ("abc", "ABC"),  # words: exact and case-sensitive
        ("yes", "YES"),
        ("YES", "NO"),
        ("Alice", "Bob"),
        ("1 1", "1"),
        ("1", "1\n2\n3"),
        ("0.5 0.5", "0.5"),
        ("", "0.5"),
        ("ınf", "inf"),  # dotless i: not an infinity word (and no crash)
        ("İnf", "inf"),
        ("nan", "ınf"),
        ("١٢.٥", "12.5"),  # Arabic-Indic digits are not a number
    ],
)
def test_rejected(output, expected):
    assert not check(output, expected).ok


def test_tolerance_options():
    assert not check("1.0000001", "1.0", abs_tol=1e-9, rel_tol=1e-9).ok
    assert check("1.000000001", "1.0", abs_tol=1e-9, rel_tol=0).ok
    assert check("1.01", "1.0", abs_tol=0.01, rel_tol=0).ok
    assert not check("1.0101", "1.0", abs_tol=0.01, rel_tol=0).ok
    assert check("0.50000", "0.5", abs_tol=0, rel_tol=0).ok  # same value, other spelling
    assert not check("1000000007", "1000000000", abs_tol=100, rel_tol=1).ok  # never for ints


def test_relative_tolerance_is_relative_to_expected():
    # |diff| = 2e-6 > abs_tol; rel bound 1e-6 * 2 = 2e-6: inclusive.
    assert check("2.000002", "2.0", abs_tol=1e-9).ok
    assert not check("2.000003", "2.0", abs_tol=1e-9).ok


@pytest.mark.parametrize(("abs_tol", "rel_tol"), [(-1e-6, 1e-6), (1e-6, float("nan")), (True, 0)])
def test_invalid_tolerance_raises(abs_tol, rel_tol):
    with pytest.raises(ValueError, match="_tol"):
        check("1.0", "1.0", abs_tol=abs_tol, rel_tol=rel_tol)


@pytest.mark.parametrize(
    ("output", "expected", "message"),
    [
        ("1 2 3 4 5 6 0.6", "1 2 3 4 5 6 0.5", "token 7: expected '0.5', got '0.6' (off by 0.1"),
        ("1000000007", "1000000000", "integer tokens must match exactly"),
        ("5.0", "5", "token 1: expected '5', got '5.0'"),
        ("0.5", "0.5 0.25", "output ended after 1 token, expected 2"),
        ("-inf", "inf", "token 1: expected 'inf', got '-inf'"),
    ],
)
def test_message(output, expected, message):
    result = check(output, expected)
    assert not result.ok
    assert message in result.message


def test_huge_exponent_does_not_hang():
    assert check("1e-99999999", "0.0").ok
    assert check("1e-99999999", "0.000001", rel_tol=0).ok  # on the bound: decided exactly
