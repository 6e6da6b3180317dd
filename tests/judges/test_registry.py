"""The registry, and the grading rules checked across every judge at once."""

import functools
import random

import pytest

from evaluator.judges import JUDGES, Comparison, compare_values, get_judge
from evaluator.judges import floats as floats_module

NAMES = [
    "exact",
    "lines",
    "tokens",
    "float",
    "yesno",
    "words",
    "unordered_tokens",
    "unordered_lines",
    "lenient",
    "lcb",
    "sandbox_fusion",
]
# judges of whether a test program passed, not comparisons: test_exit_and_silent.py
NOT_COMPARISONS = ["exit", "silent", "no_error", "quiet_stderr", "debug_asserts"]
# lcb ignores leading space; sandbox_fusion and words every letter's case; unordered_tokens the
# order of the tokens
STRICT = [
    name
    for name in NAMES
    if name not in ("lenient", "lcb", "sandbox_fusion", "words", "unordered_tokens")
]


def test_names():
    assert sorted(JUDGES) == sorted(NAMES + NOT_COMPARISONS)
    assert callable(compare_values)


@pytest.mark.parametrize("name", NAMES)
def test_get_judge_returns_a_two_argument_check(name):
    judge = get_judge(name)
    assert judge("1\n", "1\n") == Comparison(True, "")


def test_unknown_judge():
    with pytest.raises(ValueError, match=r"unknown judge 'fuzzy'.*exact.*float.*lines"):
        get_judge("fuzzy")
    with pytest.raises(ValueError, match="unknown judge"):
        get_judge({"name": "float"})


def test_float_options_are_bound():
    judge = get_judge("float", abs_tol=1e-9, rel_tol=1e-9)
    assert isinstance(judge, functools.partial)
    assert judge.func is floats_module.check
    assert judge("0.5", "0.5000000001").ok
    assert not judge("0.333333", "0.3333333").ok
    assert get_judge("float")("0.333333", "0.3333333").ok


@pytest.mark.parametrize(
    ("name", "options", "match"),
    [
        ("float", {"tol": 1e-6}, "judge 'float' takes abs_tol, rel_tol, yesno; got tol"),
        ("lines", {"abs_tol": 1e-6}, "judge 'lines' takes no options"),
        ("float", {"abs_tol": -1.0}, "abs_tol must be finite and >= 0"),
        ("float", {"rel_tol": "big"}, "rel_tol must be a number"),
    ],
)
def test_bad_options(name, options, match):
    with pytest.raises(ValueError, match=match):
        get_judge(name, **options)


def test_comparison_is_frozen_and_truthy():
    accepted, rejected = Comparison(True), Comparison(False, "line 1: ...")
    assert accepted and not rejected
    with pytest.raises(AttributeError):
        accepted.ok = False  # type: ignore[misc]


# --- ../shared/docs/grading-rules.md, "Compare outputs": wrong answers every judge must reject


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("YES", "NO"),
        ("NO\n", "YES\n"),
        ("Alice", "Bob"),
        ("1", "1\n2\n3"),  # a prefix of the expected output
        ("", "1"),
    ],
)
def test_wrong_answers_rejected_by_every_judge(name, output, expected):
    assert not get_judge(name)(output, expected).ok


@pytest.mark.parametrize("name", STRICT)
@pytest.mark.parametrize(
    ("output", "expected"),
    [("1 1", "1"), ("1 2", "2 1"), ("0.1234", "0.1231"), ("1000000007", "1000000000")],
)
def test_wrong_answers_rejected_by_every_strict_judge(name, output, expected):
    assert not get_judge(name)(output, expected).ok


# --- correct answers that must be accepted -----------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_identical_output_accepted_by_every_judge(name):
    assert get_judge(name)("1 2\n3.5\nYES\n", "1 2\n3.5\nYES\n").ok


TOKEN_JUDGES = ["tokens", "float", "yesno", "words", "unordered_tokens", "unordered_lines"]


@pytest.mark.parametrize("name", ["lines", *TOKEN_JUDGES, "lenient"])
def test_trailing_whitespace_accepted_by_all_but_exact(name):
    assert get_judge(name)("1 2  \r\n3\n\n\n", "1 2\n3").ok


@pytest.mark.parametrize(("name", "ok"), [(n, n in {*TOKEN_JUDGES, "lenient"}) for n in NAMES])
def test_blank_line_inside(name, ok):
    assert get_judge(name)("1\n\n2", "1\n2").ok is ok


@pytest.mark.parametrize(
    ("name", "ok"), [(n, n in {"float", "lenient", "sandbox_fusion"}) for n in NAMES]
)
def test_float_tolerance(name, ok):
    assert get_judge(name)("0.333333", "0.3333333").ok is ok


@pytest.mark.parametrize(
    ("name", "ok"), [(n, n in {"yesno", "words", "sandbox_fusion"}) for n in NAMES]
)
def test_yes_case(name, ok):
    assert get_judge(name)("Yes", "YES").ok is ok


@pytest.mark.parametrize("name", NAMES)
def test_case_matters_for_other_words(name):
    # SandboxFusion lower-cases every line: its judge exists to answer as it does (/submit);
    # words is the rule of statements that allow any letter case
    assert get_judge(name)("abc", "ABC").ok is (name in ("sandbox_fusion", "words"))


# lenient accepts both (its "set" rule): it accepts wrong answers
@pytest.mark.parametrize(("name", "ok"), [(n, n in {"unordered_tokens", "lenient"}) for n in NAMES])
def test_order_matters_but_for_unordered_tokens(name, ok):
    assert get_judge(name)("2 1", "1 2").ok is ok


@pytest.mark.parametrize(
    ("name", "ok"), [(n, n in {"unordered_tokens", "unordered_lines", "lenient"}) for n in NAMES]
)
def test_line_order_matters_but_for_the_unordered_judges(name, ok):
    assert get_judge(name)("3 4\n1 2\n", "1 2\n3 4\n").ok is ok


@pytest.mark.parametrize("name", ["lines", *TOKEN_JUDGES])
def test_lines_acceptance_implies_token_acceptance(name):
    # Everything `lines` accepts, the token judges accept too.
    for output, expected in [("1 \r\n2\t\n\n", "1\n2"), ("a b\n", "a b"), ("", "\n\n")]:
        assert get_judge("lines")(output, expected).ok
        assert get_judge(name)(output, expected).ok


def _random_text(rng: random.Random) -> str:
    pieces = [
        "1",
        "2",
        "-1",
        "0.5",
        "0.50",
        "1e3",
        "YES",
        "yes",
        "No",
        "abc",
        "nan",
        "-inf",
        "ınf",
        "١",
        "[1,",
        "2]",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\n\n",
        "\xa0",
        "\x1c",
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))


def test_random_pairs_never_raise_and_judges_nest():
    # exact => lines => tokens => float, yesno => words, and unordered_tokens; lines =>
    # unordered_lines => unordered_tokens: each judge only forgives more.
    rng = random.Random(20260)
    judges = {name: get_judge(name) for name in NAMES}
    for _ in range(3000):
        output, expected = _random_text(rng), _random_text(rng)
        if rng.random() < 0.3:
            output = expected.replace("\n", " \n") + rng.choice(["", "\n", " ", "\n\n"])
        verdict = {name: judge(output, expected) for name, judge in judges.items()}
        for result in verdict.values():
            assert isinstance(result, Comparison)
            assert len(result.message) <= 200
            assert result.ok or result.message
        pair = (output, expected)
        if verdict["exact"].ok:
            assert verdict["lines"].ok, pair
        if verdict["lines"].ok:
            assert verdict["tokens"].ok, pair
        if verdict["tokens"].ok:
            assert verdict["float"].ok and verdict["yesno"].ok, pair
            assert verdict["unordered_tokens"].ok, pair
        if verdict["yesno"].ok:
            assert verdict["words"].ok, pair
        if verdict["lines"].ok:
            assert verdict["unordered_lines"].ok, pair
        if verdict["unordered_lines"].ok:
            assert verdict["unordered_tokens"].ok, pair
