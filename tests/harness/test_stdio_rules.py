"""``../shared/docs/grading-rules.md``, "Run the program for real": every reading and writing
idiom works, the program runs as __main__, exit status counts. Both isolation levels, real
sandbox."""

from __future__ import annotations

import sys
import textwrap

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

INPUT = "3\n1 2\n3 4\n5 6\n"
EXPECTED = "3\n7\n11\n"

READERS = {
    "input": "n = int(input())\nfor _ in range(n):\n    a, b = map(int, input().split())\n    print(a + b)",
    "readline": "import sys\nn = int(sys.stdin.readline())\nfor _ in range(n):\n    print(sum(map(int, sys.stdin.readline().split())))",
    "for-line": "import sys\nlines = [l for l in sys.stdin]\nfor l in lines[1:]:\n    print(sum(map(int, l.split())))",
    "read": "import sys\nd = sys.stdin.read().split()\nfor i in range(int(d[0])):\n    print(int(d[1+2*i]) + int(d[2+2*i]))",
    "buffer-read": "import sys\nd = sys.stdin.buffer.read().split()\nfor i in range(int(d[0])):\n    print(int(d[1+2*i]) + int(d[2+2*i]))",
    "buffer-readline": "import sys\nn = int(sys.stdin.buffer.readline())\nfor _ in range(n):\n    print(sum(map(int, sys.stdin.buffer.readline().split())))",
    "open0": "d = open(0).read().split()\nfor i in range(int(d[0])):\n    print(int(d[1+2*i]) + int(d[2+2*i]))",
    "readlines": "import sys\nfor l in sys.stdin.readlines()[1:]:\n    print(sum(map(int, l.split())))",
    "big-stack-thread": "import sys, threading\nsys.setrecursionlimit(10**6)\nthreading.stack_size(2**26)\ndef main():\n    n = int(input())\n    for _ in range(n):\n        print(sum(map(int, input().split())))\nthreading.Thread(target=main).start()",
    "input-then-read": "n = int(input())\nimport sys\nrest = sys.stdin.read().split()\nassert len(rest) == 2 * n\nfor i in range(n):\n    print(int(rest[2*i]) + int(rest[2*i+1]))",
}

WRITERS = {
    "stdout-write": "import sys\nsys.stdout.write('3\\n7\\n11\\n')",
    "buffer-write": "import sys\nsys.stdout.buffer.write(b'3\\n7\\n11\\n')",
    "os-write": "import os\nos.write(1, b'3\\n7\\n11\\n')",
    "print-mixed": "import sys, os\nprint(3)\nsys.stdout.flush()\nos.write(1, b'7\\n')\nsys.stdout.buffer.write(b'11\\n')",
    "module-global": "total = 0\ndef add(x):\n    global total\n    total += x\nfor v in (3, 7, 11):\n    add(v)\n    print(v)\nassert total == 21",
    "main-guard": "def main():\n    print('3\\n7\\n11')\nif __name__ == '__main__':\n    main()",
    "stdin-solution-class": "class Solution:\n    def go(self):\n        return [3, 7, 11]\nprint(*Solution().go(), sep='\\n')",
    "multiline-string": "s = '''3\n7\n11'''\nprint(s)",
    "exit-after": "print('3\\n7\\n11')\nexit()",
    "sys-exit-0": "import sys\nprint('3\\n7\\n11')\nsys.exit(0)",
    "quit": "print('3\\n7\\n11')\nquit()",
}

FAILING = {
    "crash-after-output": ("print('3\\n7\\n11')\nraise ValueError('late')", Verdict.RE),
    "exit-1-after-output": ("import sys\nprint('3\\n7\\n11')\nsys.exit(1)", Verdict.RE),
    "exit-message": ("import sys\nprint('3\\n7\\n11')\nsys.exit('bye')", Verdict.RE),
    "os-exit-3": (
        "import os, sys\nprint('3\\n7\\n11')\nsys.stdout.flush()\nos._exit(3)",
        Verdict.RE,
    ),
    "prefix": ("print(3)", Verdict.WA),
    "syntax-error": ("print(3", Verdict.RE),
}


@pytest.fixture(scope="module", params=list(Isolation))
def grader(request, pool):
    return Grader(GradeOptions(time_limit=2.0, isolation=request.param), pool=pool)


def _problem() -> Problem:
    return Problem("sum", Harness.STDIN, [TestCase(INPUT, EXPECTED), TestCase("1\n0 0\n", "0\n")])


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reading_idiom_works(grader, name):
    result = grader.grade(_problem(), READERS[name])
    assert result.verdict is Verdict.AC, result


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_every_writing_idiom_and_clean_exit_accepted(grader, name):
    problem = Problem("w", Harness.STDIN, [TestCase("", EXPECTED)])
    result = grader.grade(problem, textwrap.dedent(WRITERS[name]))
    assert result.verdict is Verdict.AC, result


@pytest.mark.parametrize("name", sorted(FAILING))
def test_exit_status_counts(grader, name):
    code, verdict = FAILING[name]
    problem = Problem("w", Harness.STDIN, [TestCase("", EXPECTED)])
    assert grader.grade(problem, code).verdict is verdict


def test_big_integers_print_by_environment(grader):
    """Python 3.11 refuses to print an int of more than 4,300 digits: so does a plain run
    (the default environment); LiveCodeBench's raises the limit to 50,000, as does a program
    that asks for it."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        expected = str(7**10000) + "\n"  # 8,451 digits: over Python's default 4,300
    finally:
        sys.set_int_max_str_digits(limit)
    plain = Problem("big", Harness.STDIN, [TestCase("", expected)])
    result = grader.grade(plain, "print(7 ** 10000)")
    assert result.verdict is Verdict.RE and "4300 digits" in result.message
    lcb = Problem("big", Harness.STDIN, [TestCase("", expected)], environment="livecodebench")
    assert grader.grade(lcb, "print(7 ** 10000)").verdict is Verdict.AC
    raised = "import sys\nsys.set_int_max_str_digits(0)\nprint(7 ** 10000)"
    assert grader.grade(plain, raised).verdict is Verdict.AC


def test_livecodebench_gives_stdin_programs_leetcodes_names(grader):
    """LiveCodeBench prepends its star imports to every program, stdin ones too
    (docs/plain-run.md, "Environments"): its environment gives them those names; a plain
    run does not."""
    code = "nums: List[int] = [3, 1, 2]\nheapify(nums)\nprint(nums[0], Counter(nums)[1])"
    tests = [TestCase("", "1 1\n"), TestCase("", "1 1\n")]
    lcb = Problem("names", Harness.STDIN, tests, environment="livecodebench")
    assert grader.grade(lcb, code).verdict is Verdict.AC
    plain = Problem("names", Harness.STDIN, tests)
    result = grader.grade(plain, code)
    assert result.verdict is Verdict.RE and "List" in result.message


def test_fresh_state_per_test(grader):
    code = "import sys\nseen = getattr(sys, 'seen', 0)\nsys.seen = seen + 1\nprint(input())"
    problem = Problem("p", Harness.STDIN, [TestCase("a\n", "a\n"), TestCase("b\n", "b\n")])
    assert grader.grade(problem, code).verdict is Verdict.AC


def test_zero_tests_is_an_error(grader):
    result = grader.grade(Problem("none", Harness.STDIN, []), "print(1)")
    assert result.verdict is Verdict.ERROR and not result.passed


def test_all_tests_run_and_early_exit_says_so(pool):
    problem = Problem("p", Harness.STDIN, [TestCase(f"{i}\n", f"{i}\n") for i in range(5)])
    code = "x = input()\nprint(x if x != '1' else 'no')"
    full = Grader(GradeOptions(), pool=pool).grade(problem, code)
    assert [t.verdict for t in full.tests] == [Verdict.AC, Verdict.WA] + [Verdict.AC] * 3
    assert full.fraction == 0.8 and not full.passed
    early = Grader(GradeOptions(early_exit=True), pool=pool).grade(problem, code)
    assert [t.verdict for t in early.tests] == [Verdict.AC, Verdict.WA] + [Verdict.SKIPPED] * 3


def test_expected_output_never_reaches_the_sandbox(pool):
    """The program searches everything it can reach for the expected answer."""
    secret = "EXPECTED-7f3a9c"
    code = textwrap.dedent(
        """
        import gc, os, sys
        found = [str(o) for o in gc.get_objects() if isinstance(o, str) and 'EXPECTED-' in o]
        try:
            with open('/proc/self/mem', 'rb') as mem:
                pass
        except OSError:
            pass
        for key, value in os.environ.items():
            if 'EXPECTED-' in value:
                found.append(value)
        print(found[0].split("'")[0] if found else 'nothing')
        """
    )
    problem = Problem("s", Harness.STDIN, [TestCase("", secret + "\n")])
    result = Grader(GradeOptions(), pool=pool).grade(problem, code)
    assert result.verdict is Verdict.WA
