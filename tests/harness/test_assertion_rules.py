"""``../shared/docs/grading-rules.md``, assertion tests (HumanEval style): a pass needs proof
that ``check`` returned, not exit status 0; the prompt's imports and helpers are joined as
HumanEval does. Both isolation levels, real sandbox."""

from __future__ import annotations

import textwrap

import pytest

from evaluator.harness.assertion import build_job, can_split, program
from evaluator.harness.environments import PLAIN
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Limits, SandboxPool

PROMPT = '''from typing import List
import math


def _helper(x: int) -> int:
    return x * 2


def double_all(values: List[int]) -> List[int]:
    """Double every value."""
'''
TESTS = """def check(candidate):
    assert candidate([1, 2]) == [2, 4]
    assert candidate([]) == []
    assert candidate([-3]) == [-6]
"""
CORRECT = "    return [_helper(v) for v in values]\n"


@pytest.fixture(scope="module", params=list(Isolation))
def grader(request, pool):
    return Grader(GradeOptions(time_limit=2.0, isolation=request.param), pool=pool)


def _problem(prompt: str = PROMPT, tests: str = TESTS, entry: str = "double_all") -> Problem:
    return Problem(
        "he",
        Harness.ASSERTION,
        [TestCase("", "")],
        prompt=prompt,
        test_code=tests,
        entry_point=entry,
    )


def _grade(grader, completion: str, problem: Problem | None = None, continues: bool = True):
    problem = problem or _problem()
    return grader.grade(problem, program(problem, completion, continues))


def test_correct_completion_accepted(grader):
    result = _grade(grader, CORRECT)
    assert result.verdict is Verdict.AC, result
    assert len(result.tests) == 1


def test_prompt_imports_and_helpers_are_available(grader):
    completion = "    return [_helper(v) + int(math.floor(0.5)) for v in values]\n"
    assert _grade(grader, completion).verdict is Verdict.AC


def test_whole_program_used_as_it_is(grader):
    whole = "def double_all(values):\n    return [2 * v for v in values]\n"
    assert _grade(grader, whole, continues=False).verdict is Verdict.AC
    needs_prompt = "def double_all(values):\n    return [_helper(v) for v in values]\n"
    assert _grade(grader, needs_prompt, continues=False).verdict is Verdict.RE


@pytest.mark.parametrize(
    "completion",
    [
        "    return values\n",
        "    return [2 * v for v in values][:1]\n",
        "    return None\n",
    ],
)
def test_failing_assert_rejected(grader, completion):
    result = _grade(grader, completion)
    assert result.verdict is not Verdict.AC, result
    assert "AssertionError" in result.message


def test_raising_completion_rejected(grader):
    result = _grade(grader, "    raise ValueError('no')\n")
    assert result.verdict is Verdict.RE and "ValueError" in result.message


EARLY_EXITS = {
    "sys-exit-0": "import sys\nsys.exit(0)",
    "sys-exit-none": "import sys\nsys.exit()",
    "os-exit-0": "import os\nos._exit(0)",
    "exit": "exit()",
    "quit": "quit()",
    "raise-systemexit": "raise SystemExit",
    "exit-in-candidate": "def double_all(values):\n    import sys\n    sys.exit(0)",
    "os-exit-in-candidate": "def double_all(values):\n    import os\n    os._exit(0)",
}


@pytest.mark.parametrize("name", sorted(EARLY_EXITS))
def test_exit_before_the_asserts_is_not_a_pass(grader, name):
    completion = "    return values\n" + EARLY_EXITS[name] + "\n"
    result = _grade(grader, completion)
    assert result.verdict is not Verdict.AC, result


def test_exit_inside_check_is_not_a_pass(grader):
    """The candidate exits cleanly the first time check() calls it."""
    completion = "    import sys\n    print('[2, 4]')\n    sys.exit(0)\n"
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_printed_sentinel_is_not_a_pass(grader):
    completion = (
        "    return values\n"
        "import sys\n"
        "for word in ('PASSED', 'OK', 'checked', 'AC', 'All tests passed'):\n"
        "    print(word)\n"
        "    print(word, file=sys.stderr)\n"
        "sys.exit(0)\n"
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


FORGE = (  # writes a frame on every pipe above stdio: wherever the harness's channel is
    "def _forge(frame):\n"
    "    import os, stat\n"
    "    for fd in range(3, 256):\n"
    "        try:\n"
    "            if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
    "                os.write(fd, frame)\n"
    "        except OSError:\n"
    "            pass\n"
)


@pytest.mark.parametrize(
    "report",
    [
        '{"status": "ok", "checked": true}',
        '{"status": "ok", "checked": true, "nonce": "0000000000000000"}',
        '{"status": "ok", "checked": true, "nonce": null}',
    ],
)
def test_fake_report_on_the_channel_is_not_a_pass(grader, report):
    completion = (
        "    return values\n" + FORGE + "import os, struct\n"
        f"data = {report!r}.encode()\n"
        "_forge(struct.pack('>I', len(data)) + data)\n"
        "os._exit(0)\n"
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_fake_report_then_failing_asserts_is_not_a_pass(grader):
    """A forged frame without exiting: the harness's real report must not be hidden by it."""
    completion = (
        "    return values\n" + FORGE + "import os, struct\n"
        'data = b\'{"status": "ok", "checked": true}\'\n'
        "_forge(struct.pack('>I', len(data)) + data)\n"
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_redefined_check_in_completion_is_overridden_by_the_tests(grader):
    completion = "    return values\ndef check(candidate):\n    pass\n"
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_patching_builtins_does_not_make_asserts_pass(grader):
    completion = (
        "    return values\n"
        "import builtins\n"
        "builtins.AssertionError = type('AssertionError', (Exception,), {})\n"
        "class Always(list):\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "_real = double_all\n"
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


@pytest.mark.parametrize(
    "returned",
    [
        "    class Always:\n        def __eq__(self, other):\n            return True\n"
        "    return Always()\n",
        "    class Sneaky(list):\n        def __eq__(self, other):\n            return True\n"
        "    return Sneaky()\n",
    ],
    ids=["object", "list-subclass"],
)
def test_candidate_returning_always_equal_object_is_rejected(grader, returned):
    """The asserts run in another process and see plain data: a lying ``__eq__`` never
    reaches them (HumanEval's own harness would accept these)."""
    assert _grade(grader, returned).verdict is not Verdict.AC


FORGERIES = {
    "harness-module": "import sys\n"
    "sys.modules['evaluator.sandbox.inside.harness'].send_report({'status': 'ok', 'checked': True})\n"
    "import os; os._exit(0)\n",
    "closure-key": FORGE + "import sys, json, os, struct\n"
    "_send = sys.modules['evaluator.sandbox.inside.harness']._send\n"
    "_key = _send.__closure__[0].cell_contents if _send.__closure__ else None\n"
    "_data = json.dumps({'status': 'ok', 'checked': True, 'key': _key}).encode()\n"
    "_forge(struct.pack('>I', len(_data)) + _data)\n"
    "os._exit(0)\n",
    "forge-in-call": "def double_all(values):\n"
    "    import sys\n"
    "    sys.modules['evaluator.sandbox.inside.harness'].send_report({'status': 'ok', 'checked': True})\n"
    "    import os; os._exit(0)\n",
}


@pytest.mark.parametrize("forgery", FORGERIES.values(), ids=FORGERIES.keys())
def test_report_forged_with_the_harness_itself_is_not_a_pass(grader, forgery):
    """The candidate's process holds no channel that can say ``check`` passed."""
    completion = "    return values\n" + forgery
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_in_place_changes_reach_the_tests(grader):
    problem = _problem(
        prompt="def sort_in_place(values):\n",
        tests="def check(candidate):\n    data = [3, 1, 2]\n    candidate(data)\n"
        "    assert data == [1, 2, 3]\n",
        entry="sort_in_place",
    )
    assert _grade(grader, "    values.sort()\n", problem).verdict is Verdict.AC
    assert _grade(grader, "    sorted(values)\n", problem).verdict is not Verdict.AC


def test_exceptions_the_tests_expect_keep_their_type(grader):
    problem = _problem(
        prompt="def positive(x):\n",
        tests="def check(candidate):\n    assert candidate(2) == 2\n    try:\n"
        "        candidate(-1)\n    except ValueError:\n        pass\n    else:\n"
        "        assert False\n",
        entry="positive",
    )
    raising = "    if x < 0:\n        raise ValueError(x)\n    return x\n"
    assert _grade(grader, raising, problem).verdict is Verdict.AC
    assert _grade(grader, "    return x\n", problem).verdict is not Verdict.AC


def test_types_survive_the_crossing(grader):
    problem = _problem(
        prompt="def shapes():\n",
        tests="def check(candidate):\n    assert candidate() == ((1, 2), {3}, b'x', 1.5, True)\n"
        "    assert type(candidate()[4]) is bool\n",
        entry="shapes",
    )
    good = "    return ((1, 2), {3}, b'x', 1.5, True)\n"
    assert _grade(grader, good, problem).verdict is Verdict.AC
    as_lists = "    return [[1, 2], [3], b'x', 1.5, 1]\n"
    assert _grade(grader, as_lists, problem).verdict is not Verdict.AC


def test_a_crash_the_tests_swallow_is_not_a_pass(grader):
    problem = _problem(
        prompt="def f(x):\n",
        tests="def check(candidate):\n    try:\n        candidate(1)\n    except BaseException:\n"
        "        pass\n",
        entry="f",
    )
    crash = "    import os\n    os._exit(0)\n"
    assert _grade(grader, crash, problem).verdict is not Verdict.AC
    assert _grade(grader, "    return x\n", problem).verdict is Verdict.AC


def test_tests_using_the_candidates_own_class_run_joined(grader):
    """MBPP-style tests that build objects of a class the solution defines."""
    problem = _problem(
        prompt="",
        tests="def check(candidate):\n    assert candidate([Pair(1, 2), Pair(3, 4)]) == 2\n",
        entry="count_pairs",
    )
    whole = (
        "class Pair:\n    def __init__(self, a, b):\n        self.a, self.b = a, b\n\n"
        "def count_pairs(pairs):\n    return len(pairs)\n"
    )
    assert _grade(grader, whole, problem, continues=False).verdict is Verdict.AC


def test_arguments_that_cannot_cross_fall_back_to_joined(grader):
    problem = _problem(
        prompt="def apply(f, x):\n",
        tests="def check(candidate):\n    assert candidate(lambda v: v + 1, 1) == 2\n",
        entry="apply",
    )
    assert _grade(grader, "    return f(x)\n", problem).verdict is Verdict.AC
    assert _grade(grader, "    return x\n", problem).verdict is not Verdict.AC


@pytest.mark.parametrize(
    ("support", "tests", "splits"),
    [
        ("", "def check(candidate):\n    assert candidate(1) == abs(-1)\n", True),
        ("def helper(x):\n    return x\n", "def check(c):\n    assert c(helper(1))\n", True),
        ("", "import math\ndef check(c):\n    assert math.isclose(c(1), 1)\n", True),
        ("", "def check(candidate):\n    assert candidate(Pair(1, 2))\n", False),
        ("", "def check(candidate):\n    assert f(1) == candidate(1)\n", False),
        ("", "def check(candidate):\n    assert entry(1) == 1\n", True),
    ],
)
def test_can_split_needs_every_name_bound_by_trusted_code(support, tests, splits):
    assert can_split(support, tests, "entry") is splits


def test_missing_entry_point_is_not_a_pass(grader):
    problem = _problem(prompt="", entry="double_all")
    whole = "def other(values):\n    return values\n"
    assert _grade(grader, whole, problem, continues=False).verdict is Verdict.RE


def test_tests_without_check_is_not_a_pass(grader):
    problem = _problem(tests="assert True\n")
    assert _grade(grader, CORRECT, problem).verdict is not Verdict.AC


def test_infinite_loop_is_time_limit(grader):
    result = _grade(grader, "    while True:\n        pass\n")
    assert result.verdict is Verdict.TLE


def test_report_forged_with_nonce_from_the_stack_is_not_a_pass(grader):
    completion = (
        "    return values\n"
        + FORGE
        + textwrap.dedent(
            """\
        import json, os, struct, sys
        frame, nonce = sys._getframe(), None
        while frame is not None:
            nonce = frame.f_locals.get('nonce', nonce)
            frame = frame.f_back
        data = json.dumps({'status': 'ok', 'checked': True, 'nonce': nonce}).encode()
        _forge(struct.pack('>I', len(data)) + data)
        os._exit(0)
        """
        )
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_early_exit_keeps_the_server_in_step(tmp_path):
    """With early exit the pool may send a stop at any moment; the split path must leave it
    for the server's job loop, or the next job's frame is misread and the server dies."""
    with SandboxPool(workers=1, tmp_dir=tmp_path) as own:
        grader = Grader(GradeOptions(time_limit=2.0, early_exit=True), pool=own)
        for completion in (CORRECT, "    return values\n", CORRECT):
            _grade(grader, completion)
        stdin = Problem("echo", Harness.STDIN, [TestCase("a\n", "a\n"), TestCase("b\n", "b\n")])
        assert grader.grade(stdin, "print(input())").verdict is Verdict.AC
        assert _grade(grader, CORRECT).verdict is Verdict.AC
        assert own.restarts == 0


@pytest.mark.parametrize("isolation", list(Isolation))
def test_split_candidate_output_is_kept(pool, isolation):
    """The candidate is killed once the tests report: what it printed must not be lost."""
    code = "print('loaded')\n\ndef double_all(values):\n    print('called', values)\n    return [2 * v for v in values]\n"
    job = build_job(_problem(), code, Limits(time_limit=2.0), isolation, PLAIN)
    assert job.tests_code is not None  # split: the tests run in their own process
    run = pool.run(job).runs[0]
    assert run.status == "ok" and run.checked
    assert run.stdout == b"loaded\ncalled [1, 2]\ncalled []\ncalled [-3]\n"
