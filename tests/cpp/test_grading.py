"""C++ through the grader: a build per submission (cached), its flags, the problem's language
list, CE, special judges, early exit, and what a result says of memory."""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from evaluator.harness.outcome import failure
from evaluator.languages import BuildLimits
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Job, Limits
from tests.cpp.plain import CPP, build_plain, run_binary

OPTIONS = GradeOptions(time_limit=1.0, memory_limit=256)
REVERSE = Problem("rev", Harness.STDIN, [TestCase("abc\n", "cba\n"), TestCase("xy\n", "yx\n")])
REVERSE_CPP = """
#include <bits/stdc++.h>
int main() { std::string s; std::cin >> s; std::reverse(s.begin(), s.end()); std::cout << s << '\\n'; }
"""


@pytest.fixture(scope="module")
def grader(pool):
    with Grader(OPTIONS, pool=pool, precompiled_headers=False) as shared:
        yield shared


def test_a_program_is_built_once_however_often_it_is_submitted(grader):
    before = grader.builder.built
    results = grader.grade_many(
        [(REVERSE, REVERSE_CPP, "cpp")] * 6 + [(REVERSE, REVERSE_CPP, "c++")]
    )
    assert [r.verdict for r in results] == [Verdict.AC] * 7
    assert grader.builder.built == before + 1


def test_python_is_the_default_and_can_be_named(grader):
    for language in (None, "python", "Python3", "py"):
        assert grader.grade(REVERSE, "print(input()[::-1])", language).verdict is Verdict.AC
    # a C++ source graded as Python is Python's syntax error, as before
    assert grader.grade(REVERSE, REVERSE_CPP).verdict is Verdict.RE


def test_unknown_language_is_an_error(grader):
    result = grader.grade(REVERSE, "program p; begin end.", "pascal")
    assert result.verdict is Verdict.ERROR and "unknown language 'pascal'" in result.message


def test_compile_error_says_the_first_error_and_keeps_the_diagnostics(grader):
    result = grader.grade(REVERSE, "int main() {\n  return nope;\n}\n", "cpp")
    assert result.verdict is Verdict.CE
    assert [t.verdict for t in result.tests] == [Verdict.CE, Verdict.CE]
    assert result.message == "solution.cpp:2:10: error: 'nope' was not declared in this scope"
    assert "return nope;" in result.tests[0].stderr


def test_a_compile_bomb_is_a_compile_error_within_the_build_limits(pool):
    bomb = "#define A(x) x x\n#define B(x) A(A(A(A(x))))\n#define C(x) B(B(B(B(x))))\nint main(){ C(C(;)) }\n"
    options = GradeOptions(time_limit=1.0, build_limits=BuildLimits(time_limit=2.0, wall_limit=4.0))
    with Grader(options, pool=pool, precompiled_headers=False) as grader:
        start = time.monotonic()
        result = grader.grade(REVERSE, bomb, "cpp")
    assert result.verdict is Verdict.CE and "compilation over its" in result.message, result
    assert time.monotonic() - start < 4.0 + 10  # its wall limit, and room for a loaded machine


def test_flags_come_from_the_options_then_the_problem_then_the_defaults(pool):
    cpp20 = "#include <bits/stdc++.h>\nconsteval int two() { return 2; }\nint main() { std::cout << two() << '\\n'; }\n"
    problem = Problem("two", Harness.STDIN, [TestCase("", "2\n")])
    with Grader(OPTIONS, pool=pool, precompiled_headers=False) as grader:
        assert grader.grade(problem, cpp20, "cpp").verdict is Verdict.CE  # C++17: no consteval
        problem.metadata["cpp_flags"] = "-std=c++20 -O2"
        assert grader.grade(problem, cpp20, "cpp").verdict is Verdict.AC
        problem.metadata["cpp_flags"] = ["-std=c++20", "-O0"]
        assert grader.grade(problem, cpp20, "cpp").verdict is Verdict.AC
        problem.metadata["cpp_flags"] = 17
        assert grader.grade(problem, cpp20, "cpp").verdict is Verdict.ERROR
    override = GradeOptions(time_limit=1.0, compile_flags={"cpp": ["-std=c++17"]})
    with Grader(override, pool=pool, precompiled_headers=False) as grader:
        problem.metadata["cpp_flags"] = "-std=c++20"
        assert grader.grade(problem, cpp20, "cpp").verdict is Verdict.CE


def test_a_problem_can_restrict_its_languages(grader):
    only_python = Problem("p", Harness.STDIN, REVERSE.tests, metadata={"languages": ["python"]})
    result = grader.grade(only_python, REVERSE_CPP, "cpp")
    assert result.verdict is Verdict.CE
    assert result.message == "this problem accepts python programs, not cpp"
    assert grader.grade(only_python, "print(input()[::-1])").verdict is Verdict.AC
    only_cpp = Problem("c", Harness.STDIN, REVERSE.tests, metadata={"languages": ["c++"]})
    assert grader.grade(only_cpp, "print(input()[::-1])").verdict is Verdict.CE
    assert grader.grade(only_cpp, REVERSE_CPP, "cpp").verdict is Verdict.AC
    broken = Problem("b", Harness.STDIN, REVERSE.tests, metadata={"languages": ["cobol"]})
    assert grader.grade(broken, REVERSE_CPP, "cpp").verdict is Verdict.ERROR


def test_cpp_is_graded_on_stdin_and_call_based_problems(grader):
    functional = Problem("f", Harness.FUNCTIONAL, [TestCase("1\n2", "3")], func_name="add")
    result = grader.grade(functional, "int add(int a, int b) { return a + b; }", "cpp")
    assert result.verdict is Verdict.AC  # evaluator.harness.native_call's driver
    assertion = Problem("a", Harness.ASSERTION, [TestCase("", "")], test_code="x", entry_point="f")
    result = grader.grade(assertion, "int f() { return 1; }", "cpp")
    assert result.verdict is Verdict.ERROR
    assert (
        result.message
        == "cpp programs are graded on stdin problems and functional ones, not assertion"
    )


def test_no_code_and_odd_text(grader):
    assert grader.grade(REVERSE, "   ", "cpp").verdict is Verdict.NO_CODE
    undecodable = REVERSE_CPP + "// a comment with bytes that are not UTF-8: \udcff\udcfe\n"
    assert grader.grade(REVERSE, undecodable, "cpp").verdict is Verdict.AC
    result = grader.grade(REVERSE, REVERSE_CPP + "// \ud800\n", "cpp")
    assert result.verdict is Verdict.CE and "not UTF-8" in result.message


def test_special_judges_work_for_cpp_programs(grader, tmp_path):
    problem = Problem(
        "any-pair", Harness.STDIN, [TestCase("5\n", "1 4\n"), TestCase("7\n", "3 4\n")]
    )
    right = '#include <cstdio>\nint main(){ int n; scanf("%d", &n); printf("%d %d\\n", n - 2, 2); }'
    wrong = '#include <cstdio>\nint main(){ int n; scanf("%d", &n); printf("%d %d\\n", n, 1); }'
    checker = (
        "def check(input, output, expected):\n"
        "    a, b = map(int, output.split())\n"
        "    return a + b == int(input)\n"
    )
    problem.judge = {"type": "python", "code": checker}
    assert grader.grade(problem, right, "cpp").verdict is Verdict.AC
    assert grader.grade(problem, wrong, "cpp").verdict is Verdict.WA
    script = tmp_path / "checker.py"
    script.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "n = int(open(sys.argv[1]).read())\na, b = map(int, open(sys.argv[2]).read().split())\n"
        "sys.exit(0 if a + b == n else 1)\n"
    )
    script.chmod(0o755)
    problem.judge = {"type": "program", "path": str(script)}
    options = replace(OPTIONS, checker_dir=str(tmp_path))
    with Grader(options, pool=grader.pool, precompiled_headers=False) as own:
        assert own.grade(problem, right, "cpp").verdict is Verdict.AC
        assert own.grade(problem, wrong, "cpp").verdict is Verdict.WA


def test_early_exit_stops_at_the_first_failing_test(pool):
    spin = "int main() { volatile long i = 0; while (true) i++; }"
    options = GradeOptions(time_limit=0.5, early_exit=True)
    problem = Problem("spin", Harness.STDIN, [TestCase("", "")] * 4)
    with Grader(options, pool=pool, precompiled_headers=False) as grader:
        result = grader.grade(problem, spin, "cpp")
    assert [t.verdict for t in result.tests] == [Verdict.TLE] + [Verdict.SKIPPED] * 3


def test_peak_memory_is_the_resident_peak(grader):
    """``setup-before-exec``: a small program reports the sandbox child's size before its
    exec (~10 MB); a big one its own peak."""
    problem = Problem("m", Harness.STDIN, [TestCase("0\n", "0\n"), TestCase("120\n", "1\n")])
    source = "#include <bits/stdc++.h>\nint main(){ int mb; std::cin >> mb; std::vector<char> v(size_t(mb) << 20, 1); std::cout << (mb ? int(v[mb]) : 0) << '\\n'; }"
    small, big = grader.grade(problem, source, "cpp").tests
    assert small.verdict is big.verdict is Verdict.AC
    assert 1 << 10 < small.peak_memory_kb < 32 << 10
    assert 120 << 10 < big.peak_memory_kb < 150 << 10


def test_a_program_the_sandbox_cannot_execute_is_an_error(pool):
    """Not the program's fault (a foreign binary, a noexec mount): ERROR, saying why."""
    job = Job(code="", inputs=[""], executable=b"not an ELF file", argv=["./solution"])
    run = pool.run(job).runs[0]
    assert run.status == "not_started" and "Exec format error" in run.exception
    assert failure(run)[0] is Verdict.ERROR


def test_the_documented_stack_is_what_deep_recursion_needs():
    """The 10^6-deep DFS of the conformance suite passes with a stack as large as the memory
    limit (as there) and dies of SIGSEGV with the 8 MB a shell gives."""
    source = Path(__file__).with_name("cases.toml").read_text()
    start = source.index("[deep_recursion_dfs]")
    case_text = source[start:].split("source = '''", 1)[1].split("'''", 1)[0].lstrip("\n")
    with tempfile.TemporaryDirectory() as where:
        assert build_plain(case_text, where)[0]
        stdin = b"1000000\n"
        assert run_binary(where, stdin).stdout == b"999999\n"
        small = run_binary(where, stdin, Limits(time_limit=1.0, memory_limit=256), stack=8 << 20)
        assert small.signal == 11


def test_the_binary_is_the_same_with_the_precompiled_header(builder, tmp_path):
    """The precompiled header changes the build's time, never what it builds: the sandbox's
    build (with it) and the plain build of the same sources (without) give the same bytes.
    The sandbox links one more translation unit than the plain command (its threads' stack:
    ``THREADS_CODE``), so the plain build here is given it too."""
    source = REVERSE_CPP + "// built twice\n"
    assert builder.prepared(CPP, CPP.default_flags)  # the session builder has it
    prepared = builder.submit(CPP, source, CPP.default_flags).result()
    assert build_plain(source, str(tmp_path), with_thread_stack=True)[0]
    assert prepared.ok and prepared.binary == (tmp_path / "solution").read_bytes()
