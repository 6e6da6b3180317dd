"""Special judges (checkers), in the real sandbox: a problem with many valid answers."""

from __future__ import annotations

import stat
import sys
from concurrent.futures import Future

import pytest

from evaluator.judges.checker import build_checker, exit_verdict, interpret_call
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner.grading import GradeOptions, Grader
from evaluator.sandbox import Job, JobResult, Mode, RunResult, SandboxPool

# "Print two integers a b with 1 < a <= b and a * b == n": many valid answers.
CHECK = """
def check(input, output, expected):
    n = int(input)
    parts = output.split()
    if len(parts) != 2:
        return False, "expected two numbers"
    a, b = int(parts[0]), int(parts[1])
    return (1 < a <= b and a * b == n, f"{a} * {b}")
"""
TESTS = [TestCase("12\n", "2 6\n"), TestCase("35\n", "5 7\n")]
SMALLEST = """
n = int(input())
a = next(d for d in range(2, n) if n % d == 0)
print(a, n // a)
"""
LARGEST = """
n = int(input())
a = max(d for d in range(2, int(n ** 0.5) + 1) if n % d == 0)
print(a, n // a)
"""
WRONG = "n = int(input())\nprint(1, n)"
SLOW = "while True:\n    pass"


def problem(judge, tests=TESTS) -> Problem:
    return Problem("pairs", Harness.STDIN, list(tests), judge=judge)


def python_judge(code: str = CHECK, **extra) -> dict:
    return {"type": "python", "code": code, **extra}


@pytest.fixture(scope="module")
def checker_pool():
    with SandboxPool(workers=1) as own:
        yield own


@pytest.fixture
def grader(pool, checker_pool, tmp_path):
    """Program checkers are read in the test's own directory (``script`` writes them)."""
    options = GradeOptions(time_limit=2, checker_dir=str(tmp_path))
    return Grader(options, pool=pool, checker_pool=checker_pool)


def test_a_different_valid_answer_is_accepted(grader):
    assert grader.grade(problem(python_judge()), SMALLEST).verdict is Verdict.AC
    result = grader.grade(problem(python_judge()), LARGEST)  # "3 4" for 12, not "2 6"
    assert result.verdict is Verdict.AC, result


def test_an_invalid_answer_is_a_wrong_answer_with_the_checker_message(grader):
    result = grader.grade(problem(python_judge()), WRONG)
    assert result.verdict is Verdict.WA
    assert [t.verdict for t in result.tests] == [Verdict.WA, Verdict.WA]
    assert result.message == "1 * 12"


def test_plain_false_is_a_wrong_answer(grader):
    code = "def check(i, o, e):\n    return o.split() == e.split()"
    assert grader.grade(problem(python_judge(code)), LARGEST).verdict is Verdict.WA
    assert grader.grade(problem(python_judge(code)), SMALLEST).verdict is Verdict.AC


def test_a_checker_that_raises_is_an_error_not_a_wrong_answer(grader):
    code = "def check(i, o, e):\n    raise ValueError('broken checker')"
    result = grader.grade(problem(python_judge(code)), SMALLEST)
    assert result.verdict is Verdict.ERROR
    assert "broken checker" in result.message


@pytest.mark.parametrize("value", ["1", "None", "'yes'", "[True]", "(1, 'x')", "(True, 3)"])
def test_a_checker_returning_no_bool_is_an_error(grader, value):
    code = f"def check(i, o, e):\n    return {value}"
    result = grader.grade(problem(python_judge(code)), SMALLEST)
    assert result.verdict is Verdict.ERROR, (value, result)


def test_a_checker_over_its_time_limit_is_an_error(grader):
    code = "def check(i, o, e):\n    while True:\n        pass"
    result = grader.grade(problem(python_judge(code, time_limit=0.5), TESTS[:1]), SMALLEST)
    assert result.verdict is Verdict.ERROR
    assert "TLE" in result.message


def test_candidate_failures_win_and_the_checker_is_not_asked(grader):
    code = "def check(i, o, e):\n    raise ValueError('must not be called')"
    result = grader.grade(problem(python_judge(code), TESTS[:1]), SLOW)
    assert result.verdict is Verdict.TLE
    result = grader.grade(
        problem(python_judge(code), TESTS[:1]), "print(2, 6)\nraise SystemExit(3)"
    )
    assert result.verdict is Verdict.RE


def test_a_broken_spec_is_an_error_before_running(grader):
    for judge in (
        python_judge("def check(:"),
        python_judge(CHECK, colour="red"),
        {"type": "python"},
        {"type": "program", "path": "/nonexistent/checker"},
        python_judge(CHECK, time_limit=-1),
    ):
        result = grader.grade(problem(judge), SMALLEST)
        assert result.verdict is Verdict.ERROR, judge
        assert result.tests == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("time_limit", float("inf")), ("time_limit", 1e300), ("memory_limit", 10**12)],
)
def test_a_checker_limit_out_of_bounds_is_refused_naming_it(grader, key, value):
    """Limits a spec gives are a row's data: within the ceilings of a limit from data
    (:mod:`evaluator.default_limits`), else an ERROR naming the key, nothing run."""
    judge = python_judge(CHECK, **{key: value})
    with pytest.raises(ValueError, match=rf"^checker {key}: at most"):
        build_checker(judge)
    result = grader.grade(problem(judge), SMALLEST)
    assert result.verdict is Verdict.ERROR and result.tests == []
    assert f"checker {key}: at most" in result.message


class SpyPool:
    """Delegates to a real pool and records every job submitted."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool, self.jobs = pool, []

    def submit(self, job: Job, on_result=None) -> Future[JobResult]:
        self.jobs.append(job)
        return self.pool.submit(job, on_result)


def test_the_candidate_job_never_holds_the_expected_output(pool):
    spy, checker_spy = SpyPool(pool), SpyPool(pool)
    grader = Grader(GradeOptions(time_limit=2), pool=spy, checker_pool=checker_spy)  # type: ignore[arg-type]
    tests = [TestCase("12\n", "EXPECTED-SECRET-12\n"), TestCase("35\n", "EXPECTED-SECRET-35\n")]
    code = "def check(i, o, e):\n    return e.startswith('EXPECTED-SECRET')"
    assert grader.grade(problem(python_judge(code), tests), SMALLEST).verdict is Verdict.AC
    assert len(spy.jobs) == 1 and spy.jobs[0].code == SMALLEST  # only the candidate's job
    candidate = spy.jobs[0]
    assert candidate.mode is Mode.STDIN and candidate.inputs == ["12\n", "35\n"]
    assert "SECRET" not in repr(candidate.to_wire())
    assert len(checker_spy.jobs) == 2
    assert all(job.mode is Mode.CALL and job.func_name == "check" for job in checker_spy.jobs)


def test_checkers_get_a_pool_of_their_own_by_default(pool):
    with Grader(GradeOptions(time_limit=2), pool=pool) as grader:
        assert grader.grade(problem(python_judge()), SMALLEST).verdict is Verdict.AC
        assert grader.checker_pool is not pool  # no candidate's fork server sees expected output


def test_many_checked_gradings_in_parallel_do_not_deadlock(grader):
    items = [(problem(python_judge()), SMALLEST), (problem(python_judge()), WRONG)] * 6
    results = grader.grade_many(items)
    assert [r.verdict for r in results] == [Verdict.AC, Verdict.WA] * 6


def test_early_exit_with_a_checker(pool, checker_pool):
    grader = Grader(
        GradeOptions(time_limit=2, early_exit=True), pool=pool, checker_pool=checker_pool
    )
    assert grader.grade(problem(python_judge()), SMALLEST).verdict is Verdict.AC
    assert grader.grade(problem(python_judge()), WRONG).verdict is Verdict.WA
    result = grader.grade(problem(python_judge()), SLOW)
    assert [t.verdict for t in result.tests] == [Verdict.TLE, Verdict.SKIPPED]


# -- program checkers (testlib convention) ------------------------------------------------------

PROGRAM = """#!{python}
import sys
inp, out, ans = (open(p).read() for p in sys.argv[1:4])
n = int(inp)
try:
    a, b = map(int, out.split())
except ValueError:
    print("not two numbers", file=sys.stderr)
    sys.exit(2)
if 1 < a <= b and a * b == n:
    sys.exit(0)
print(f"wrong pair {{a}} {{b}}", file=sys.stderr)
sys.exit(1)
"""


def script(tmp_path, body: str, name: str = "checker.py") -> str:
    path = tmp_path / name
    path.write_text(body.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_program_checker_accepts_and_rejects(grader, tmp_path):
    judge = {"type": "program", "path": script(tmp_path, PROGRAM)}
    assert grader.grade(problem(judge), LARGEST).verdict is Verdict.AC
    result = grader.grade(problem(judge), WRONG)
    assert result.verdict is Verdict.WA
    assert result.message == "wrong pair 1 12"
    result = grader.grade(problem(judge), "print('hello')")  # exit 2: presentation error
    assert result.verdict is Verdict.WA
    assert result.message == "not two numbers"


def test_program_checker_exit_3_is_an_error(grader, tmp_path):
    body = "#!{python}\nimport sys\nprint('checker bug', file=sys.stderr)\nsys.exit(3)\n"
    result = grader.grade(problem({"type": "program", "path": script(tmp_path, body)}), SMALLEST)
    assert result.verdict is Verdict.ERROR
    assert "exit status 3" in result.message and "checker bug" in result.message


def test_program_checker_crash_timeout_and_bad_start_are_errors(grader, tmp_path):
    crash = "#!{python}\nimport os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    slow = "#!{python}\nimport time\ntime.sleep(60)\n"
    bad = "#!/nonexistent/interpreter\n"
    for name, body, extra in (("crash", crash, {}), ("slow", slow, {"time_limit": 0.2})):
        judge = {"type": "program", "path": script(tmp_path, body, name), **extra}
        result = grader.grade(problem(judge, TESTS[:1]), SMALLEST)
        assert result.verdict is Verdict.ERROR, (name, result)
    judge = {"type": "program", "path": script(tmp_path, bad, "bad")}
    result = grader.grade(problem(judge, TESTS[:1]), SMALLEST)
    assert result.verdict is Verdict.ERROR
    assert "cannot start" in result.message


def test_program_checker_gets_the_three_files(tmp_path):
    body = (
        "#!{python}\nimport sys\n"
        "print(*(open(p).read() for p in sys.argv[1:4]), sep='|', file=sys.stderr)\n"
    )
    checker = build_checker({"type": "program", "path": script(tmp_path, body)}, str(tmp_path))
    assert checker.run("in", b"out", "ans") == (Verdict.AC, "in|out|ans")


# -- the pure pieces ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "verdict", "message"),
    [
        ("true", Verdict.AC, ""),
        ("false", Verdict.WA, "rejected by the checker"),
        ('[true, "fine"]', Verdict.AC, "fine"),
        ('[false, "off by one"]', Verdict.WA, "off by one"),
        ("1", Verdict.ERROR, None),
        ('[1, "x"]', Verdict.ERROR, None),
        ('[true, "x", 3]', Verdict.ERROR, None),
        ("null", Verdict.ERROR, None),
    ],
)
def test_interpret_call(value, verdict, message):
    got = interpret_call(RunResult(status="ok", value=value))
    assert got[0] is verdict
    if message is not None:
        assert got[1] == message


@pytest.mark.parametrize(
    ("status", "verdict"),
    [(0, Verdict.AC), (1, Verdict.WA), (2, Verdict.WA), (3, Verdict.ERROR), (7, Verdict.ERROR),
     (-11, Verdict.ERROR), (None, Verdict.ERROR), (127, Verdict.ERROR)],
)  # fmt: skip
def test_exit_verdict(status, verdict):
    assert exit_verdict(status, "")[0] is verdict
