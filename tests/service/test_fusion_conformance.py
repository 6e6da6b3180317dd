"""SandboxFusion's semantics, as a client switching from it needs them (issue 43): its
``/submit`` judge (bytedance/SandboxFusion 469de08, ``sandbox/utils/testing.py``
``check_stdio_test_case``), its client's default request, its liveness probe; every option of
``/grade`` checked; no checker that runs outside the sandbox taken from a client."""

from __future__ import annotations

import socket
import time

import pytest
import requests
from sandbox_fusion import RunCodeRequest, SubmitRequest, TestConfig, run_code, submit

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
    ("change", "words"),
    [
        ({"time_limit": 10_000}, "time_limit"),
        ({"memory_limit": 2}, "memory_limit"),
        ({"judge": {"type": "program", "path": "/bin/sh"}}, "'program' checker runs outside"),
        ({"judge": {"type": "codeforces", "code": "print(1)"}}, "'codeforces' checker runs"),
    ],
)
def test_a_clients_problem_cannot_ask_for_more_than_the_server_gives(server, change, words):
    problem = {"id": "p", "harness": "stdin", "tests": [{"input": "", "output": "1\n"}], **change}
    body = {"problems": [problem], "samples": [{"id": "p", "code": "print(1)"}]}
    answer = server.post("/grade", body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith("problem 'p': ") and words in answer.json()["error"]


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
