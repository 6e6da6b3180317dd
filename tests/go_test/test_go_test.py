"""Go test files graded as ``go test main_test.go`` judges them: each case runs plainly
(``go test`` itself, GOPATH mode over Debian's Go sources, as the language documents) and in
the sandbox (``go test -c``, then the test binary), and the sandbox passes exactly the files
``go test`` passes: testify's asserts, ``t.Fatal``, panics, ``os.Exit(0)`` inside a test
(``-test.paniconexit0``), vet's findings and compile errors (no test binary: CE), a
``TestMain``, skipped tests, a file with no test, an external test package (MultiPL-E's)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from evaluator.languages.go_test import GOPATH
from evaluator.problem import Harness, Problem, TestCase, Verdict

pytestmark = [
    pytest.mark.skipif(shutil.which("go") is None, reason="needs go (apt-get install golang-go)"),
    pytest.mark.skipif(
        not os.path.isdir(f"{GOPATH}/src/github.com/stretchr/testify"),
        reason="needs testify (apt-get install golang-github-stretchr-testify-dev)",
    ),
]

HEAD = 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n'
ADD = "func Add(a, b int) int { return a + b }\n"
CASES = {
    "testify_passes": HEAD + ADD + "func TestAdd(t *testing.T) { assert.Equal(t, 3, Add(1, 2)) }",
    "testify_fails": HEAD + ADD + "func TestAdd(t *testing.T) { assert.Equal(t, 4, Add(1, 2)) }",
    "fatal": 'package main\nimport "testing"\nfunc TestX(t *testing.T) { t.Fatal("no") }',
    "panic": 'package main\nimport "testing"\nfunc TestX(t *testing.T) { panic("boom") }',
    "exit_zero_in_a_test": (
        'package main\nimport ("os"; "testing")\nfunc TestX(t *testing.T) { os.Exit(0) }'
    ),
    "vet_printf": (
        'package main\nimport ("fmt"; "testing")\n'
        'func TestX(t *testing.T) { fmt.Printf("%d\\n", "x") }'
    ),
    "compile_error": 'package main\nimport "testing"\nfunc TestX(t *testing.T) { x := 1 }',
    "test_main": (
        'package main\nimport ("os"; "testing")\n'
        "func TestMain(m *testing.M) { os.Exit(m.Run()) }\n"
        "func TestX(t *testing.T) { t.Log(1) }"
    ),
    "skipped": 'package main\nimport "testing"\nfunc TestX(t *testing.T) { t.Skip("later") }',
    "no_tests": "package main\nfunc helper() int { return 1 }",
    "external_package": (
        'package add_test\nimport ("fmt"; "testing")\n'
        'func TestX(t *testing.T) { if fmt.Sprintf("%v", []int{1}) != "[1]" { t.Fatal() } }'
    ),
    "prints_and_passes": (
        'package main\nimport ("fmt"; "testing")\nfunc TestX(t *testing.T) { fmt.Println("hi") }'
    ),
}
# How a plain `go test` failure reads in the sandbox: a test binary's failure status, or no
# binary at all (the build or vet failed).
SANDBOX_FAILS = {
    "testify_fails": Verdict.RE,
    "fatal": Verdict.RE,
    "panic": Verdict.RE,
    "exit_zero_in_a_test": Verdict.RE,
    "vet_printf": Verdict.CE,
    "compile_error": Verdict.CE,
}


def _go_test_plainly(source: str, where) -> bool:
    """Whether ``go test main_test.go`` passes ``source`` (GOPATH mode, as the language)."""
    (where / "main_test.go").write_text(source)
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": GOPATH, "GOPROXY": "off",
           "GOFLAGS": "", "GOCACHE": str(where.parent / "plain-go-cache")}  # fmt: skip
    done = subprocess.run(["go", "test", "main_test.go"], cwd=where, env=env,
                          capture_output=True, timeout=300)  # fmt: skip
    return done.returncode == 0


@pytest.mark.parametrize("name", list(CASES))
def test_the_sandbox_passes_what_go_test_passes(languages_grader, tmp_path, name):
    source = CASES[name]
    passes = _go_test_plainly(source, tmp_path)
    assert passes is (name not in SANDBOX_FAILS)  # the reference itself, as listed
    problem = Problem(name, Harness.STDIN, [TestCase("", "")], time_limit=10.0, judge="exit")
    result = languages_grader.grade(problem, source, language="go_test")
    assert result.verdict is SANDBOX_FAILS.get(name, Verdict.AC), result


def test_a_failed_test_says_fail_in_its_output(languages_grader):
    problem = Problem("f", Harness.STDIN, [TestCase("", "")], time_limit=10.0, judge="exit")
    result = languages_grader.grade(problem, CASES["testify_fails"], language="go_test")
    assert result.verdict is Verdict.RE and "exit status 1" in result.message
    assert "FAIL" in result.tests[0].stdout
