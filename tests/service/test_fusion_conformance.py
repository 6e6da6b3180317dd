"""SandboxFusion's semantics, as a client switching from it needs them (issue 43): its
``/submit`` judge (bytedance/SandboxFusion 469de08, ``sandbox/utils/testing.py``
``check_stdio_test_case``), its client's default request, its liveness probe; every option of
``/grade`` checked; no checker that runs outside the sandbox taken from a client."""

from __future__ import annotations

import base64
import socket
import time

import pytest
import requests
from sandbox_fusion import RunCodeRequest, SubmitRequest, TestConfig, run_code, submit

from tests.frameworks.readme import guide

from .conftest import start_server


def _submit(server, program: str, expected: str, **extra):
    tests = [{"input": {"stdin": ""}, "output": {"stdout": expected}}]
    request = SubmitRequest(
        dataset="code_contests",
        id=1,
        completion=f"```python\n{program}\n```",
        config=TestConfig(
            language="python",
            dataset_type="CommonOJDataset",
            provided_data={"test": tests},
            extra=extra,
        ),
    )
    return submit(request, endpoint=server.url, max_attempts=1, client_timeout=60)


@pytest.mark.parametrize(
    ("printed", "expected", "theirs"),
    [
        ("YES", "yes\n", True),  # every line lower-cased
        ("1.0", "1\n", True),  # both floats: 1e-5 relative
        ("0.1000001", "0.1\n", True),
        (" 1 2", "1 2\n", True),  # each line stripped
        ("1000000007", "1000000000\n", True),  # integers within 1e-5 relative too (theirs)
        ("1  2", "1 2\n", False),  # spacing inside a line still counts
        ("NO", "yes\n", False),
        ("1\\n2", "1\n", False),
    ],
)
def test_submit_judges_by_sandbox_fusions_rule(server, printed, expected, theirs):
    result = _submit(server, f"print('{printed}')", expected)
    assert result.accepted is theirs, result.tests[0].test_info


def test_submit_takes_a_stricter_judge_by_name(server):
    assert _submit(server, "print('YES')", "yes\n").accepted
    assert not _submit(server, "print('YES')", "yes\n", judge="lines").accepted
    assert _submit(server, "print('YES')", "yes\n", judge="yesno").accepted
    bad = requests.post(
        f"{server.url}/submit",
        json={
            "dataset": "x",
            "id": 1,
            "completion": "print(1)",
            "config": {
                "language": "python",
                "provided_data": {"test": []},
                "extra": {"judge": "?"},
            },
        },
        timeout=30,
    )
    assert bad.status_code == 400 and "config.extra.judge" in bad.json()["error"]


def test_the_official_clients_default_request_runs(server):
    """The client sends ``"stdin": null`` by default (its model's ``Optional[str] = None``)."""
    result = run_code(
        RunCodeRequest(code="print(1)", language="python"),
        endpoint=server.url,
        max_attempts=1,
        client_timeout=60,
    )
    assert result.status == "Success" and result.run_result.stdout == "1\n"


def test_ping_answers_json_as_sandbox_fusion_does(server):
    answer = requests.get(f"{server.url}/v1/ping", timeout=10)
    assert answer.status_code == 200 and answer.json() == "pong"
    assert answer.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"time_limit": "abc"}, "options.time_limit"),
        ({"time_limit": -1}, "options.time_limit"),
        ({"time_limit": 1e9}, "options.time_limit"),
        ({"memory_limit": 1}, "options.memory_limit"),
        ({"memory_limit": 100.5}, "options.memory_limit"),
        ({"judge": "nope"}, "options.judge"),
        ({"judge": {"type": "program", "path": "/bin/sh"}}, "options.judge"),
        ({"isolation": "none"}, "options.isolation"),
        ({"environment": "mars"}, "options.environment"),
        ({"early_exit": "yes"}, "options.early_exit"),
    ],
)
def test_every_grade_option_is_checked(server, options, field):
    problem = {"id": "p", "harness": "stdin", "tests": [{"input": "", "output": "1\n"}]}
    body = {"problems": [problem], "samples": [{"id": "p", "code": "print(1)"}], "options": options}
    answer = server.post("/grade", body)
    assert answer.status_code == 400 and f"field {field!r}" in answer.json()["error"]
    good = server.post("/grade", {**body, "options": {}})
    assert good.status_code == 200 and good.json()["results"][0]["graded_list"] == [True]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        # past the ceiling of any limit from data: refused where the record is read
        ({"time_limit": 10_000}, "problems: record 1: field 'time_limit': at most 600 seconds"),
        ({"memory_limit": 2}, "problem 'p': field 'memory_limit'"),
        ({"judge": {"type": "program", "path": "/bin/sh"}}, "problem 'p': a 'program' checker"),
        ({"judge": {"type": "codeforces", "code": "print(1)"}}, "problem 'p': a 'codeforces'"),
    ],
)
def test_a_clients_problem_cannot_ask_for_more_than_the_server_gives(server, change, said):
    problem = {"id": "p", "harness": "stdin", "tests": [{"input": "", "output": "1\n"}], **change}
    body = {"problems": [problem], "samples": [{"id": "p", "code": "print(1)"}]}
    answer = server.post("/grade", body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith(said), answer.json()["error"]


def test_trusted_checkers_only_on_a_server_told_to_trust_them(tmp_path):
    server = start_server(tmp_path, "--workers", "1", "--trust-checkers")
    try:
        checker = {"type": "codeforces", "code": "print(1)"}  # accepts every answer
        problem = {"id": "p", "harness": "stdin", "tests": [{"input": "", "output": "x"}]}
        body = {
            "problems": [{**problem, "judge": checker}],
            "samples": [{"id": "p", "code": "print(2)"}],
        }
        answer = server.post("/grade", body)
        assert answer.status_code == 200 and answer.json()["results"][0]["graded_list"] == [True]
    finally:
        assert server.stop()


def test_a_token_with_other_characters_is_401_not_500(tmp_path):
    server = start_server(tmp_path, "--workers", "1", "--token", "s3cret")
    try:
        body = {"code": "print(1)", "language": "python"}
        for token in ("sécret", "s3cret\u2028", "\udcff"):
            headers = {
                "Authorization": "Bearer "
                + token.encode("utf-8", "surrogatepass").decode("latin-1")
            }
            answer = requests.post(f"{server.url}/run_code", json=body, headers=headers, timeout=30)
            assert answer.status_code == 401
    finally:
        assert server.stop()


def test_a_client_that_goes_away_mid_body_is_one_log_line(server):
    with socket.create_connection(
        ("127.0.0.1", int(server.url.rsplit(":", 1)[1])), timeout=10
    ) as s:
        s.sendall(
            b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"code": "print(1)"'
        )
        time.sleep(0.3)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "went away" not in server.log.read_text():
        time.sleep(0.1)
    log = server.log.read_text()
    assert "the client went away before its request was read" in log
    assert "Traceback" not in log
    assert server.post("/run_code", {"code": "print(1)", "language": "python"}).status_code == 200


def test_output_past_the_answer_cap_is_cut_and_said(server):
    body = {"code": "import sys\nsys.stdout.write('x' * (10 << 20))", "language": "python"}
    answer = server.post("/run_code", body).json()
    run = answer["run_result"]
    assert answer["status"] == "Success"
    assert len(run["stdout"]) == 8 << 20 and run["stdout_truncated"] is True
    assert run["stderr_truncated"] is False
    small = server.post("/run_code", {"code": "print(1)", "language": "python"}).json()
    assert small["run_result"]["stdout_truncated"] is False


# -- the conformance table ----------------------------------------------------------------------
#
# Each case: a request, SandboxFusion's answer as its code at 469de08 gives it (the fields
# that answer fixes, and where in its code), and, where we differ, the row of docs/service.md's
# deviation table that says so and our answer. A path is dotted into the answer (``status`` is
# the HTTP status, ``len:`` a string's length). A case without a deviation must get
# SandboxFusion's answer.

COMMIT = "469de0845cb7d665bc68044d541aa3aa28c5b30a"
API = "sandbox/server/sandbox_api.py"  # RunCodeRequest, RunCodeResponse, parse_run_status
BASE = "sandbox/runners/base.py"  # run_command_bare, run_commands, restore_files
MAJOR = "sandbox/runners/major.py"  # run_python, run_cpp
MINOR = "sandbox/runners/minor.py"  # run_kotlin_script, run_racket...
JEST_SUM = (  # SandboxFusion's own jest tests' shape: @jest/globals, a TypeScript function
    "import {{ describe, expect, test }} from '@jest/globals';\n"
    "function sum(a: number, b: number): number {{ return a + b; }}\n"
    "describe('sum', () => {{ test('adds', () => {{ expect(sum(1, 2)).toBe({expected}); }}); }});\n"
)
TESTING = "sandbox/utils/testing.py"  # check_stdio_test_case (/submit's CommonOJDataset)
OJ_API = "sandbox/server/online_judge_api.py"  # /submit, get_dataset_cls
LOOP = "while True:\n    pass\n"
SLOW_CPP = (
    "template <int N> struct F { static constexpr long v = F<N - 1>::v * 3 % 1000003 + N; };\n"
    "template <> struct F<0> { static constexpr long v = 1; };\n"
    "int main() { return F<850>::v + F<851>::v + F<852>::v + F<853>::v == 0; }\n"
)


JAVA_MAIN = "public class Main {{ public static void main(String[] a) {{ {body} }} }}\n"
JUNIT = (
    "{package}\nimport org.junit.jupiter.api.Test;\n{imports}\n"
    "import static org.junit.jupiter.api.Assertions.assertEquals;\n"
    "public class SumTest {{ @Test void sum() {{ assertEquals({expected}, 2 + 3); }} }}\n"
)
JUNIT_5_9 = "import org.junit.jupiter.api.io.CleanupMode;"  # new in JUnit 5.9


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _run(**body) -> dict:
    return {"language": "python", **body}


def _submit_body(completion: str, language: str = "python", **config) -> dict:
    tests = [{"input": {"stdin": ""}, "output": {"stdout": "yes\n"}}]
    return {
        "dataset": "x",
        "id": 7,
        "completion": completion,
        "config": {"language": language, "provided_data": {"test": tests}, **config},
    }


CASES: list[dict] = [
    # RunCodeRequest: fields, defaults and FastAPI's lax validation
    {
        "id": "minimal-request",
        "body": _run(code="print(1)"),
        "theirs": {
            "status": 200,
            "json.status": "Success",
            "json.message": "",
            "json.compile_result": None,
            "json.run_result.status": "Finished",
            "json.run_result.return_code": 0,
            "json.run_result.stdout": "1\n",
            "json.run_result.stderr": "",
            "json.files": {},
        },
        "source": f"{API} run_code, parse_run_status",
    },
    {
        "id": "stdin-null",
        "body": _run(code="print('x')", stdin=None),
        "theirs": {"status": 200, "json.status": "Success", "json.run_result.stdout": "x\n"},
        "source": f"{API} RunCodeRequest.stdin Optional[str] = None",
    },
    {
        "id": "stdin-given",
        "body": _run(code="print(input()[::-1])", stdin="abc\n"),
        "theirs": {"json.run_result.stdout": "cba\n"},
        "source": f"{BASE} run_command_bare (stdin written, then closed)",
    },
    {
        "id": "timeout-as-text",
        "body": _run(code="print(2)", run_timeout="5", compile_timeout="7"),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{API} RunCodeRequest.run_timeout: float (pydantic lax: '5' is 5.0)",
    },
    {
        "id": "memory-whole-float",
        "body": _run(code="print(3)", memory_limit_MB=512.0),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{API} RunCodeRequest.memory_limit_MB: int (512.0 is 512)",
    },
    {
        "id": "memory-fractional",
        "body": _run(code="print(3)", memory_limit_MB=1.5),
        "theirs": {"status": 422, "json.detail.0.loc": ["body", "memory_limit_MB"]},
        "source": f"{API} RunCodeRequest.memory_limit_MB: int (int_from_float)",
    },
    {
        "id": "timeout-not-a-number",
        "body": _run(code="print(1)", run_timeout="abc"),
        "theirs": {
            "status": 422,
            "json.detail.0.loc": ["body", "run_timeout"],
            "json.detail.0.type": "float_parsing",
        },
        "source": f"{API} RunCodeRequest.run_timeout: float",
    },
    {
        "id": "code-missing",
        "body": {"language": "python"},
        "theirs": {
            "status": 422,
            "json.detail.0.loc": ["body", "code"],
            "json.detail.0.type": "missing",
        },
        "source": f"{API} RunCodeRequest.code = Field(...)",
    },
    {
        "id": "language-unknown",
        "body": _run(code="x", language="cobol"),
        "theirs": {"status": 422, "json.detail.0.loc": ["body", "language"]},
        "source": "sandbox/runners/types.py Language literal",
    },
    {
        "id": "unknown-field-ignored",
        "body": _run(code="print(1)", something_else=[1, 2]),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{API} RunCodeRequest (pydantic's default: extra fields ignored)",
    },
    {
        "id": "language-not-run-here",
        "body": _run(code="echo hi", language="bash"),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{MAJOR} run_bash",
        "deviation": "languages",
        "ours": {"status": 200, "json.status": "SandboxError", "json.run_result": None},
    },
    {
        "id": "junit-test-class",
        "body": _run(
            code=JUNIT.format(package="", expected=5, imports=""),
            language="junit",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {
            "json.status": "Success",
            "json.compile_result.return_code": 0,
            "json.run_result.return_code": 0,
        },
        "source": f"{MAJOR} run_junit (javac -cp <launcher>; java -jar <launcher> --scan-class-path)",
    },
    {
        "id": "junit-failing-test",
        "body": _run(
            code=JUNIT.format(package="", expected=6, imports=""),
            language="junit",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Failed", "json.run_result.return_code": 1},
        "source": f"{MAJOR} run_junit (the launcher exits 1 when a test failed)",
    },
    {
        "id": "junit-in-a-package",
        "body": _run(
            code=JUNIT.format(package="package p;", expected=6, imports=""),
            language="junit",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "json.run_result.return_code": 0},
        "source": f"{MAJOR} run_junit (javac without -d: ./SumTest.class, not loadable as p.SumTest)",
        "deviation": "junit-package",
        "ours": {"json.status": "Failed", "json.run_result.return_code": 1},
    },
    {
        "id": "junit-5-9-api",
        "body": _run(
            code=JUNIT.format(package="", expected=5, imports=JUNIT_5_9),
            language="junit",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Failed", "json.compile_result.return_code": 1},
        "source": f"{MAJOR} run_junit (launcher 1.8.2: Jupiter 5.8.2 has no io.CleanupMode)",
        "deviation": "junit-version",
        "ours": {"json.status": "Success", "json.compile_result.return_code": 0},
    },
    {
        "id": "pytest-file",
        "body": _run(code="def test_sum():\n    assert 2 + 3 == 5\n", language="pytest"),
        "theirs": {
            "json.status": "Success",
            "json.compile_result": None,
            "json.run_result.return_code": 0,
        },
        "source": f"{MAJOR} run_pytest (pytest <file>.py; compile_result none)",
    },
    {
        "id": "pytest-file-name",
        "body": _run(
            code="import os\ndef test_name():\n    assert os.path.basename(__file__).startswith('tmp')\n",
            language="pytest",
        ),
        "theirs": {"json.status": "Success", "json.run_result.return_code": 0},
        "source": f"{MAJOR} run_pytest (NamedTemporaryFile(suffix='.py'): tmpXXXXXXXX.py)",
        "deviation": "pytest-run",
        "ours": {"json.status": "Failed", "json.run_result.return_code": 1},
    },
    {
        "id": "java-asserts-checked",
        "body": _run(
            code=JAVA_MAIN.format(body="assert 1 + 1 == 3;"), language="java", compile_timeout=60
        ),  # fmt: skip
        "theirs": {"json.status": "Failed", "json.run_result.return_code": 1},
        "source": f"{MAJOR} run_java (java -cp .:javatuples-1.2.jar -ea Main)",
    },
    {
        "id": "java-javatuples",
        "body": _run(
            code="import org.javatuples.Pair;\n"
            + JAVA_MAIN.format(body='System.out.println(Pair.with(1, "a"));'),
            language="java",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "json.run_result.stdout": "[1, a]\n"},
        "source": f"{MAJOR} run_java (javatuples-1.2.jar on the class path)",
    },
    {
        "id": "java-public-class-not-main",
        "body": _run(
            code=JAVA_MAIN.format(body="").replace("class Main", "class Solution"),
            language="java",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Failed", "json.compile_result.return_code": 1},
        "source": f"{MAJOR} run_java (the source is always Main.java: javac refuses it)",
        "deviation": "java-file-name",
        "ours": {"json.status": "Success", "json.compile_result.return_code": 0},
    },
    {
        "id": "csharp-program",
        "body": _run(
            code="using System;\nclass Program { static void Main() {\n"
            '  Console.WriteLine("sum " + (int.Parse(Console.ReadLine()) + 1)); } }\n',
            stdin="41\n",
            language="csharp",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {
            "json.status": "Success",
            "json.run_result.stdout": "sum 42\n",
            "json.compile_result": None,
        },  # fmt: skip
        "source": f"{MAJOR} run_csharp (dotnet run: no compile step of its own)",
        "deviation": "csharp-mono",
        "ours": {
            "json.status": "Success",
            "json.run_result.stdout": "sum 42\n",
            "json.compile_result.return_code": 0,
        },  # fmt: skip
    },
    {
        "id": "csharp-top-level-statements",
        "body": _run(
            code='System.Console.WriteLine("hi");\n', language="csharp", compile_timeout=60
        ),
        "theirs": {"json.status": "Success", "json.run_result.stdout": "hi\n"},
        "source": f"{MAJOR} run_csharp (.NET's C# 10: top-level statements)",
        "deviation": "csharp-mono",
        "ours": {"json.status": "Failed", "json.compile_result.return_code": 1},
    },
    {
        "id": "kotlin-script-mbxp",
        "body": _run(
            code="fun add(a: Int, b: Int): Int { return a + b }\n\nfun main() {\n"
            '    if (add(1, 2) != 3) throw Exception("test case 0 did not pass")\n'
            '    println("passed")\n}\n\nmain();\n',
            language="kotlin_script",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {
            "json.status": "Success",
            "json.run_result.stdout": "passed\n",
            "json.compile_result": None,
        },  # fmt: skip
        "source": f"{MINOR} run_kotlin_script (kotlin f.kts)",
        "deviation": "kotlin-version",
        "ours": {
            "json.status": "Success",
            "json.run_result.stdout": "passed\n",
            "json.compile_result.return_code": 0,
        },  # fmt: skip
    },
    {
        "id": "kotlin-script-readln",
        "body": _run(
            code="println(readln())\n", stdin="hi\n", language="kotlin_script", compile_timeout=60
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "json.run_result.stdout": "hi\n"},
        "source": f"{MINOR} run_kotlin_script (a Kotlin of 1.6 or later: readln)",
        "deviation": "kotlin-version",
        "ours": {"json.status": "Failed", "json.compile_result.return_code": 1},
    },
    {
        "id": "jest-pass",
        "body": _run(code=JEST_SUM.format(expected=3), language="jest"),
        "theirs": {
            "json.status": "Success",
            "json.run_result.return_code": 0,
            "json.compile_result": None,
        },  # fmt: skip
        "source": f"{MAJOR} run_jest (npm run test: jest, its exit status the run's)",
    },
    {
        "id": "jest-fail",
        "body": _run(code=JEST_SUM.format(expected=4), language="jest"),
        "theirs": {"json.status": "Failed", "json.run_result.return_code": 1},
        "source": f"{MAJOR} run_jest",
    },
    {
        "id": "jest-report-file",
        "body": _run(
            code=JEST_SUM.format(expected=3), language="jest", fetch_files=["jest-report.json"]
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "len:json.files": 1},
        "source": "runtime/node/package.json (testResultsProcessor: jest-json-reporter)",
        "deviation": "jest-run",
        "ours": {"json.status": "Success", "json.files": {}},
    },
    {
        "id": "nodejs-packages",
        "body": _run(code='console.log(require("lodash").sum([1, 2]));', language="nodejs"),
        "theirs": {"json.status": "Success", "json.run_result.stdout": "3\n"},
        "source": f"{MAJOR} run_nodejs (runtime/node/node_modules linked in: lodash, js-md5...)",
    },
    {
        "id": "nodejs-browser-packages",
        "body": _run(
            code='const { JSDOM } = require("jsdom");\nconsole.log(typeof JSDOM);',
            language="nodejs",
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "json.run_result.stdout": "function\n"},
        "source": f"{MAJOR} run_nodejs (its package.json: jsdom, @testing-library/dom, puppeteer)",
        "deviation": "nodejs-packages",
        "ours": {"json.status": "Failed", "json.run_result.return_code": 1},
    },
    {
        "id": "typescript-type-error",
        "body": _run(
            code='const x: number = "s" as any as string;\nconsole.log(x);',
            language="typescript",
            compile_timeout=60,
        ),  # fmt: skip
        "theirs": {"json.status": "Success", "json.run_result.stdout": "s\n"},
        "source": f"{MAJOR} run_typescript (tsx: types stripped, not checked)",
        "deviation": "typescript-types",
        "ours": {"json.status": "Failed", "json.compile_result.return_code": 1},
    },
    {
        "id": "php-tag-added",
        "body": _run(code='\n  echo "hi\\n";', language="php"),
        "theirs": {"json.status": "Success", "json.run_result.stdout": "hi\n"},
        "source": f"{MAJOR} run_php (ensure_php_tag_in_string: stripped, <?php put first)",
    },
    {
        "id": "php-tag-kept",
        "body": _run(code='<?php echo "hi\\n"; ?>\ntext', language="php"),
        "theirs": {"json.status": "Success", "json.run_result.stdout": "hi\ntext"},
        "source": f"{MAJOR} run_php (php -f: text outside the tags printed)",
    },
    {
        "id": "submit-php-tag-added",
        "endpoint": "/submit",
        "body": _submit_body('```php\necho "yes\\n";\n```', language="php"),
        "theirs": {"json.accepted": True},
        "source": "sandbox/utils/testing.py (/submit's runs are /run_code's: run_php)",
    },
    # RunCodeResponse: how a run ends
    {
        "id": "exit-status",
        "body": _run(code="import sys\nprint('p')\nsys.exit(3)"),
        "theirs": {
            "json.status": "Failed",
            "json.run_result.status": "Finished",
            "json.run_result.return_code": 3,
            "json.run_result.stdout": "p\n",
        },
        "source": f"{API} parse_run_status (a non-zero return code is Failed)",
    },
    {
        "id": "uncaught-exception",
        "body": _run(code="raise ValueError('x')"),
        "theirs": {"json.status": "Failed", "json.run_result.return_code": 1},
        "source": f"{API} parse_run_status; {MAJOR} run_python (python file.py)",
    },
    {
        "id": "run-timeout",
        "body": _run(code=LOOP, run_timeout=1),
        "theirs": {
            "json.status": "Failed",
            "json.run_result.status": "TimeLimitExceeded",
            "json.run_result.return_code": None,
        },
        "source": f"{BASE} run_command_bare (asyncio.wait_for: TimeLimitExceeded, no code)",
    },
    {
        "id": "run-timeout-over-cap",
        "body": _run(code="print(1)", run_timeout=1000),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{API} RunCodeRequest.run_timeout: float (no bound)",
        "deviation": "timeout-cap",
        "ours": {"status": 422, "json.detail.0.loc": ["body", "run_timeout"]},
    },
    {
        "id": "memory-over-the-ceiling",
        "body": _run(code="print(1)", memory_limit_MB=10**12),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{API} RunCodeRequest.memory_limit_MB: int (no bound)",
        "deviation": "memory-cap",
        "ours": {"status": 422, "json.detail.0.loc": ["body", "memory_limit_MB"]},
    },
    {
        "id": "memory-absent",
        "body": _run(code="b = bytearray(1200 << 20)\nprint(len(b) >> 20)"),
        "theirs": {"json.status": "Success", "json.run_result.stdout": "1200\n"},
        "source": f"{BASE} run_commands (limits only when memory_limit_MB > 0)",
        "deviation": "memory-default",
        "ours": {"json.status": "Failed", "json.run_result.stdout": ""},
    },
    {
        "id": "stdout-over-answer-cap",
        "body": _run(code="import sys\nsys.stdout.write('x' * (9 << 20))"),
        "theirs": {"json.status": "Success", "len:json.run_result.stdout": 9 << 20},
        "source": f"{BASE} run_command_bare (all of stdout)",
        "deviation": "answer-cap",
        "ours": {
            "json.status": "Success",
            "len:json.run_result.stdout": 8 << 20,
            "json.run_result.stdout_truncated": True,
        },
    },
    {
        "id": "stdout-over-output-limit",
        "body": _run(code="import sys\nsys.stdout.write('x' * (65 << 20))"),
        "theirs": {"json.status": "Success", "json.run_result.return_code": 0},
        "source": f"{BASE} run_command_bare (all of stdout)",
        "deviation": "output-limit",
        "ours": {"json.status": "Failed", "json.run_result.return_code": -9},
    },
    # files and fetch_files
    {
        "id": "files-written-and-fetched",
        "body": _run(
            code="s = open('d/in.txt').read()\nopen('out.txt', 'w').write(s.upper())",
            files={"d/in.txt": _b64("abc")},
            fetch_files=["out.txt", "d/in.txt"],
        ),
        "theirs": {
            "json.status": "Success",
            "json.files": {"out.txt": _b64("ABC"), "d/in.txt": _b64("abc")},
        },
        "source": f"{BASE} restore_files, run_commands (fetch_files)",
    },
    {
        "id": "fetch-missing-left-out",
        "body": _run(code="print(1)", fetch_files=["nothing.txt"]),
        "theirs": {"json.status": "Success", "json.files": {}},
        "source": f"{BASE} run_commands (os.path.isfile)",
    },
    {
        "id": "files-null-not-written",
        "body": _run(code="import os\nprint(os.path.exists('n.txt'))", files={"n.txt": None}),
        "theirs": {"json.run_result.stdout": "False\n"},
        "source": f"{BASE} restore_files (a content that is not a str is skipped)",
    },
    {
        "id": "files-ignored-name",
        "body": _run(
            code="import os\nprint(os.listdir('.'))", files={"IGNORE_THIS_FILE": _b64("x")}
        ),
        "theirs": {"json.run_result.stdout": "[]\n"},
        "source": f"{BASE} restore_files ('IGNORE_THIS_FILE' in the name)",
    },
    {
        "id": "files-lenient-base64",
        "body": _run(code="print(open('f').read())", files={"f": "YW\nJj"}),
        "theirs": {"json.run_result.stdout": "abc\n"},
        "source": f"{BASE} restore_files (base64.b64decode: characters outside dropped)",
    },
    {
        "id": "files-bad-base64",
        "body": _run(code="print(1)", files={"f": "abc"}),
        "theirs": {"status": 200, "json.status": "SandboxError"},
        "source": f"{API} run_code (restore_files raises: SandboxError)",
        "deviation": "bad-base64",
        "ours": {"status": 422, "json.detail.0.loc": ["body", "files", "f"]},
    },
    {
        "id": "files-outside",
        "body": _run(code="print(1)", files={"../up.txt": _b64("x")}),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{BASE} restore_files (os.path.join(dir, filename))",
        "deviation": "file-paths",
        "ours": {"status": 422, "json.detail.0.loc": ["body", "files"]},
    },
    {
        "id": "fetch-absolute",
        "body": _run(code="print(1)", fetch_files=["/etc/hostname"]),
        "theirs": {"status": 200, "json.status": "Success"},
        "source": f"{BASE} run_commands (os.path.join: an absolute path is the host's)",
        "deviation": "file-paths",
        "ours": {"status": 422, "json.detail.0.loc": ["body", "fetch_files"]},
    },
    {
        "id": "fetch-link",
        "body": _run(code="import os\nos.symlink('/etc/hostname', 'h')", fetch_files=["h"]),
        "theirs": {"json.status": "Success", "json.files.h": "<the host's file>"},
        "source": f"{BASE} run_commands (isfile and open follow the link)",
        "deviation": "fetch-regular",
        "ours": {"json.files": {}, "json.files_not_fetched": {"h": "a symbolic link"}},
    },
    # C++: compile_result, compile_timeout
    {
        "id": "cpp-run",
        "body": _run(code='#include <cstdio>\nint main(){puts("ok");}', language="cpp"),
        "theirs": {
            "json.status": "Success",
            "json.compile_result.status": "Finished",
            "json.compile_result.return_code": 0,
            "json.run_result.stdout": "ok\n",
        },
        "source": f"{MAJOR} run_cpp; {BASE} run_commands",
    },
    {
        "id": "cpp-compile-error",
        "body": _run(code="int main() { return nope; }", language="cpp"),
        "theirs": {
            "json.status": "Failed",
            "json.compile_result.status": "Finished",
            "json.compile_result.return_code": 1,
            "json.run_result": None,
        },
        "source": f"{BASE} run_commands (no run after a failed compile)",
    },
    {
        "id": "cpp-compile-timeout",
        "body": _run(code=SLOW_CPP, language="cpp", compile_timeout=0.05),
        "theirs": {
            "json.status": "Failed",
            "json.compile_result.status": "TimeLimitExceeded",
            "json.compile_result.return_code": None,
            "json.run_result": None,
        },
        "source": f"{BASE} run_commands (compile under asyncio.wait_for(compile_timeout))",
    },
    {
        "id": "cpp-compile-error-fetch",
        "body": _run(
            code="int main() { return nope; }",
            language="cpp",
            files={"given.txt": _b64("g")},
            fetch_files=["given.txt"],
        ),
        "theirs": {"json.status": "Failed", "json.files": {"given.txt": _b64("g")}},
        "source": f"{BASE} run_commands (fetch_files read whatever the compile did)",
        "deviation": "compile-error-files",
        "ours": {"json.status": "Failed", "json.files": {}},
    },
    # /submit (CommonOJDataset)
    {
        "id": "submit-accepted-by-their-rule",
        "endpoint": "/submit",
        "body": _submit_body("```python\nprint('YES')\n```"),
        "theirs": {
            "status": 200,
            "json.id": 7,
            "json.accepted": True,
            "json.extracted_code": "print('YES')",
            "json.tests.0.passed": True,
            "json.tests.0.exec_info.status": "Success",
            "json.tests.0.test_info.input": {"stdin": ""},
        },
        "source": f"{TESTING} check_stdio_test_case (lower-cased, stripped lines)",
    },
    {
        "id": "submit-first-failure-stops",
        "endpoint": "/submit",
        "body": {
            **_submit_body("```python\nprint('no')\n```"),
            "config": {
                "language": "python",
                "provided_data": {
                    "test": [{"input": {"stdin": ""}, "output": {"stdout": "yes"}}] * 3
                },
            },
        },
        "theirs": {"json.accepted": False, "len:json.tests": 1},
        "source": f"{TESTING} check_stdio_test_cases (break at the first failure)",
    },
    {
        "id": "submit-passed-stdout",
        "endpoint": "/submit",
        "body": _submit_body("```python\nprint('yes')\n```"),
        "theirs": {"json.tests.0.exec_info.run_result.stdout": "yes\n"},
        "source": f"{TESTING} check_stdio_test_case (exec_info is the run's response)",
        "deviation": "submit-stdout",
        "ours": {"json.tests.0.exec_info.run_result.stdout": ""},
    },
    {
        "id": "submit-cpp-compile-result",
        "endpoint": "/submit",
        "body": _submit_body(
            '```cpp\n#include <cstdio>\nint main(){puts("yes");}\n```', language="cpp"
        ),
        "theirs": {"json.accepted": True, "json.tests.0.exec_info.compile_result.return_code": 0},
        "source": f"{TESTING} check_stdio_test_case (one /run_code per test, built each time)",
        "deviation": "submit-compile-result",
        "ours": {"json.accepted": True, "json.tests.0.exec_info.compile_result": None},
    },
    {
        "id": "submit-other-dataset",
        "endpoint": "/submit",
        "body": _submit_body("```python\nprint(1)\n```", dataset_type="HumanEvalDataset"),
        "theirs": {"status": 200},
        "source": f"{OJ_API} get_dataset_cls (its own HumanEval rows)",
        "deviation": "submit-datasets",
        "ours": {"status": 400},
    },
    {
        "id": "submit-no-language",
        "endpoint": "/submit",
        "body": {
            **_submit_body("print(1)"),
            "config": {"provided_data": {"test": []}},
        },
        "theirs": {"status": 400},
        "source": "sandbox/datasets/common_oj.py (language must exist for CommonOJDataset)",
    },
]


def _at(answer: requests.Response, path: str):
    """The value at ``path`` in ``answer`` (see the table's notes)."""
    length = path.startswith("len:")
    path = path.removeprefix("len:")
    if path == "status":
        return answer.status_code
    value = answer.json()
    for part in path.split(".")[1:]:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return len(value) if length else value


def _documented_deviations() -> dict[str, str]:
    """docs/service.md's table of deviations from SandboxFusion: its rows by their id."""
    text = guide("service.md")
    start = text.index("Where `/run_code` and `/submit` differ from SandboxFusion")
    rows = {}
    for line in text[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:  # the table's end
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = line
    return rows


def test_every_deviation_is_documented_and_every_row_has_a_case():
    rows = _documented_deviations()
    used = {case["deviation"] for case in CASES if "deviation" in case}
    assert used <= set(rows), used - set(rows)
    untested = set(rows) - used - {"compile-timeout-absent"}  # the server's own limits
    assert not untested, untested
    assert len({case["id"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_conformance_case(server, case):
    """SandboxFusion's answer (as its code at COMMIT gives it), or ours where docs/service.md
    lists the deviation."""
    answer = server.post(case.get("endpoint", "/run_code"), case["body"])
    want = case.get("ours", case["theirs"])
    got = {path: _at(answer, path) for path in want}
    assert got == want, (case["source"], answer.text[:1000])
    if "deviation" in case:  # and the difference is real: their answer is not ours
        theirs = {}
        for path in case["theirs"]:
            try:
                theirs[path] = _at(answer, path)
            except (KeyError, IndexError, TypeError):
                theirs[path] = "<absent>"
        assert theirs != case["theirs"], f"{case['id']} conforms now: drop its deviation"
