"""``../shared/docs/grading-rules.md``, call-based problems: the module executed once and a
fresh ``Solution()`` per test (LeetCode's rule; ``test`` isolation executes it per test),
LeetCode's names without imports, the return value serialised strictly in the child and
compared by value in the grader (never ``==`` on the candidate's object). Every isolation level, real sandbox."""

from __future__ import annotations

import json
import textwrap

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation


@pytest.fixture(scope="module", params=list(Isolation))
def grader(request, pool):
    return Grader(GradeOptions(time_limit=2.0, isolation=request.param), pool=pool)


def _test(args: list, expected) -> TestCase:
    return TestCase("\n".join(json.dumps(a) for a in args), json.dumps(expected))


def _problem(func_name: str, *tests: TestCase) -> Problem:
    return Problem("call", Harness.FUNCTIONAL, list(tests), func_name=func_name)


def _grade(grader, code: str, func_name: str, *tests: TestCase):
    return grader.grade(_problem(func_name, *tests), textwrap.dedent(code))


def test_solution_method_and_top_level_function(grader):
    tests = [_test([[1, 2, 3], 4], 10), _test([[], 0], 0)]
    method = "class Solution:\n    def total(self, nums, k):\n        return sum(nums) + k\n"
    function = "def total(nums, k):\n    return sum(nums) + k\n"
    assert _grade(grader, method, "total", *tests).verdict is Verdict.AC
    assert _grade(grader, function, "total", *tests).verdict is Verdict.AC
    wrong = "def total(nums, k):\n    return sum(nums)\n"
    result = _grade(grader, wrong, "total", *tests)
    assert result.verdict is Verdict.WA
    assert [t.verdict for t in result.tests] == [Verdict.WA, Verdict.AC]


def test_fresh_solution_instance_per_test(grader):
    code = """
        class Solution:
            def __init__(self):
                self.calls = 0
            def count(self, x):
                self.calls += 1
                return self.calls
    """
    tests = [_test([0], 1), _test([0], 1), _test([0], 1)]
    result = _grade(grader, code, "count", *tests)
    assert result.verdict is Verdict.AC, result


def test_class_state_carries_between_tests_as_on_leetcode(grader):
    """State on the class itself (not the instance) carries from test to test where the
    module is executed once (adaptive, submission: LeetCode's rule, so the growing list fails
    the second test, as there); ``test`` isolation executes it afresh per test."""
    code = """
        class Solution:
            seen = []
            def count(self, x):
                Solution.seen.append(x)
                return len(Solution.seen)
    """
    result = _grade(grader, code, "count", _test([0], 1), _test([0], 1))
    verdicts = [t.verdict for t in result.tests]
    if grader.options.isolation is Isolation.TEST:
        assert verdicts == [Verdict.AC, Verdict.AC], result
    else:
        assert verdicts == [Verdict.AC, Verdict.WA], result


LEETCODE_NAMES = {
    "List": "def f(self, a: List[int]) -> int:\n        return len(a)",
    "Optional": "def f(self, a: Optional[List[int]]) -> int:\n        return len(a)",
    "deque": "def f(self, a):\n        return len(deque(a))",
    "heappush": "def f(self, a):\n        h = []\n        for x in a:\n            heappush(h, x)\n        return len(h)",
    "lru_cache": "@lru_cache(None)\n    def g(self, n):\n        return n\n    def f(self, a):\n        return self.g(len(a))",
    "inf": "def f(self, a):\n        return len(a) if inf > 10**18 else -1",
    "Counter": "def f(self, a):\n        return sum(Counter(a).values())",
    "math": "def f(self, a):\n        return math.floor(len(a))",
    # LeetCode's environment star-imports operator too (DebugBench oracles use ``mul``, ``lt``).
    "mul": "def f(self, a):\n        return reduce(mul, [1, 1, 1]) * len(a)",
    "lt": "def f(self, a):\n        return sum(map(lt, a, [9, 9, 9]))",
}


@pytest.mark.parametrize("name", sorted(LEETCODE_NAMES))
def test_leetcode_names_without_import(grader, name):
    code = "class Solution:\n    " + LEETCODE_NAMES[name] + "\n"
    result = grader.grade(_problem("f", _test([[3, 1, 2]], 3)), code)
    assert result.verdict is Verdict.AC, result


def test_future_import_first_still_works(grader):
    code = (
        "from __future__ import annotations\n"
        "class Solution:\n"
        "    def f(self, a: List[int]) -> Optional[int]:\n"
        "        return max(a)\n"
    )
    result = grader.grade(_problem("f", _test([[3, 1, 2]], 3)), code)
    assert result.verdict is Verdict.AC, result


def test_program_definitions_win_over_the_preamble(grader):
    code = "def deque(x):\n    return 'mine'\ndef f(a):\n    return deque(a)\n"
    assert _grade(grader, code, "f", _test([[1]], "mine")).verdict is Verdict.AC


def test_always_equal_object_is_rejected(grader):
    code = """
        class Everything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = object.__hash__
        def f(a):
            return Everything()
    """
    result = _grade(grader, code, "f", _test([1], 1), _test([2], [1, 2]), _test([3], None))
    assert result.verdict is Verdict.WA
    assert all(t.verdict is Verdict.WA for t in result.tests)


@pytest.mark.parametrize(
    "returned",
    ["{1, 2}", "frozenset([1])", "object()", "Point()", "range(3)", "b'ab'", "1j", "iter([1])"],
)
def test_non_plain_return_is_wrong_answer_not_a_crash(grader, returned):
    code = f"class Point:\n    pass\ndef f(a):\n    return {returned}\n"
    result = _grade(grader, code, "f", _test([0], [1, 2]))
    assert result.verdict is Verdict.WA, result
    assert "plain data" in result.message or "unserialisable" in result.message


def test_list_containing_a_custom_object_is_wrong_answer(grader):
    code = "class P:\n    pass\ndef f(a):\n    return [1, P()]\n"
    assert _grade(grader, code, "f", _test([0], [1, 2])).verdict is Verdict.WA


def test_reference_cycle_is_wrong_answer(grader):
    code = "def f(a):\n    x = [1]\n    x.append(x)\n    return x\n"
    assert _grade(grader, code, "f", _test([0], [1, [1]])).verdict is Verdict.WA


ACCEPTED = {
    "tuples-for-lists": ("[(1, 1)]", [[1, 1]]),
    "nested-tuples": ("((1, (2, 3)), [4])", [[1, [2, 3]], [4]]),
    "float-for-int": ("2.0", 2),
    "int-for-float": ("2", 2.0),
    "string": ("'cba'", "cba"),
    "empty-string": ("''", ""),
    "none": ("None", None),
    "false": ("False", False),
    "dict": ("{'a': (1, 2)}", {"a": [1, 2]}),
    "bigint": ("7 ** 3000", 7**3000),
    "close-float": ("0.1 + 0.2", 0.3),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_equal_values_accepted(grader, name):
    returned, expected = ACCEPTED[name]
    code = f"def f(a):\n    return {returned}\n"
    result = _grade(grader, code, "f", _test([0], expected))
    assert result.verdict is Verdict.AC, result


REJECTED = {
    "true-for-1": ("True", 1),
    "1-for-true": ("1", True),
    "false-for-0": ("False", 0),
    "string-for-int": ("'1'", 1),
    "int-for-string": ("1", "1"),
    "list-for-string": ("['c', 'b', 'a']", "cba"),
    "none-for-empty-string": ("None", ""),
    "empty-string-for-none": ("''", None),
    "empty-list-for-none": ("[]", None),
    "prefix": ("[1, 2]", [1, 2, 3]),
    "longer": ("[1, 2, 3, 4]", [1, 2, 3]),
    "nested-order": ("[[1, 2], [3]]", [[3], [1, 2]]),
    "extra-key": ("{'a': 1, 'b': 2}", {"a": 1}),
    "int-off-by-one": ("1000000007", 1000000006),
    "case": ("'ABC'", "abc"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_different_values_rejected(grader, name):
    returned, expected = REJECTED[name]
    code = f"def f(a):\n    return {returned}\n"
    result = _grade(grader, code, "f", _test([0], expected))
    assert result.verdict is Verdict.WA, result


@pytest.mark.parametrize("expected", ["", None, 0, [], False])
def test_raising_function_is_runtime_error_whatever_is_expected(grader, expected):
    code = "def f(a):\n    raise ValueError('boom')\n"
    result = _grade(grader, code, "f", _test([0], expected))
    assert result.verdict is Verdict.RE, result
    assert "ValueError" in result.message


@pytest.mark.parametrize(
    "code",
    [
        "import sys\ndef f(a):\n    sys.exit(0)\n",
        "def f(a):\n    exit()\n",
        "import os\ndef f(a):\n    os._exit(0)\n",
        "import sys\nsys.exit(0)\ndef f(a):\n    return ''\n",
        "def g(a):\n    return ''\n",
    ],
    ids=["sys-exit-0", "exit", "os-exit-0", "exit-before-def", "missing-function"],
)
def test_exiting_or_missing_function_is_not_accepted(grader, code):
    result = _grade(grader, code, "f", _test([0], ""), _test([0], None))
    assert result.verdict is not Verdict.AC, result
    assert not any(t.verdict is Verdict.AC for t in result.tests)


def test_lying_int_subclass_judged_by_real_value(grader):
    code = """
        class Liar(int):
            def __repr__(self):
                return '5'
            __str__ = __repr__
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def f(a):
            return Liar(4)
    """
    assert _grade(grader, code, "f", _test([0], 5)).verdict is Verdict.WA
    assert _grade(grader, code, "f", _test([0], 4)).verdict is Verdict.AC


def test_lying_str_and_list_subclasses_judged_by_real_value(grader):
    code = """
        class S(str):
            def __eq__(self, other):
                return True
            def __str__(self):
                return 'abc'
            __hash__ = str.__hash__
        class L(list):
            def __iter__(self):
                return iter([1, 2, 3])
            def __eq__(self, other):
                return True
            def __len__(self):
                return 3
        def f(a):
            return [S('xyz'), L([9])] if a else S('xyz')
    """
    assert _grade(grader, code, "f", _test([0], "abc")).verdict is Verdict.WA
    assert _grade(grader, code, "f", _test([1], ["abc", [1, 2, 3]])).verdict is Verdict.WA
    assert _grade(grader, code, "f", _test([1], ["xyz", [9]])).verdict is Verdict.AC


def test_arguments_are_fresh_per_test(grader):
    """Mutating an argument in one test does not change the next test's input."""
    code = "def f(a):\n    a.append(0)\n    return len(a)\n"
    tests = [_test([[1, 2]], 3), _test([[1, 2]], 3)]
    assert _grade(grader, code, "f", *tests).verdict is Verdict.AC


def test_module_state_carries_over_where_the_module_runs_once(grader):
    """A module-level counter: the judge's rule (the module once) gives 1, 2, 3; ``test``
    isolation executes the module per test and gives 1, 1, 1."""
    code = "calls = []\ndef f(a):\n    calls.append(a)\n    return len(calls)\n"
    once = _grade(grader, code, "f", _test([0], 1), _test([1], 2), _test([2], 3))
    fresh = _grade(grader, code, "f", _test([0], 1), _test([1], 1), _test([2], 1))
    if grader.options.isolation is Isolation.TEST:
        assert once.verdict is Verdict.WA and fresh.verdict is Verdict.AC
    else:
        assert once.verdict is Verdict.AC and fresh.verdict is Verdict.WA


def test_output_printed_does_not_count_as_return_value(grader):
    code = "def f(a):\n    print(5)\n"
    result = _grade(grader, code, "f", _test([0], 5))
    assert result.verdict is Verdict.WA, result


def test_forged_report_on_the_harness_channel_is_not_accepted(grader):
    """A program that writes its own report to the harness's channel (every pipe it finds;
    it does not know the run's key)."""
    code = """
        import json, os, stat, struct
        def f(a):
            data = json.dumps({"status": "ok", "value": "5"}).encode()
            for fd in range(3, 256):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, struct.pack(">I", len(data)) + data)
                except OSError:
                    pass
            os._exit(0)
    """
    result = _grade(grader, code, "f", _test([0], 5))
    assert result.verdict is not Verdict.AC, result


def test_syntax_error_is_runtime_error(grader):
    assert _grade(grader, "def f(a)\n    return 1\n", "f", _test([0], 1)).verdict is Verdict.RE


def test_undecodable_expected_output_is_an_error(grader):
    problem = _problem("f", TestCase("0", "not json"))
    result = grader.grade(problem, "def f(a):\n    return 1\n")
    assert result.verdict is Verdict.ERROR and not result.passed


def test_huge_integer_results_compare(pool):
    """An expected value of ~26,000 digits (EvalPlus's HumanEval/139 has 257,275): over
    Python's 4,300-digit limit for int/str conversion, on both sides."""
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = str(3**54000)
    finally:
        sys.set_int_max_str_digits(limit)
    problem = Problem("big", Harness.FUNCTIONAL, [TestCase("54000", expected)], func_name="f")
    grader = Grader(GradeOptions(time_limit=5), pool=pool)
    assert grader.grade(problem, "def f(n):\n    return 3 ** n\n").verdict is Verdict.AC
    assert grader.grade(problem, "def f(n):\n    return 3 ** n + 1\n").verdict is Verdict.WA


def test_bool_as_int_per_problem(pool):
    """A problem graded by Python's ``==`` (EvalPlus/MBPP) opts in; the default stays strict."""
    tests = [TestCase("3", "false"), TestCase("4", "true")]
    code = "def even(n):\n    return 1 if n % 2 == 0 else 0\n"
    grader = Grader(GradeOptions(), pool=pool)
    strict = Problem("even", Harness.FUNCTIONAL, tests, func_name="even")
    python_eq = Problem(
        "even", Harness.FUNCTIONAL, tests, func_name="even", judge={"bool_as_int": True}
    )
    assert grader.grade(strict, code).verdict is Verdict.WA
    assert grader.grade(python_eq, code).verdict is Verdict.AC


def test_numpy_values_are_their_plain_values(grader):
    code = """
        import numpy as np
        class Solution:
            def stats(self, nums):
                a = np.array(nums)
                return [a.sum(), a.mean(), a.any(), a * 2]
    """
    tests = [_test([[1, 2, 3]], [6, 2.0, True, [2, 4, 6]]), _test([[0]], [0, 0.0, False, [0]])]
    assert _grade(grader, code, "stats", *tests).verdict is Verdict.AC


def _in_place(output_arg: int | None, *tests: TestCase) -> Problem:
    problem = _problem("sortColors", *tests)
    problem.output_arg = output_arg
    return problem


IN_PLACE_TESTS = [_test([[2, 0, 1]], [0, 1, 2]), _test([[1, 1, 0]], [0, 1, 1])]


def test_an_in_place_answer_is_the_argument_after_the_call(grader):
    """LeetCode's "do not return anything, modify nums in-place": the problem's
    ``output_arg`` names the argument compared; the None returned is not the answer."""
    right = """
        class Solution:
            def sortColors(self, nums: List[int]) -> None:
                nums.sort()
    """
    rebinds = """
        class Solution:
            def sortColors(self, nums: List[int]) -> None:
                nums = sorted(nums)
    """
    problem = _in_place(0, *IN_PLACE_TESTS)
    assert grader.grade(problem, textwrap.dedent(right)).verdict is Verdict.AC
    assert grader.grade(problem, textwrap.dedent(rebinds)).verdict is Verdict.WA
    # without output_arg the return value (None) is what is compared
    plain = _in_place(None, *IN_PLACE_TESTS)
    assert grader.grade(plain, textwrap.dedent(right)).verdict is Verdict.WA


def test_an_output_arg_no_test_has_is_the_problems_fault(grader):
    problem = _in_place(1, *IN_PLACE_TESTS)
    result = grader.grade(problem, "def sortColors(nums):\n    nums.sort()\n")
    assert result.verdict is Verdict.ERROR and "output_arg" in result.message
