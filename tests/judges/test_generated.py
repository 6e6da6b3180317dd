"""Checkers made elsewhere, kept in a side file (evaluator/judges/generated.py): read,
attached to their problems, validated as ScaleBox validates its generated judges (every
reference accepted, empty output rejected), and graded in the real sandbox."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.judges.generated import (
    CheckerTargetError,
    attach_checkers,
    load_checkers,
    validate_checker,
)
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner.grading import GradeOptions, Grader
from evaluator.sandbox import SandboxPool

# "Print two integers a b with 1 < a <= b and a * b == n": many valid answers.
CHECK = """
def check(input, output, expected):
    n = int(input)
    parts = output.split()
    if len(parts) != 2:
        return False, f"expected two numbers, got {len(parts)}"
    a, b = int(parts[0]), int(parts[1])
    return (1 < a <= b and a * b == n, f"{a} * {b}")
"""
TESTS = [TestCase("12\n", "2 6\n"), TestCase("35\n", "5 7\n")]
# What two reference solutions print on TESTS: the smallest factor first, the largest one last.
REFERENCES = [["2 6\n", "5 7\n"], ["3 4\n", "5 7\n"]]
SMALLEST = "n = int(input())\na = next(d for d in range(2, n) if n % d == 0)\nprint(a, n // a)"
LARGEST = (
    "n = int(input())\n"
    "a = max(d for d in range(2, int(n ** 0.5) + 1) if n % d == 0)\n"
    "print(a, n // a)"
)
WRONG = "n = int(input())\nprint(1, n)"


def write_lines(path, *records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


@pytest.fixture(scope="module")
def checker_pool():
    with SandboxPool(workers=1) as own:
        yield own


# --- the side file -------------------------------------------------------------------------


def test_a_side_file_is_read_into_python_checker_specs(tmp_path):
    path = write_lines(
        tmp_path / "checkers.jsonl",
        {"id": "pairs", "check": CHECK},
        {"id": 1873, "check": "def check(i, o, e):\n    return True", "time_limit": 2},
    )
    (tmp_path / "checkers.jsonl").write_text(
        (tmp_path / "checkers.jsonl").read_text() + "\n  \n"  # blank lines are skipped
    )
    assert load_checkers(path) == {
        "pairs": {"type": "python", "code": CHECK},
        "1873": {"type": "python", "code": "def check(i, o, e):\n    return True", "time_limit": 2},
    }


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"id": "p", "check": CHECK, "lang": "py"}, "unknown key(s) lang"),
        ({"id": "p", "check": "def check(:"}, "problem 'p': python checker does not compile"),
        ({"id": "p", "check": "   "}, "python checker needs a non-empty string 'code'"),
        ({"id": "p", "check": 3}, "'check' must be Python source (a string), not int"),
        ({"id": True, "check": CHECK}, "'id' must be a non-empty string or an integer"),
        ({"check": CHECK}, "'id' must be a non-empty string or an integer, not None"),
        ({"id": "p", "check": CHECK, "time_limit": -1}, "checker time_limit"),
        ([1, 2], "a line is a JSON object, not list"),
    ],
)
def test_a_broken_line_is_refused_naming_file_and_line(tmp_path, record, message):
    path = write_lines(tmp_path / "c.jsonl", {"id": "ok", "check": CHECK}, record)
    with pytest.raises(ValueError, match=r"^.*c\.jsonl:2: ") as caught:
        load_checkers(path)
    assert message in str(caught.value)


def test_not_json_and_duplicate_ids_are_refused(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "p", "check": "x = 1"}\n{"id": \n')
    with pytest.raises(ValueError, match=r"c\.jsonl:2: not JSON"):
        load_checkers(path)
    write_lines(path, {"id": "p", "check": CHECK}, {"id": "p", "check": CHECK})
    with pytest.raises(ValueError, match=r"c\.jsonl:2: a second checker for problem 'p'"):
        load_checkers(path)


def test_attach_gives_stdin_problems_their_checker(tmp_path):
    checkers = load_checkers(write_lines(tmp_path / "c.jsonl", {"id": "pairs", "check": CHECK}))
    own = Problem("pairs", Harness.STDIN, list(TESTS), judge="lines", needs_checker=True)
    other = Problem("other", Harness.STDIN, list(TESTS), judge="tokens")
    attached: set[str] = set()
    first, second = attach_checkers([own, other], checkers, attached)
    assert first.judge == {"type": "python", "code": CHECK}  # the side file's, not "lines"
    assert first.judge_reason == "a checker made elsewhere" and not first.needs_checker
    assert own.judge == "lines"  # a copy: the problem given is left as it was
    assert second is other
    assert attached == {"pairs"}
    called = Problem("pairs", Harness.FUNCTIONAL, list(TESTS), func_name="f")
    with pytest.raises(CheckerTargetError, match="'pairs' has a checker, but it is a functional"):
        list(attach_checkers([called], checkers))


# --- validation ----------------------------------------------------------------------------


def test_a_checker_that_accepts_every_reference_and_rejects_empty_output_is_valid(checker_pool):
    result = validate_checker({"type": "python", "code": CHECK}, TESTS, REFERENCES, checker_pool)
    assert result.valid and result
    assert result.references_accepted and result.empty_rejected
    assert result.failures == ()


def test_a_checker_that_accepts_empty_output_is_invalid(checker_pool):
    # the classic bug of a generated checker: every token it finds is fine, and it finds none
    code = (
        "def check(input, output, expected):\n"
        "    n = int(input)\n"
        "    return all(n % int(t) == 0 for t in output.split())\n"
    )
    result = validate_checker({"type": "python", "code": code}, TESTS, REFERENCES, checker_pool)
    assert not result.valid
    assert result.references_accepted and not result.empty_rejected
    assert result.failures == ("test 1: empty output accepted", "test 2: empty output accepted")


def test_a_checker_that_rejects_a_reference_is_invalid(checker_pool):
    # exact match: the second reference's "3 4" is a right answer it rejects
    code = "def check(i, o, e):\n    return o.split() == e.split(), 'not the expected answer'"
    result = validate_checker({"type": "python", "code": code}, TESTS, REFERENCES, checker_pool)
    assert not result.valid
    assert not result.references_accepted and result.empty_rejected
    assert result.failures == ("reference 2, test 1: rejected: not the expected answer",)


def test_a_checker_that_fails_on_empty_output_is_invalid(checker_pool):
    # it raises on empty output (no tokens to unpack): in grading that is an ERROR, not a WA
    code = (
        "def check(input, output, expected):\n"
        "    a, b = map(int, output.split())\n"
        "    return a * b == int(input)\n"
    )
    result = validate_checker(
        {"type": "python", "code": code}, TESTS[:1], [r[:1] for r in REFERENCES], checker_pool
    )
    assert not result.valid and result.references_accepted and not result.empty_rejected
    [failure] = result.failures
    assert failure.startswith("test 1: checker ERROR on empty output, not a rejection:")
    assert "ValueError" in failure


def test_empty_output_is_not_asked_where_a_reference_printed_nothing(checker_pool):
    tests = [TestCase("12\n", "2 6\n"), TestCase("7\n", "\n")]  # 7 is prime: no pair, blank
    code = (
        "def check(input, output, expected):\n"
        "    n, parts = int(input), output.split()\n"
        "    if not expected.strip():\n"
        "        return not parts\n"
        "    return len(parts) == 2 and 1 < int(parts[0]) <= int(parts[1])"
        " and int(parts[0]) * int(parts[1]) == n\n"
    )
    references = [["2 6\n", "\n"], ["3 4\n", ""]]
    result = validate_checker({"type": "python", "code": code}, tests, references, checker_pool)
    assert result.valid, result.failures


def test_nothing_to_validate_against_is_invalid(checker_pool):
    spec = {"type": "python", "code": CHECK}
    result = validate_checker(spec, TESTS, [], checker_pool)
    assert not result.valid
    assert result.failures == ("no reference outputs: nothing to validate against",)
    blank = validate_checker(spec, TESTS[:1], [[" \n"]], checker_pool)
    assert not blank.valid and not blank.empty_rejected
    assert "empty output not asked" in blank.failures[-1]


def test_a_broken_spec_or_references_of_the_wrong_length(checker_pool):
    result = validate_checker(
        {"type": "python", "code": "def check(:"}, TESTS, REFERENCES, checker_pool
    )
    assert not result.valid
    assert result.failures[0].startswith("checker not built: python checker does not compile")
    with pytest.raises(ValueError, match="reference 1 has 1 outputs for 2 tests"):
        validate_checker({"type": "python", "code": CHECK}, TESTS, [["2 6\n"]], checker_pool)


# --- grading with a checker from a side file -----------------------------------------------


def test_grading_a_problem_with_a_loaded_checker(tmp_path, pool, checker_pool):
    checkers = load_checkers(write_lines(tmp_path / "c.jsonl", {"id": "pairs", "check": CHECK}))
    [problem] = attach_checkers([Problem("pairs", Harness.STDIN, list(TESTS))], checkers)
    grader = Grader(GradeOptions(time_limit=2), pool=pool, checker_pool=checker_pool)
    assert grader.grade(problem, SMALLEST).verdict is Verdict.AC
    assert grader.grade(problem, LARGEST).verdict is Verdict.AC  # "3 4" for 12, not "2 6"
    wrong = grader.grade(problem, WRONG)
    assert wrong.verdict is Verdict.WA
    assert wrong.message == "1 * 12"
    # the same problem under its default judge: the right "3 4" is a wrong answer
    plain = Problem("pairs", Harness.STDIN, list(TESTS))
    assert grader.grade(plain, LARGEST).verdict is Verdict.WA


def test_mcevaluate_grade_takes_checkers(tmp_path):
    tests = [{"input": t.input, "output": t.output} for t in TESTS]
    problems = write_lines(
        tmp_path / "p.jsonl",
        {"id": "pairs", "harness": "stdin", "tests": tests},
        {"id": "plain", "harness": "stdin", "tests": tests},
    )
    samples = write_lines(
        tmp_path / "s.jsonl",
        {"question_id": "pairs", "code_list": [LARGEST, WRONG]},
        {"question_id": "plain", "code_list": [LARGEST]},
    )
    checkers = write_lines(
        tmp_path / "c.jsonl", {"id": "pairs", "check": CHECK}, {"id": "elsewhere", "check": CHECK}
    )
    out = tmp_path / "r.json"
    args = ["grade", "--problems", problems, "--samples", samples, "--checkers", checkers]
    result = CliRunner().invoke(main, [*args, "-o", str(out), "-q", "--time-limit", "3"])
    assert result.exit_code == 0, result.output
    assert f"checkers: 1 of the 2 in {checkers} judge a problem here" in result.stderr
    rows = {row["question_id"]: row for row in json.loads(out.read_text())}
    assert rows["pairs"]["graded_list"] == [True, False]
    assert rows["plain"]["graded_list"] == [False]  # no checker: "3 4" is not "2 6"


def test_mcevaluate_grade_refuses_a_broken_side_file(tmp_path):
    problems = write_lines(tmp_path / "p.jsonl", {"id": "pairs", "harness": "stdin", "tests": []})
    samples = write_lines(tmp_path / "s.jsonl", {"question_id": "pairs", "code_list": ["x"]})
    checkers = write_lines(tmp_path / "c.jsonl", {"id": "pairs", "check": "def check(:"})
    args = ["grade", "--problems", problems, "--samples", samples, "--checkers", checkers]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "--checkers: " in result.output and "c.jsonl:1: problem 'pairs'" in result.output
