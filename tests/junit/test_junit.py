"""Java test classes graded as SandboxFusion's ``junit`` runs them: each case runs plainly
(``javac -cp <launcher>``, then ``java -jar junit-platform-console-standalone.jar
--class-path <classes> --scan-class-path``, its ``run_junit``) and in the sandbox (the same
build confined, the classes selected one by one: ``evaluator/languages/junit.py``), and the
sandbox passes exactly what the launcher passes, having found and run the same tests (its
summary's counts agree): Jupiter and JUnit 4 (Vintage) tests, assertions and exceptions,
``System.exit`` inside a test, disabled and parameterized tests, nested and static member
test classes, a package, a test class the default class-name filter leaves out, no test."""

from __future__ import annotations

import re
import subprocess

import pytest

from evaluator.harness.stdio import build_program_job
from evaluator.languages import get_language
from evaluator.languages.junit import CONSOLE_LAUNCHER
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.sandbox import Limits
from tests.languages.runtime_plain import LIMITS, needs_runtime

pytestmark = [
    needs_runtime("java"),
    pytest.mark.skipif(
        not __import__("os").path.isfile(CONSOLE_LAUNCHER),
        reason="needs JUnit 5's console launcher (apt-get install junit5; setup.sh installs it)",
    ),
]

JUPITER = "import org.junit.jupiter.api.*;\nimport static org.junit.jupiter.api.Assertions.*;\n"
CASES = {
    "passes": JUPITER + "public class SumTest { @Test void sum() { assertEquals(5, 2 + 3); } }",
    "fails": JUPITER + "public class SumTest { @Test void sum() { assertEquals(6, 2 + 3); } }",
    "one_of_two_fails": JUPITER
    + "class Calc { static int add(int a, int b) { return a + b; } }\n"
    + "public class CalcTest { @Test void a() { assertEquals(3, Calc.add(1, 2)); }\n"
    + '  @Test void b() { assertTrue(Calc.add(1, 1) == 3, "one and one"); } }',
    "throws": JUPITER + "public class XTest { @Test void x() { Object o = null; o.toString(); } }",
    "assert_throws": JUPITER
    + "public class XTest { @Test void x() { assertThrows(ArithmeticException.class,"
    + " () -> { int z = 0; int y = 1 / z; }); } }",
    "exit_zero_in_a_test": JUPITER
    + "public class XTest { @Test void x() { System.exit(0); } @Test void y() { fail(); } }",
    "exit_three_in_a_test": JUPITER + "public class XTest { @Test void x() { System.exit(3); } }",
    "disabled": JUPITER
    + "public class XTest { @Disabled @Test void x() { fail(); } @Test void y() {} }",
    "parameterized": JUPITER
    + "import org.junit.jupiter.params.ParameterizedTest;\n"
    + "import org.junit.jupiter.params.provider.ValueSource;\n"
    + "public class EvenTest { @ParameterizedTest @ValueSource(ints = {2, 4, 7})\n"
    + "  void even(int n) { assertEquals(0, n % 2); } }",
    "junit4": "import org.junit.Test;\nimport static org.junit.Assert.*;\n"
    + "public class OldTest { @Test public void x() { assertEquals(2, 1 + 1); } }",
    "nested": JUPITER
    + "public class OuterTest { @Test void a() {}\n"
    + "  @Nested class Inner { @Test void b() { assertEquals(1, 2); } } }",
    "nested_test_named": JUPITER
    + "public class OuterTest { @Test void a() {}\n"
    + "  @Nested class InnerTest { @Test void b() { assertEquals(1, 1); } } }",
    "static_member_test_class": JUPITER
    + "public class Holder { static class InnerTest { @Test void b() { fail(); } } }",
    "main_is_not_a_test_class": JUPITER + "public class Main { @Test void x() { fail(); } }",
    "package": "package com.example;\n"
    + JUPITER
    + 'public class PkgTest { @Test void x() { assertEquals("ab", "a" + "b"); } }',
    "no_test": "public class Main { public static void main(String[] a) {} }",
    "prints": JUPITER + 'public class PTest { @Test void x() { System.out.println("hello"); } }',
    "before_each": JUPITER
    + "public class BTest { int n; @BeforeEach void up() { n = 41; } @Test void x() { n++;"
    + " assertEquals(42, n); } @Test void y() { assertEquals(41, n); } }",
    "compile_error": JUPITER + 'public class XTest { @Test void x() { int y = "s"; } }',
}
FAILS = {"fails", "one_of_two_fails", "throws", "exit_three_in_a_test", "parameterized",
         "nested", "static_member_test_class"}  # fmt: skip
COMPILE_ERRORS = {"compile_error"}
# SandboxFusion's javac writes no class directory (no -d): a class in a package lies outside
# its package's directory, the scan cannot load it and finds no test. Here its tests run
# (the deviation junit-package, docs/service.md's table).
DEVIATIONS = {"package"}
SUMMARY = re.compile(rb"\[\s*(\d+) (tests? \w+|containers? \w+)\s*\]")


def _plain_launcher(source: str, where) -> tuple[int | None, dict[bytes, bytes]]:
    """SandboxFusion's ``run_junit`` as a plain run: the exit status (None: it did not
    build) and the summary's counts."""
    match = re.search(r"public\s+class\s+(\w+)", source)
    (where / f"{match.group(1) if match else 'Main'}.java").write_text(source)
    javac = subprocess.run(["javac", "-cp", f".:{CONSOLE_LAUNCHER}", *[p.name for p in where.glob("*.java")]],
                           cwd=where, capture_output=True, timeout=300)  # fmt: skip
    if javac.returncode != 0:
        return None, {}
    run = subprocess.run(["java", "-jar", CONSOLE_LAUNCHER, "--class-path", ".",
                          "--scan-class-path"], cwd=where, capture_output=True, timeout=300)  # fmt: skip
    return run.returncode, _counts(run.stdout)


def _counts(stdout: bytes) -> dict[bytes, bytes]:
    return {what: number for number, what in SUMMARY.findall(stdout)}


def _problem(name: str) -> Problem:
    return Problem(name, Harness.STDIN, [TestCase("", "")], time_limit=10.0, judge="exit")


@pytest.mark.parametrize("name", list(CASES))
def test_the_sandbox_passes_what_the_launcher_passes(languages_grader, tmp_path, name):
    status, counts = _plain_launcher(CASES[name], tmp_path)
    if name in COMPILE_ERRORS:
        assert status is None
    else:  # the reference itself, as listed
        assert (status == 0) is (name not in FAILS), (status, counts)
    result = languages_grader.grade(_problem(name), CASES[name], language="junit")
    expected = Verdict.CE if name in COMPILE_ERRORS else Verdict.RE if name in FAILS else Verdict.AC
    assert result.verdict is expected, result
    if expected is Verdict.RE:
        assert f"exit status {status}" in result.message
    if name in DEVIATIONS:
        assert counts[b"tests found"] == b"0"
        assert _sandboxed_counts(languages_grader, CASES[name])[b"tests successful"] == b"1"
    elif expected is not Verdict.CE:
        assert _sandboxed_counts(languages_grader, CASES[name]) == counts


def _sandboxed_counts(grader, source: str) -> dict[bytes, bytes]:
    """The summary's counts of the sandboxed run (a grade keeps no passing test's output)."""
    language = get_language("junit")
    build = grader.builder.submit(language, source, language.default_flags).result()
    limits = Limits(time_limit=10.0, memory_limit=LIMITS.memory_limit)
    job = build_program_job(_problem("counts"), build, language, limits)
    return _counts(grader.pool.run(job).runs[0].stdout)


def test_the_tests_found_are_the_launchers(languages_grader):
    """Not vacuous: the summary reads a test found, run and passed (and nothing for a class
    the filter leaves out)."""
    counts = _sandboxed_counts(languages_grader, CASES["before_each"])
    assert counts[b"tests found"] == b"2" and counts[b"tests successful"] == b"2"
    counts = _sandboxed_counts(languages_grader, CASES["main_is_not_a_test_class"])
    assert counts[b"tests found"] == b"0"


def test_a_missing_launcher_is_unsupported(monkeypatch, tmp_path):
    from evaluator.languages import junit
    from evaluator.languages.base import ToolchainMissing

    monkeypatch.setattr(junit.LANGUAGE, "jar", str(tmp_path / "absent.jar"))
    with pytest.raises(ToolchainMissing, match="apt-get install junit5"):
        junit.LANGUAGE.build(CASES["passes"], (), str(tmp_path), tool=None)
