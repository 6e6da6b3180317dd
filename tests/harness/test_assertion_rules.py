"""grading-rules.md, assertion tests (HumanEval style): a pass needs proof that ``check``
returned, not exit status 0; the prompt's imports and helpers are joined as HumanEval does.
Both isolation levels, real sandbox."""

from __future__ import annotations

import textwrap

import pytest

from evaluator.harness.assertion import program
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

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


@pytest.mark.parametrize(
    "report",
    [
        '{"status": "ok", "checked": true}',
        '{"status": "ok", "checked": true, "nonce": "0000000000000000"}',
        '{"status": "ok", "checked": true, "nonce": null}',
    ],
)
def test_fake_report_on_fd3_is_not_a_pass(grader, report):
    completion = (
        "    return values\n"
        "import os, struct\n"
        f"data = {report!r}.encode()\n"
        "os.write(3, struct.pack('>I', len(data)) + data)\n"
        "os._exit(0)\n"
    )
    assert _grade(grader, completion).verdict is not Verdict.AC


def test_fake_report_then_failing_asserts_is_not_a_pass(grader):
    """A forged frame without exiting: the harness's real report must not be hidden by it."""
    completion = (
        "    return values\n"
        "import os, struct\n"
        'data = b\'{"status": "ok", "checked": true}\'\n'
        "os.write(3, struct.pack('>I', len(data)) + data)\n"
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


def test_candidate_returning_always_equal_object_is_python_semantics(grader):
    """HumanEval's asserts use ``==`` in the candidate's own process, as the reference harness
    does: an always-equal object passes there too. Recorded so a change is deliberate."""
    completion = (
        "    class Always:\n"
        "        def __eq__(self, other):\n"
        "            return True\n"
        "    return Always()\n"
    )
    assert _grade(grader, completion).verdict is Verdict.AC


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
    completion = "    return values\n" + textwrap.dedent(
        """\
        import json, os, struct, sys
        frame, nonce = sys._getframe(), None
        while frame is not None:
            nonce = frame.f_locals.get('nonce', nonce)
            frame = frame.f_back
        data = json.dumps({'status': 'ok', 'checked': True, 'nonce': nonce}).encode()
        os.write(3, struct.pack('>I', len(data)) + data)
        os._exit(0)
        """
    )
    assert _grade(grader, completion).verdict is not Verdict.AC
