"""SandboxFusion's own PyPI client (``sandbox-fusion``) against ``mcevaluate serve``: every
kind of run, with the fields the client and verl read."""

from __future__ import annotations

import pytest
from sandbox_fusion import RunCodeRequest, RunStatus, SummaryMapping, run_code
from sandbox_fusion.client import summary_run_code_result

MAPPING = SummaryMapping(
    Success="ok", Failed="failed", RunFailed="run failed", RunTimeout="run timeout"
)


def _run(server, code: str, stdin: str = "", timeout: float = 5):
    request = RunCodeRequest(code=code, stdin=stdin, language="python", run_timeout=timeout)
    return run_code(request, endpoint=server.url, max_attempts=1, client_timeout=60)


def test_right_output(server):
    response = _run(server, "print(sum(map(int, input().split())))", "2 3\n")
    assert response.status == RunStatus.Success
    result = response.run_result
    assert (result.status, result.return_code, result.stdout, result.stderr) == (
        "Finished",
        0,
        "5\n",
        "",
    )
    assert 0 < result.execution_time < 5
    assert summary_run_code_result(response, MAPPING) == "ok"


def test_wrong_output_is_still_a_successful_run(server):
    response = _run(server, "print(int(input()) * 2)", "21\n")
    assert response.status == RunStatus.Success
    assert response.run_result.stdout == "42\n"  # the client compares; the run succeeded


def test_an_exception_is_a_failed_run_with_its_traceback(server):
    response = _run(server, "input()\nraise KeyError('boom')", "x\n")
    assert response.status == RunStatus.Failed
    assert response.run_result.status == "Finished"
    assert response.run_result.return_code == 1  # as `python3 solution.py` exits
    assert response.run_result.stderr.splitlines()[-1] == "KeyError: 'boom'"
    assert summary_run_code_result(response, MAPPING) == "run failed"


def test_an_exit_status_is_kept(server):
    response = _run(server, "import sys\nprint('partial')\nsys.exit(3)")
    assert response.status == RunStatus.Failed
    assert (response.run_result.return_code, response.run_result.stdout) == (3, "partial\n")


def test_a_timeout(server):
    response = _run(server, "while True:\n    pass\n", timeout=1)
    assert response.status == RunStatus.Failed
    assert response.run_result.status == "TimeLimitExceeded"
    assert 0.9 < response.run_result.execution_time < 5
    assert summary_run_code_result(response, MAPPING) == "run timeout"


def test_a_sleeping_program_times_out_by_the_wall_clock(server):
    response = _run(server, "import time\ntime.sleep(30)", timeout=1)
    assert response.run_result.status == "TimeLimitExceeded"
    assert response.run_result.execution_time < 5


def test_memory_over_the_limit(server):
    # memory_limit_MB is verl's field (the client's model has none): sent as JSON here
    import requests

    body = {
        "code": "x = bytearray(600 << 20)\nprint(len(x))",
        "language": "python",
        "memory_limit_MB": 256,
        "run_timeout": 10,
    }
    answer = requests.post(f"{server.url}/run_code", json=body, timeout=60).json()
    assert answer["status"] == "Failed"
    assert answer["run_result"]["status"] == "Finished"
    assert answer["run_result"]["return_code"] != 0
    assert answer["run_result"]["stdout"] == ""


def test_memory_within_the_limit(server):
    response = _run(server, "x = bytearray(100 << 20)\nprint(len(x))")
    assert response.status == RunStatus.Success
    assert response.run_result.stdout == f"{100 << 20}\n"


def test_an_output_flood_is_stopped(server):
    response = _run(server, "while True:\n    print('x' * 1000)\n", timeout=5)
    assert response.status == RunStatus.Failed
    result = response.run_result
    assert result.status == "Finished" and result.return_code == -9
    assert 0 < len(result.stdout) <= 65 << 20 and set(result.stdout) <= {"x", "\n"}


@pytest.mark.parametrize("language", ["bash", "swift"])
def test_a_language_not_served_answers_sandbox_errors_shape(server, language):
    import requests

    body = {"code": "int main(){}", "language": language}
    answer = requests.post(f"{server.url}/run_code", json=body, timeout=60).json()
    assert answer["status"] == "SandboxError"
    assert "not supported" in answer["message"] and answer["run_result"] is None
    served = (
        "(D_ut, R, cpp, csharp, go, go_test, java, jest, junit, kotlin_script, lua, nodejs, perl, "
        "php, pytest, python, racket, ruby, rust, scala, typescript, verilog)"
    )
    assert served in answer["message"]


JAVA_SUM = """import java.util.*;
public class Main { public static void main(String[] a) {
  Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong(); System.out.println(x OP y); } }
"""
NODE_SUM = 'const [x, y] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);\nconsole.log(x OP y);'
GO_SUM = 'package main\nimport "fmt"\nfunc main() { var x, y int; fmt.Scan(&x, &y); fmt.Println(x OP y) }'
RUST_SUM = """fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap();
  let v: Vec<i64> = s.split_whitespace().map(|t| t.parse().unwrap()).collect(); println!("{}", v[0] OP v[1]); }"""

VERILOG_SUM = """module tb; integer x, y, r;
  initial begin r = $fscanf(32'h8000_0000, "%d %d", x, y); $display("%0d", x OP y); end
endmodule
"""


@pytest.mark.parametrize(
    ("language", "code", "compiled"),
    [
        ("java", JAVA_SUM, True),
        ("nodejs", NODE_SUM, False),
        ("typescript", NODE_SUM.replace("const [x, y]", "const [x, y]: number[]"), True),
        ("go", GO_SUM, True),
        ("rust", RUST_SUM, True),
        ("perl", 'my ($x, $y) = split " ", <STDIN>; print $x OP $y, "\\n";', False),
        ("ruby", "x, y = gets.split.map(&:to_i)\nputs x OP y", False),
        ("php", '<?php [$x, $y] = explode(" ", trim(fgets(STDIN))); echo $x OP $y, "\\n";', False),
        ("lua", 'local x, y = io.read("n", "n")\nprint(x OP y)', False),
        ("racket", "#lang racket\n(displayln (OP (read) (read)))", False),
        ("verilog", VERILOG_SUM, True),
        ("R", 'x <- scan(file("stdin"), quiet = TRUE)\ncat(x[1] OP x[2], "\\n", sep = "")', False),
        (
            "scala",
            "object Main extends App { val Array(x, y) = io.StdIn.readLine().split(' ').map(_.toInt); println(x OP y) }",
            True,
        ),
    ],
)
def test_other_languages_are_served(server, language, code, compiled):
    """SandboxFusion's ``java``, ``typescript``, ``go``, ``rust`` (built, then run),
    ``nodejs``, ``perl``, ``ruby``, ``php`` and ``lua`` (no compile: ``compile_result`` null,
    as SandboxFusion's) run on ``stdin`` in the sandbox."""
    for op, answer in (("+", "5\n"), ("-", "-1\n")):
        request = RunCodeRequest(code=code.replace("OP", op), stdin="2 3", language=language,
                                 run_timeout=10)  # fmt: skip
        response = run_code(request, endpoint=server.url, max_attempts=1, client_timeout=120)
        assert response.status == RunStatus.Success, response
        assert (response.compile_result is not None) == compiled
        result = response.run_result
        assert (result.status, result.return_code, result.stdout) == ("Finished", 0, answer)


GO_TEST = 'package main\nimport "testing"\nfunc TestSum(t *testing.T) { if 2 OP 3 != 5 { t.Fatal("no") } }'
JUNIT = """import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
public class SumTest { @Test void sum() { assertEquals(OP, 2 + 3); } }
"""


D_UT = """import std.stdio;
int sum(int a, int b) { return a + b; }
unittest { assert(sum(2, 3) OP 5); }
void main() { writeln("main"); }
"""


@pytest.mark.parametrize(
    ("language", "code", "right", "wrong"),
    [
        ("go_test", GO_TEST, ("+", "PASS"), ("-", "FAIL")),
        ("D_ut", D_UT, ("==", "modules passed unittests"), ("!=", "unittest failure")),
        ("junit", JUNIT, ("5", "1 tests successful"), ("6", "1 tests failed")),
    ],
)
def test_test_programs_run_as_their_runners_do(server, language, code, right, wrong):
    """SandboxFusion's ``go_test``: a ``_test.go`` file, built as ``go test`` builds it, its
    test binary run; ``D_ut``: a D program built with its unit tests on as ``dmd -unittest``
    builds it (gdc ``-funittest``), then run; ``junit``: test classes under JUnit's console
    launcher. A passing test exits 0 saying so, a failed one
    1, naming the failure."""
    for (op, said), status, exit_code in (
        (right, RunStatus.Success, 0),
        (wrong, RunStatus.Failed, 1),
    ):
        request = RunCodeRequest(code=code.replace("OP", op), language=language,
                                 run_timeout=10, compile_timeout=60)  # fmt: skip
        response = run_code(request, endpoint=server.url, max_attempts=1, client_timeout=180)
        assert response.status == status, response
        assert response.compile_result.return_code == 0
        assert response.run_result.return_code == exit_code
        assert said in response.run_result.stdout + response.run_result.stderr


PYTEST_FILE = """import sys

def add(a, b):
    return a + b

def test_add():
    print("to stdout")
    assert add(2, 3) == OP
"""


@pytest.mark.parametrize(
    ("expected", "status", "return_code", "said"),
    [
        ("5", RunStatus.Success, 0, "1 passed"),
        ("6", RunStatus.Failed, 1, "1 failed"),
        ("undefined_name", RunStatus.Failed, 1, "NameError"),
    ],
)
def test_pytest_runs_the_file_as_pytest_does(server, expected, status, return_code, said):
    """SandboxFusion's ``pytest``: the code is a test file, run as ``pytest f.py``: its
    report on stdout, and pytest's exit status the run's (0 passed, 1 failed)."""
    request = RunCodeRequest(code=PYTEST_FILE.replace("OP", expected), language="pytest",
                             run_timeout=20)  # fmt: skip
    response = run_code(request, endpoint=server.url, max_attempts=1, client_timeout=120)
    assert response.status == status, response
    assert response.compile_result is None
    assert response.run_result.return_code == return_code
    assert said in response.run_result.stdout and "test_code.py" in response.run_result.stdout


def test_pytest_exit_statuses_are_pytests(server):
    """No test collected: 5; a file that does not import: 2 (collection interrupted)."""
    for code, return_code in (("x = 1\n", 5), ("import no_such_module\n", 2)):
        request = RunCodeRequest(code=code, language="pytest", run_timeout=20)
        response = run_code(request, endpoint=server.url, max_attempts=1, client_timeout=120)
        assert response.run_result.return_code == return_code, response


def _run_cpp(server, code: str, stdin: str = "", timeout: float = 5):
    request = RunCodeRequest(code=code, stdin=stdin, language="cpp", run_timeout=timeout)
    return run_code(request, endpoint=server.url, max_attempts=1, client_timeout=120)


CPP_SUM = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'


def test_cpp_is_built_then_run(server):
    response = _run_cpp(server, CPP_SUM, "2 3\n")
    assert response.status == RunStatus.Success, response
    assert (response.compile_result.status, response.compile_result.return_code) == ("Finished", 0)
    result = response.run_result
    assert (result.status, result.return_code, result.stdout) == ("Finished", 0, "5\n")
    assert summary_run_code_result(response, MAPPING) == "ok"


def test_cpp_that_does_not_build_is_a_failed_compile(server):
    response = _run_cpp(server, "int main() { return nope; }\n")
    assert response.status == RunStatus.Failed
    assert response.run_result is None
    assert response.compile_result.return_code == 1
    assert "'nope' was not declared" in response.compile_result.stderr
    assert summary_run_code_result(response, MAPPING) == "failed"


@pytest.mark.parametrize(
    ("body", "want"),
    [
        ("int main(){ return 3; }", ("Finished", 3)),
        ("#include <cstdlib>\nint main(){ abort(); }", ("Finished", -6)),
        ("int main(){ volatile int *p = nullptr; return *p; }", ("Finished", -11)),
        ("int main(){ for(;;); }", ("TimeLimitExceeded", None)),
    ],
    ids=["exit-3", "abort", "segfault", "loop"],
)
def test_cpp_exit_paths_are_what_a_plain_run_reports(server, body, want):
    response = _run_cpp(server, body, timeout=1)
    assert response.status == RunStatus.Failed
    assert (response.run_result.status, response.run_result.return_code) == want


def test_the_guides_client_snippet(server, capsys):
    from tests.frameworks.readme import readme_snippet

    snippet = readme_snippet("# service: client", "service.md")
    exec(
        compile(snippet.replace("http://127.0.0.1:8080", server.url), "docs/service.md", "exec"), {}
    )
    assert capsys.readouterr().out == "RunStatus.Success cba\n"


def test_the_guides_start_lines_are_the_commands_options():
    from click.testing import CliRunner

    from evaluator.cli import main
    from tests.frameworks.readme import readme_snippet

    snippet = readme_snippet("# service: start", "service.md")
    help_text = CliRunner().invoke(main, ["serve", "--help"]).output
    for word in snippet.split():
        if word.startswith("--"):
            assert word in help_text, word
