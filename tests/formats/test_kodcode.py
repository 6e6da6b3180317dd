"""KodCode rows (``evaluator/formats/sources/kodcode.py``) and their pytest files, run by real pytest
(``evaluator/harness/pytest_file.py``) in the real sandbox.

The rows are ours, in KodCode-V1's shape (``tests/data/sources/kodcode``); every verdict
asserted for a program of those rows is plain pytest's (9.x; ``tests/harness/pytest_reference.py``
runs it where a test says so), or a documented deviation (``docs/kodcode.md``).
``tests/harness/test_pytest_real.py`` holds the differential conformance cases."""

from __future__ import annotations

import copy
import json
import os
import re
import textwrap
from pathlib import Path

import pytest

from evaluator.formats import InputError, problem_from_ours, problem_to_ours, read_problems
from evaluator.formats.registry import detect_format, get_format, problem_from_record
from evaluator.formats.sources.kodcode import FORMAT
from evaluator.harness import pytest_file
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.reward import CodeReward
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, SandboxPool
from evaluator.sandbox.pool import DEFAULT_HEAVY
from tests.harness.pytest_reference import plain_pytest

FOLDER = Path(os.environ["MICROCODER_TEST_DATA"]) / "sources" / "kodcode"
ROWS = [json.loads(line) for line in (FOLDER / "problems.jsonl").read_text().splitlines()]
SAMPLES = {
    record["question_id"]: record["code_list"]
    for record in map(json.loads, (FOLDER / "samples.jsonl").read_text().splitlines())
}
BY_ID = {row["question_id"]: row for row in ROWS}


@pytest.fixture(scope="module")
def grader(pool):
    return Grader(GradeOptions(time_limit=4.0), pool=pool)


def _problem(tests: str) -> Problem:
    """A KodCode problem whose pytest file is ``tests``."""
    row = {"question_id": "Kod_1_I", "test": textwrap.dedent(tests), "test_info": []}
    return FORMAT.problem(row)


def _grade(grader, tests: str, program: str):
    return grader.grade(_problem(tests), textwrap.dedent(program))


# --- reading -------------------------------------------------------------------------------


def test_rows_are_read():
    problems = {p.id: p for p in read_problems(FOLDER / "problems.jsonl")}
    assert list(problems) == [row["question_id"] for row in ROWS]
    entry = {pid: p.entry_point for pid, p in problems.items()}
    assert entry == {
        "Leetcode_90001_I": "moving_average",
        "Data_Structure_90002_I": "MinStack",
        "Prefill_90003_C": "print_triangle",
        "Filter_90004_I": "count_words",  # test_entry_point: an older revision's row
        "Codeforces_90005_I": "longest_run",
        "Docs_90006_I": "shout",
    }
    for row in ROWS:
        problem = problems[row["question_id"]]
        assert problem.harness is Harness.ASSERTION
        assert problem.tests == [TestCase("", "")]
        assert problem.test_code == row.get("test", row.get("test_code"))
        assert problem.prompt == ""
        assert problem.environment == "plain"  # not LeetCode's, whatever the subset
        assert problem.metadata["test_runner"] == "pytest"
        assert problem.metadata["platform"] == row["subset"]
        assert problem.metadata["difficulty"] == row["gpt_difficulty"]


def test_format_is_found_by_keys_and_names():
    for row in ROWS:
        assert detect_format(row).name == "kodcode"
    assert get_format("KodCode/KodCode-V1") is FORMAT
    assert get_format("kodcode/kodcode-light-rl-10k") is FORMAT
    row = BY_ID["Leetcode_90001_I"]
    assert FORMAT.statement(row) == row["question"]
    assert [s.code for s in FORMAT.references(row)] == [row["solution"]]
    assert [s.language for s in FORMAT.references(row)] == ["python"]


def test_round_trip_through_our_schema_keeps_the_runner(grader):
    problem = problem_from_record(BY_ID["Prefill_90003_C"])
    again = problem_from_ours(json.loads(json.dumps(problem_to_ours(problem))))
    assert again.test_code == problem.test_code and again.metadata == problem.metadata
    right, wrong = SAMPLES["Prefill_90003_C"]
    assert grader.grade(again, right).verdict is Verdict.AC
    assert grader.grade(again, wrong).verdict is Verdict.RE


def _without(row, key):
    row = copy.deepcopy(row)
    del row[key]
    return row


def _with(row, key, value):
    row = copy.deepcopy(row)
    row[key] = value
    return row


@pytest.mark.parametrize(
    ("record", "field"),
    [
        (_without(BY_ID["Leetcode_90001_I"], "test"), "test"),
        (_with(BY_ID["Leetcode_90001_I"], "test", ["def test_a(): pass"]), "test"),
        (_with(BY_ID["Leetcode_90001_I"], "test", "  \n"), "test"),
        (_with(BY_ID["Filter_90004_I"], "test_code", 7), "test_code"),
        (_without(BY_ID["Leetcode_90001_I"], "question_id"), "question_id"),
        (_with(BY_ID["Leetcode_90001_I"], "question_id", 12), "question_id"),
        (_with(BY_ID["Leetcode_90001_I"], "test_info", "moving_average"), "test_info"),
        (_with(BY_ID["Leetcode_90001_I"], "test_info", [{"function_name": "f"}, 3]), None),
        (_with(BY_ID["Leetcode_90001_I"], "test_info", [3]), "test_info[0]"),
        (
            _with(BY_ID["Leetcode_90001_I"], "test_info", [{"function_name": ["f"]}]),
            "test_info[0].function_name",
        ),
        (_with(BY_ID["Filter_90004_I"], "test_entry_point", 3), "test_entry_point"),
    ],
)
def test_errors_name_the_field(record, field):
    if field is None:  # the first entry names the function: the rest is not read
        assert FORMAT.problem(record).entry_point == "f"
        return
    with pytest.raises(InputError) as caught:
        FORMAT.problem(record, path="rows.jsonl", line=3)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"rows.jsonl:3: field '{field}'")


# --- grading the rows -----------------------------------------------------------------------


@pytest.mark.parametrize("question_id", list(BY_ID))
def test_reference_passes_and_wrong_program_fails(grader, question_id):
    problem = problem_from_record(BY_ID[question_id])
    right, wrong = SAMPLES[question_id]
    assert grader.grade(problem, right).verdict is Verdict.AC
    result = grader.grade(problem, wrong)
    assert result.verdict is Verdict.RE
    assert result.message.startswith("TestsFailed: FAILED test_solution.py::")


def test_failures_name_the_test_and_why(grader):
    problems = {pid: problem_from_record(row) for pid, row in BY_ID.items()}
    messages = {pid: grader.grade(problems[pid], SAMPLES[pid][1]).message for pid in problems}
    assert messages["Leetcode_90001_I"] == (  # pytest 8.3: "<class 'ValueError'>"
        "TestsFailed: FAILED test_solution.py::test_bad_k[4] - Failed: DID NOT RAISE ValueError"
    )
    assert messages["Data_Structure_90002_I"].startswith(
        "TestsFailed: FAILED test_solution.py::TestEmpty::test_raises[get_min] - ValueError: "
    )
    assert messages["Codeforces_90005_I"] == (  # pytest's rewritten assert
        "TestsFailed: FAILED test_solution.py::test_empty - assert 1 == 0"
    )


@pytest.mark.parametrize("isolation", list(Isolation))
def test_every_isolation_level(pool, isolation):
    grader = Grader(GradeOptions(time_limit=4.0, isolation=isolation), pool=pool)
    problem = problem_from_record(BY_ID["Data_Structure_90002_I"])
    right, wrong = SAMPLES["Data_Structure_90002_I"]
    assert grader.grade(problem, right).verdict is Verdict.AC
    assert grader.grade(problem, wrong).verdict is Verdict.RE


def test_reward_reads_kodcode_columns(pool):
    row = BY_ID["Leetcode_90001_I"]
    right, wrong = SAMPLES["Leetcode_90001_I"]
    columns = {key: [row[key]] * 3 for key in ("question_id", "question", "test", "test_info")}
    answers = [f"```python\n{code}```" for code in (right, wrong, "def moving_average(a, k):\n")]
    with CodeReward(pool=pool) as reward:
        assert reward(None, answers, **columns) == [1.0, 0.0, 0.0]
        assert reward.last_verdicts == ["AC", "RE", "RE"]


# --- what a pass needs ---------------------------------------------------------------------

SQUARE_TESTS = """\
    from solution import square
    import pytest

    @pytest.mark.parametrize("x, expected", [(0, 0), (1, 1), (2, 4), (3, 9), (-4, 16)])
    def test_square(x, expected):
        assert square(x) == expected
    """
SQUARE = "def square(x):\n    return x * x\n"


def test_one_failing_parametrized_case_fails_the_whole(grader):
    assert _grade(grader, SQUARE_TESTS, SQUARE).verdict is Verdict.AC
    wrong = "def square(x):\n    return x * x if x != 3 else 8\n"
    result = _grade(grader, SQUARE_TESTS, wrong)
    assert result.verdict is Verdict.RE
    assert "test_square[3-9]" in result.message


def test_stacked_parametrize_runs_every_combination(grader):
    tests = """\
        import pytest
        from solution import seen

        @pytest.mark.parametrize("a", [1, 2, 3])
        @pytest.mark.parametrize("b", ["x", "y"])
        def test_pairs(a, b):
            seen.append((a, b))

        def test_all_seen():
            assert sorted(seen) == [(a, b) for a in (1, 2, 3) for b in "xy"]
        """
    assert _grade(grader, tests, "seen = []\n").verdict is Verdict.AC
    tests_dropping_one = tests.replace(
        '["x", "y"]', '["x", pytest.param("y", marks=pytest.mark.skip)]'
    )
    assert _grade(grader, tests_dropping_one, "seen = []\n").verdict is Verdict.RE


RAISES_TESTS = """\
    import pytest
    from solution import parse_age

    def test_rejects_negative():
        with pytest.raises(ValueError, match=r"negative: -\\d+"):
            parse_age("-3")

    def test_reads():
        assert parse_age("42") == 42
    """


@pytest.mark.parametrize(
    ("program", "verdict", "message"),
    [
        (
            "def parse_age(s):\n    n = int(s)\n    if n < 0:\n        raise ValueError(f'negative: {n}')\n    return n\n",
            Verdict.AC,
            "",
        ),
        (
            "def parse_age(s):\n    return int(s)\n",
            Verdict.RE,
            "DID NOT RAISE ValueError",
        ),
        (
            "def parse_age(s):\n    raise ValueError('bad')\n",
            Verdict.RE,
            "Regex pattern did not match",
        ),
        (
            "def parse_age(s):\n    raise TypeError('negative: -3')\n",
            Verdict.RE,
            "TypeError: negative: -3",
        ),
    ],
)
def test_pytest_raises(grader, program, verdict, message):
    result = _grade(grader, RAISES_TESTS, program)
    assert result.verdict is verdict
    assert message in result.message


APPROX_TESTS = """\
    import pytest
    from solution import stats

    def test_mean():
        assert stats([0.1, 0.2, 0.3])["mean"] == pytest.approx(0.2)

    def test_all():
        assert stats([1.0, 2.0, 4.0]) == pytest.approx({"mean": 7 / 3, "spread": 3.0})

    def test_sequence_and_tolerances():
        values = stats([1.0, 2.0])
        assert [values["mean"], values["spread"]] == pytest.approx([1.5, 1.0])
        assert values["mean"] == pytest.approx(1.49, abs=0.02)
        assert values["mean"] != pytest.approx(1.49, rel=1e-3)
    """
STATS = "def stats(xs):\n    return {'mean': sum(xs) / len(xs), 'spread': max(xs) - min(xs)}\n"


@pytest.mark.parametrize(
    ("program", "verdict"),
    [
        (STATS, Verdict.AC),
        (STATS.replace("sum(xs) / len(xs)", "sum(xs) / len(xs) * (1 + 1e-7)"), Verdict.AC),
        (STATS.replace("sum(xs) / len(xs)", "sum(xs) / len(xs) * (1 + 1e-5)"), Verdict.RE),
        (STATS.replace("sum(xs) / len(xs)", "round(sum(xs) / len(xs), 3)"), Verdict.RE),
    ],
)
def test_pytest_approx(grader, program, verdict):
    assert _grade(grader, APPROX_TESTS, program).verdict is verdict


def test_approx_defaults_match_pytest(grader):
    tests = """\
        import math
        import pytest

        def test_defaults():
            assert 1e-13 == pytest.approx(0.0)  # abs 1e-12
            assert 1e-11 != pytest.approx(0.0)
            assert 1_000_000.9 == pytest.approx(1_000_000.0)  # rel 1e-6
            assert 1_000_002.0 != pytest.approx(1_000_000.0)
            assert 1.5 != pytest.approx(1.0, abs=0.1)  # abs alone: no rel
            assert 1.05 == pytest.approx(1.0, abs=0.1)
            assert math.nan != pytest.approx(math.nan)
            assert math.nan == pytest.approx(math.nan, nan_ok=True)
            assert math.inf == pytest.approx(math.inf) and math.inf != pytest.approx(1e308)
            assert (0.1 + 0.2, 3) == pytest.approx((0.3, 3))
            assert [1.0, 2.0] != pytest.approx([1.0])
            assert 1 != pytest.approx(True) and True == pytest.approx(1)
            assert "text" == pytest.approx("text")

        def test_nested_is_an_error():
            with pytest.raises(TypeError):
                pytest.approx([[1.0]])
            with pytest.raises(TypeError):  # pytest 9: a tuple in a list is nested too
                pytest.approx([1.0, (1, 2)])
            with pytest.raises(TypeError):
                pytest.approx({1.0, 2.0})
        """
    assert _grade(grader, tests, "x = 1\n").verdict is Verdict.AC


FIXTURE_TESTS = """\
    import pytest
    from solution import Counter

    events = []

    @pytest.fixture(scope="module")
    def shared():
        events.append("module setup")
        yield Counter()
        events.append("module teardown")

    @pytest.fixture
    def counter(shared):
        events.append("setup")
        yield shared
        events.append("teardown")

    @pytest.fixture(params=[1, 2])
    def step(request):
        return request.param

    @pytest.fixture(autouse=True)
    def mark():
        events.append("autouse")

    def test_first(counter, step):
        assert counter.add(step) in (1, 3)

    def test_events():  # higher scopes are set up first, then autouse fixtures
        assert events == [
            "module setup", "autouse", "setup", "teardown",
            "autouse", "setup", "teardown",
            "autouse",
        ]

    class TestInClass:
        @pytest.fixture
        def doubled(self, step):
            return 2 * step

        def test_doubled(self, doubled, step):
            assert doubled == 2 * step
    """
COUNTER = "class Counter:\n    total = 0\n    def add(self, n):\n        self.total += n\n        return self.total\n"


def test_fixtures(grader):
    assert _grade(grader, FIXTURE_TESTS, COUNTER).verdict is Verdict.AC
    wrong = COUNTER.replace("self.total += n", "self.total = n")
    assert _grade(grader, FIXTURE_TESTS, wrong).verdict is Verdict.RE


@pytest.mark.parametrize(
    ("tests", "message"),
    [
        (
            """\
            import pytest
            @pytest.fixture
            def broken():
                yield 1
                raise RuntimeError("cleanup failed")
            def test_a(broken):
                assert broken == 1
            """,
            "ERROR at teardown of test_solution.py::test_a - RuntimeError: cleanup failed",
        ),
        (
            """\
            import pytest
            @pytest.fixture
            def broken():
                raise RuntimeError("no database")
            def test_a(broken):
                pass
            """,
            "ERROR at setup of test_solution.py::test_a - RuntimeError: no database",
        ),
        (
            """\
            import pytest
            @pytest.fixture
            def value():
                return 1
            def test_a():
                assert value() == 1
            """,
            "called directly",
        ),
    ],
)
def test_fixture_errors_fail(grader, tests, message):
    result = _grade(grader, tests, "x = 1\n")
    assert result.verdict is Verdict.RE
    assert message in result.message


BUILTIN_FIXTURES = """\
    import logging
    import os
    import warnings
    import pytest
    import solution
    from solution import greet, home, read_first, old

    def test_capsys(capsys):
        assert greet("ann") == 3
        out, err = capsys.readouterr()
        assert (out, err) == ("hi ann\\n", "")
        print("again")
        assert capsys.readouterr().out == "again\\n"

    def test_monkeypatch(monkeypatch):
        monkeypatch.setenv("HOME_DIR", "/x")
        monkeypatch.setattr(solution, "PREFIX", ">")
        monkeypatch.setattr("builtins.input", lambda: "typed")
        assert home() == ">/x typed"

    def test_monkeypatch_undone():
        assert "HOME_DIR" not in os.environ and solution.PREFIX == ""

    def test_tmp_path(tmp_path):
        (tmp_path / "a.txt").write_text("first\\nsecond\\n")
        assert read_first(tmp_path / "a.txt") == "first"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]

    def test_caplog(caplog):
        caplog.set_level(logging.INFO)
        greet("bo")
        assert caplog.messages == ["greeted bo"]
        assert caplog.record_tuples == [("sol", logging.INFO, "greeted bo")]

    def test_warns(recwarn):
        with pytest.warns(DeprecationWarning, match="old"):
            old()
        old()
        assert recwarn.pop(DeprecationWarning)
    """
BUILTIN_PROGRAM = """\
    import logging, os, warnings
    PREFIX = ""
    def greet(name):
        print(f"hi {name}")
        logging.getLogger("sol").info("greeted %s", name)
        return len(name)
    def home():
        return PREFIX + os.environ.get("HOME_DIR", "") + " " + input()
    def read_first(path):
        with open(path) as f:
            return f.readline().strip()
    def old():
        warnings.warn("old api", DeprecationWarning)
    """


def test_builtin_fixtures(grader):
    assert _grade(grader, BUILTIN_FIXTURES, BUILTIN_PROGRAM).verdict is Verdict.AC
    wrong = BUILTIN_PROGRAM.replace('print(f"hi {name}")', 'print(f"hi {name} ")')
    result = _grade(grader, BUILTIN_FIXTURES, wrong)
    assert result.verdict is Verdict.RE and "test_capsys" in result.message
    no_log = BUILTIN_PROGRAM.replace(".info(", ".debug(")
    result = _grade(grader, BUILTIN_FIXTURES, no_log)
    assert result.verdict is Verdict.RE and "test_caplog" in result.message


MARKS_TESTS = """\
    import sys
    import pytest
    from solution import half

    @pytest.mark.skip(reason="not yet")
    def test_skipped():
        assert half(1) == 99

    @pytest.mark.skipif(sys.version_info >= (3, 0), reason="py2 only")
    def test_skipif():
        assert half(1) == 99

    @pytest.mark.xfail(reason="odd numbers", raises=AssertionError)
    def test_xfail():
        assert half(3) == 1.5

    def test_imperative_skip():
        pytest.skip("later")

    def test_even():
        assert half(4) == 2
    """


@pytest.mark.parametrize(
    ("program", "verdict"),
    [
        ("def half(x):\n    return x // 2\n", Verdict.AC),  # xfail fails as expected
        ("def half(x):\n    return x / 2\n", Verdict.AC),  # xpass, not strict
        ("def half(x):\n    return x // 3\n", Verdict.RE),
        # test_xfail fails, but not with the xfail's `raises`
        (
            "def half(x):\n    if x == 3:\n        raise KeyError(x)\n    return x // 2\n",
            Verdict.RE,
        ),
    ],
)
def test_skip_and_xfail(grader, program, verdict):
    assert _grade(grader, MARKS_TESTS, program).verdict is verdict


def test_strict_xpass_and_nothing_passed_fail(grader):
    strict = """\
        import pytest
        @pytest.mark.xfail(strict=True)
        def test_x():
            assert True
        def test_y():
            assert True
        """
    assert "XPASS(strict)" in _grade(grader, strict, "x = 1\n").message
    skipped = """\
        import pytest
        @pytest.mark.skip
        def test_x():
            assert False
        """
    result = _grade(grader, skipped, "x = 1\n")
    assert result.verdict is Verdict.RE and "no test passed" in result.message


def test_unittest_cases(grader):
    tests = """\
        import unittest
        from solution import Queue

        class TestQueue(unittest.TestCase):
            def setUp(self):
                self.q = Queue()

            def test_fifo(self):
                self.q.put(1)
                self.q.put(2)
                self.assertEqual(self.q.get(), 1)

            def test_empty(self):
                with self.assertRaises(IndexError):
                    self.q.get()
        """
    right = "class Queue:\n    def __init__(self):\n        self.items = []\n    def put(self, x):\n        self.items.append(x)\n    def get(self):\n        return self.items.pop(0)\n"
    assert _grade(grader, tests, right).verdict is Verdict.AC
    assert _grade(grader, tests, right.replace("pop(0)", "pop()")).verdict is Verdict.RE
    cheat = (
        "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"
        + right.replace("pop(0)", "pop()")
    )
    # the program and the tests share unittest, as under pytest: the cheat works there too
    assert _grade(grader, tests, cheat).verdict is Verdict.AC


# --- the program is imported as pytest imports solution.py ------------------------------------

ADD_TESTS = """\
    from solution import add

    def test_add():
        assert add(2, 3) == 5
    """
ADD = "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize(
    "program",
    [
        "import sys\nsys.exit(0)\n" + ADD,
        ADD + "raise SystemExit(0)\n",
        ADD + "import os\nos._exit(0)\n",  # pytest: exit status 0 (a deviation)
        "import sys\ndef add(a, b):\n    sys.exit(0)\n",
        "import os\ndef add(a, b):\n    os._exit(0)\n",  # likewise
        ADD.replace("a + b", "a - b")
        + "import sys\nsys.modules['__main__'].check = lambda candidate: None\n",
        ADD.replace("a + b", "a - b"),
        "def add(a, b):\n    return a + b\ndef add(a, b):\n    return 0\n",
    ],
)
def test_exits_and_wrong_programs_never_pass(grader, program):
    result = _grade(grader, ADD_TESTS, program)
    assert result.verdict is Verdict.RE, result


def test_main_block_does_not_run(grader):
    program = (
        ADD
        + "\nif __name__ == '__main__':\n    a, b = map(int, input().split())\n    print(add(a, b))\n    raise SystemExit(3)\n"
    )
    assert _grade(grader, ADD_TESTS, program).verdict is Verdict.AC
    tests = "import solution\n\ndef test_name():\n    assert solution.__name__ == 'solution'\n"
    assert _grade(grader, tests, ADD).verdict is Verdict.AC


def test_tests_using_a_class_from_the_solution(grader):
    tests = """\
        from solution import Point, distance

        def test_distance():
            assert distance(Point(0, 0), Point(3, 4)) == 5.0

        def test_point_is_the_solutions():
            assert Point(1, 2).coords() == (1, 2)
        """
    right = """\
        class Point:
            def __init__(self, x, y):
                self.x, self.y = x, y
            def coords(self):
                return (self.x, self.y)
        def distance(p, q):
            return ((p.x - q.x) ** 2 + (p.y - q.y) ** 2) ** 0.5
        """
    assert _grade(grader, tests, right).verdict is Verdict.AC
    assert (
        _grade(grader, tests, right.replace("(self.x, self.y)", "[self.x, self.y]")).verdict
        is Verdict.RE
    )
    assert _grade(grader, tests, right.replace("class Point", "class Pt")).verdict is Verdict.RE


# --- what a program can change: what it can under pytest -------------------------------------

GUARDED_TESTS = """\
    from solution import *
    import pytest

    def test_values():
        assert all([solve(2) == 4])
        assert len([solve(3)]) == 1 and solve(3) == 9

    def test_raises():
        with pytest.raises(ValueError):
            solve(-1)

    def test_close():
        assert solve(0.5) == pytest.approx(0.25)
    """
SOLVE = "def solve(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x * x\n"
NO_RAISE = "def solve(x):\n    return x * x\n"  # fails test_raises only
WRONG_AT_2 = SOLVE.replace("return x * x", "return 5 if x == 2 else x * x")  # test_values only


@pytest.mark.parametrize(
    ("program", "verdict"),
    [
        # pytest is one module, the program's and the tests': changing it works, as under pytest
        (
            NO_RAISE
            + "import pytest, contextlib\n"
            + "pytest.raises = lambda *a, **k: contextlib.suppress(BaseException)\n",
            Verdict.AC,
        ),
        (
            "import sys, contextlib\ndef solve(x):\n"
            "    sys.modules['pytest'].raises = lambda *a, **k: contextlib.suppress(BaseException)\n"
            "    return x * x\n",
            Verdict.AC,
        ),
        # builtins the star import shadows, or replaced: the tests see them, as under pytest
        (WRONG_AT_2 + "all = lambda *a: True\n", Verdict.AC),
        (WRONG_AT_2 + "__all__ = ['solve', 'all']\nall = lambda *a: True\n", Verdict.AC),
        (WRONG_AT_2 + "import builtins\nbuiltins.all = lambda *a: True\n", Verdict.AC),
        # marks the star import brings: every test xfailed or skipped passes under pytest;
        # here a pass needs a test that passed (docs/kodcode.md, a deviation)
        (NO_RAISE + "import pytest\npytestmark = pytest.mark.xfail\n", Verdict.RE),
        (NO_RAISE + "import pytest\npytestmark = [pytest.mark.skip]\n", Verdict.RE),
        # the failing test skipped or xfailed from the program, the others passed: as pytest
        (
            "import pytest\ndef solve(x):\n    if x < 0:\n        pytest.skip('later')\n    return x * x\n",
            Verdict.AC,
        ),
        (
            "import pytest\ndef solve(x):\n    if x < 0:\n        pytest.xfail('later')\n    return x * x\n",
            Verdict.AC,
        ),
        # a test of its own is replaced by the tests' (defined after the star import)
        (NO_RAISE + "def test_raises():\n    pass\n", Verdict.RE),
        # the bootstrap's names replaced: pytest's verdict is not kept there
        (
            NO_RAISE
            + "import sys\nmain = sys.modules['__main__']\n"
            + "for name in list(vars(main)):\n"
            + "    if not name.startswith('__'):\n"
            + "        setattr(main, name, lambda *a, **k: None)\n",
            Verdict.RE,
        ),
    ],
)
def test_a_program_changes_what_it_could_under_pytest(grader, program, verdict):
    """Each verdict is plain pytest's (checked: ``tests/harness/pytest_reference.py``), but
    the all-xfailed and all-skipped files, which pytest passes."""
    assert _grade(grader, GUARDED_TESTS, SOLVE).verdict is Verdict.AC
    result = _grade(grader, GUARDED_TESTS, program)
    assert result.verdict is verdict, result
    if verdict is Verdict.RE and "pytestmark" not in program:
        assert re.search(r"::test_(raises|values) - ", result.message), result.message


def test_the_jobs_copy_of_the_tests_is_not_in_linecache_or_main(grader):
    """The job carries the tests as a constant of its bootstrap, whose source linecache keeps
    under the run directory's ``solution.py``: taken out before pytest runs (the program
    may read ``test_solution.py`` itself, as under pytest)."""
    program = SOLVE + textwrap.dedent(
        """\
        import linecache, sys
        def _holds(value):  # a line of the tests, never written whole in this program
            return isinstance(value, str) and "assert all(" + "[solve(2)" in value
        if any(_holds("".join(entry[2] or [])) for entry in list(linecache.cache.values())
               if len(entry) > 2):
            raise SystemExit("found in linecache")
        if any(_holds(value) for value in vars(sys.modules["__main__"]).values()):
            raise SystemExit("found in __main__")
        """
    )
    assert _grade(grader, GUARDED_TESTS, program).verdict is Verdict.AC


# --- what the built-in runner refused runs as under pytest ---------------------------------------


@pytest.mark.parametrize(
    ("tests", "feature"),
    [
        ("def test_a(capfd):\n    pass\n", "'capfd'"),
        ("def test_a(tmpdir):\n    pass\n", "'tmpdir'"),
        ("def test_a(mocker):\n    pass\n", "'mocker'"),
        ("def test_a(db):\n    pass\n", "'db', which neither they nor pytest define"),
        (
            "import pytest\ndef test_a():\n    pytest.register_assert_rewrite('x')\n",
            "pytest.register_assert_rewrite",
        ),
        ("from pytest import MonkeyPatch, Pytester\ndef test_a():\n    pass\n", "pytest.Pytester"),
        (
            "import pytest\n@pytest.mark.parametrize('x', [1], indirect=True)\ndef test_a(x):\n    pass\n",
            "indirect parametrization",
        ),
        (
            "import pytest\n@pytest.mark.parameterize('x', [1])\ndef test_a(x):\n    pass\n",
            "parameterize",
        ),
        (
            "def pytest_generate_tests(metafunc):\n    pass\ndef test_a():\n    pass\n",
            "pytest_generate_tests",
        ),
        ("import pytest_asyncio\ndef test_a():\n    pass\n", "pytest_asyncio"),
        (
            "import pytest\n@pytest.fixture\nasync def db():\n    return 1\ndef test_a(db):\n    pass\n",
            "async fixture db",
        ),
        ("def test_a(request):\n    assert request.config\n", "request.config"),
        ("def test_a(capsys):\n    capsys.readouterr_bytes()\n", "capsys.readouterr_bytes"),
        (
            "import pytest\n@pytest.fixture(scope=lambda **k: 'module')\ndef f():\n    pass\ndef test_a(f):\n    pass\n",
            "scope",
        ),
        ("pytest_plugins = ['x']\ndef test_a():\n    pass\n", "pytest_plugins"),
        ("def helper():\n    assert True\n", "no test function"),
        ("def test_a(:\n    pass\n", "do not compile"),
    ],
)
def test_features_the_old_runner_refused_run_as_under_pytest(grader, tmp_path, tests, feature):
    """Fixtures, hooks, plugins and marks the built-in runner refused (the problem's
    ``ERROR``) run under real pytest: the verdict is plain pytest's, an error included."""
    passes = plain_pytest(ADD, tests, tmp_path)
    result = _grade(grader, tests, ADD)
    assert result.verdict is (Verdict.AC if passes else Verdict.RE), (feature, result)


def test_the_job_forks_the_pytest_template():
    """The bootstrap names pytest and never NumPy: the default pool forks it from its pytest
    template (pytest and its session's modules imported), not NumPy's."""
    code = pytest_file.job_code("x = 1\n", "def test_a():\n    pass\n")
    assert not re.search(r"\bnumpy\b", code)
    assert re.search(r"\bpytest\b", code)
    assert DEFAULT_HEAVY[1][0] == "pytest"


def test_a_pool_without_the_pytest_template_gives_the_same_verdicts():
    """The child imports pytest itself there: slower, the same verdicts."""
    with SandboxPool(workers=1, heavy=[("numpy",)]) as pool:
        grader = Grader(GradeOptions(time_limit=4.0), pool=pool)
        problem = problem_from_record(BY_ID["Leetcode_90001_I"])
        right, wrong = SAMPLES["Leetcode_90001_I"]
        assert grader.grade(problem, right).verdict is Verdict.AC
        assert grader.grade(problem, wrong).verdict is Verdict.RE
        assert (
            _grade(grader, ADD_TESTS, "import os\n" + ADD + "os._exit(0)\n").verdict is Verdict.RE
        )


def test_tests_without_an_import_see_the_program(grader):
    """KodCode's pipeline writes ``from solution import *`` above every test file (its
    ``test_code`` of older revisions often has no import of its own)."""
    tests = "def test_add():\n    assert add(2, 3) == 5\n"
    assert _grade(grader, tests, ADD).verdict is Verdict.AC
    assert _grade(grader, tests, ADD.replace("a + b", "a * b")).verdict is Verdict.RE


def test_without_pytest_the_problem_is_an_error(grader, monkeypatch):
    """Every program would fail to import pytest in the child: the problem is ``ERROR``,
    naming what is missing, never a run of wrong verdicts."""
    monkeypatch.setattr(pytest_file, "pytest_installed", lambda: False)
    result = _grade(grader, "def test_add():\n    assert add(2, 3) == 5\n", ADD)
    assert result.verdict is Verdict.ERROR and "pytest is not installed" in result.message
