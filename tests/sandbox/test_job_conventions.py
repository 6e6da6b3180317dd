"""The sandbox child follows a job's conventions as plain data (``Job.entry_class``,
``check_name``, ``names``) and knows none of its own: a class not named ``Solution``, tests
whose function is not ``check``, names from any module. Real programs in the real sandbox."""

from __future__ import annotations

import json

import pytest

from evaluator.sandbox import Isolation, Job, Mode, Names

COUNTED = """
class Program:
    made = 0
    def __init__(self):
        Program.made += 1
    def f(self, x):
        return [x, Program.made]

class Solution:
    def f(self, x):
        return "not this class"
"""


@pytest.mark.parametrize("isolation", list(Isolation))
def test_the_jobs_class_is_made_afresh_for_each_call(pool, isolation):
    job = Job(COUNTED, ["1", "2"], mode=Mode.CALL, func_name="f", entry_class="Program")
    job.isolation = isolation
    values = [json.loads(run.value) for run in pool.run(job).runs]
    once = isolation is not Isolation.TEST  # the module runs once per child there
    assert values == ([[1, 1], [2, 2]] if once else [[1, 1], [2, 1]])


def test_without_a_class_only_a_top_level_function_is_called(pool):
    job = Job(COUNTED, ["1"], mode=Mode.CALL, func_name="f")
    run = pool.run(job).runs[0]
    assert run.status == "exception" and run.exception == "NameError"
    assert b"the program defines no f()" in run.stderr


def test_names_come_from_the_job(pool):
    code = "def f(x):\n    return sqrt(x) + len(deque([1]))\n"
    given = Job(code, ["16"], mode=Mode.CALL, func_name="f")
    given.names = Names(star=("math", "collections"))
    assert pool.run(given).runs[0].value == "5.0"
    plain = Job(code, ["16"], mode=Mode.CALL, func_name="f")
    assert pool.run(plain).runs[0].exception == "NameError"
    script = Job(
        "print(floor(2.5), type(json).__name__)", ["", ""], names=Names(("math",), ("json",))
    )
    assert [run.stdout for run in pool.run(script).runs] == [b"2 module\n"] * 2
    assert pool.run(Job("print(floor(2.5))", [""])).runs[0].exception == "NameError"


@pytest.mark.parametrize("split", [True, False])
def test_the_tests_function_is_the_jobs(pool, split):
    tests = "def verify(candidate):\n    assert candidate(2) == 4\n"
    code = "def double(x):\n    return 2 * x\n"
    job = Job(code, [""], mode=Mode.ASSERTION, func_name="double", check_name="verify")
    if split:
        job.tests_code = tests
    else:
        job.code = code + "\n" + tests
    assert pool.run(job).runs[0].checked
    job.check_name = "check"
    run = pool.run(job).runs[0]
    assert not run.checked and run.exception == "NameError"
    assert b"the tests define no check(candidate)" in run.stderr


def test_an_assertion_job_names_its_tests_function():
    with pytest.raises(ValueError, match="check_name"):
        Job("", [""], mode=Mode.ASSERTION, func_name="f")


def test_leetcodes_names_cost_a_child_no_import():
    """Every module LeetCode's names come from is preloaded by the fork template, whose star
    names it makes once: a child that gets them only merges dicts (no import per test)."""
    from evaluator.harness.conventions import LEETCODE_NAMES
    from evaluator.sandbox.template import PRELOAD

    needed = set(LEETCODE_NAMES.star) | set(LEETCODE_NAMES.modules)
    assert needed - set(PRELOAD) == {"sys"}  # sys: every interpreter has it


def test_leetcodes_library_costs_a_child_no_import(pool):
    """sortedcontainers (LeetCode's one documented library), where installed, is imported by
    the fork template: a program that imports it pays nothing, so grading does not slow down
    as the platforms extra is installed. The child finds it in sys.modules before any import."""
    pytest.importorskip("sortedcontainers")
    code = "import sys\nprint('sortedcontainers' in sys.modules)\n"
    code += "from sortedcontainers import SortedList\nprint(list(SortedList([3, 1, 2])))\n"
    result = pool.run(Job(code, [""]))
    assert result.runs[0].stdout == b"True\n[1, 2, 3]\n"
