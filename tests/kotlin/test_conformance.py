"""Kotlin programs (``kotlinc``, then the JVM with Kotlin's standard library) and Kotlin
scripts (``kotlin_script``: compiled by ``kotlinc`` and started by a launcher of ours; their
plain run is ``kotlinc -script main.kts``, Debian's Kotlin's one way to run a script) run
plainly and in the sandbox agree (verdict, stdout, exit status): reading and writing, exit
paths, exceptions, deep recursion, limits and the build failing (a script's: a compile error
here, the failed run of ``kotlinc -script`` plainly)."""

from __future__ import annotations

import pytest

from evaluator.languages import get_language
from evaluator.problem import Harness, Problem, TestCase
from evaluator.sandbox import Limits
from tests.languages.runtime_plain import SUM_INPUT, assert_agrees, needs_runtime, run_plain

pytestmark = needs_runtime("kotlin")

PROGRAMS = [
    (
        "read_line_sum",
        """fun main() { val n = readLine()!!.trim().toInt()
  repeat(n) { val (a, b) = readLine()!!.split(" ").map { it.toLong() }; println(a + b) } }""",
        SUM_INPUT,
    ),
    (
        "buffered_reader_string_builder",
        """import java.io.*
fun main() { val r = BufferedReader(InputStreamReader(System.`in`)); val n = r.readLine().trim().toInt()
  val out = StringBuilder(); repeat(n) { val t = r.readLine().split(" "); out.append(t[0].toLong() * t[1].toLong()).append('\\n') }
  print(out) }""",
        SUM_INPUT,
    ),
    (
        "collections_and_format",
        """fun main() { val xs = (1..10).map { it * it }.filter { it % 2 == 1 }
  println(xs.joinToString(" ")); println("%.3f".format(xs.sum() / 7.0)); System.err.println("note") }""",
        b"",
    ),
    (
        "exit_code",
        'import kotlin.system.exitProcess\nfun main() { println("x"); exitProcess(3) }',
        b"",
    ),
    (
        "uncaught_exception",
        'fun main() { println("before"); throw IllegalStateException("boom") }',
        b"",
    ),
    (
        "deep_recursion",
        "fun f(n: Int): Int = if (n == 0) 0 else 1 + f(n - 1)\nfun main() { println(f(100000)) }",
        b"",
    ),
    ("infinite_loop", "fun main() { var x = 0L; while (true) x++ }", b""),
    ("packaged", 'package contest.a\n\nfun main() { println("in a package") }', b""),
    ("compile_error", 'fun main() { val x: Int = "s" }', b""),
]
SCRIPTS = [
    ("script_prints", 'val xs = listOf(3, 1, 2).sorted()\nprintln("sorted $xs")\n', b""),
    (
        "script_reads_stdin",
        'val n = readLine()!!.trim().toInt()\nrepeat(n) { val (a, b) = readLine()!!.split(" ").map { it.toLong() }; println(a + b) }\n',
        SUM_INPUT,
    ),
    (
        "script_mbxp_shape",
        "fun add(a: Int, b: Int): Int { return a + b }\n\nfun main() {\n    if (add(1, 2) != 3) {\n"
        '        throw Exception("Exception -- test case 0 did not pass.")\n    }\n}\n\nmain();\n',
        b"",
    ),
]
# `kotlinc -script` compiles and runs in one JVM: the compiler's time and memory are the
# plain run's too
COMPILER_LIMITS = Limits(time_limit=60.0, memory_limit=2048, output_bytes=1 << 20)


@pytest.mark.parametrize(("name", "source", "stdin"), PROGRAMS, ids=[c[0] for c in PROGRAMS])
def test_programs_agree_with_a_plain_run(languages_grader, name, source, stdin):
    assert_agrees(languages_grader, "kotlin", name, source, stdin)


@pytest.mark.parametrize(("name", "source", "stdin"), SCRIPTS, ids=[c[0] for c in SCRIPTS])
def test_scripts_agree_with_kotlinc_script(languages_grader, name, source, stdin):
    assert_agrees(languages_grader, "kotlin_script", name, source, stdin, COMPILER_LIMITS)


def test_a_script_that_does_not_compile_is_a_compile_error(languages_grader):
    problem = Problem("s", Harness.STDIN, [TestCase("", "")])
    result = languages_grader.grade(problem, 'val x: Int = "s"\n', "kotlin_script")
    assert result.verdict.value == "CE"
    assert result.message.startswith("main.kts:1:14: error: type mismatch")


def test_a_script_that_throws_ends_as_an_uncaught_exception(languages_grader):
    """Deviation ``kotlin-script-status``: ``kotlinc -script`` exits 3 (its status for a
    script's exception), the launched script 1 (the JVM's, for an uncaught exception); both
    print the exception on stderr, both are RE."""
    source = 'fun main() {\n    if (1 + 1 != 3) throw Exception("test case 0 did not pass")\n}\nmain();\n'
    plain = run_plain(get_language("kotlin_script"), source, b"", COMPILER_LIMITS)
    assert (plain.verdict, plain.exit_code) == ("RE", 3)
    problem = Problem("s", Harness.STDIN, [TestCase("", "")])
    result = languages_grader.grade(problem, source, "kotlin_script")
    assert result.verdict.value == "RE" and result.message == "exit status 1"
    trace = result.tests[0].stderr  # the script's frames, as kotlinc -script prints them
    assert trace.endswith("at Main.main(Unknown Source)\n\tat Main.<init>(Unknown Source)\n"), trace
