"""SandboxFusion's ``/submit`` through its PyPI client: one completion against the stdin tests
given in ``config.provided_data`` (``CommonOJDataset``), graded by our judge."""

from __future__ import annotations

import requests
from sandbox_fusion import SubmitRequest, TestConfig, submit

TESTS = [
    {"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}},
    {"input": {"stdin": "4 4\n"}, "output": {"stdout": "8"}},
    {"input": {"stdin": "0 9\n"}, "output": {"stdout": "9\n"}},
]


def _submit(server, completion: str, language: str = "python", **config):
    request = SubmitRequest(
        dataset="code_contests",
        id=7,
        completion=completion,
        config=TestConfig(
            language=language,
            dataset_type="CommonOJDataset",
            provided_data={"id": 7, "test": TESTS},
            **config,
        ),
    )
    return submit(request, endpoint=server.url, max_attempts=1, client_timeout=60)


def test_a_right_completion_is_accepted(server):
    result = _submit(server, "```python\na, b = map(int, input().split())\nprint(a + b)\n```")
    assert result.accepted and result.id == 7
    assert result.extracted_code == "a, b = map(int, input().split())\nprint(a + b)"
    assert [t.passed for t in result.tests] == [True, True, True]
    assert result.tests[1].exec_info.run_result.return_code == 0


def test_a_wrong_completion_stops_at_its_first_failure(server):
    result = _submit(server, "```python\na, b = map(int, input().split())\nprint(a * b)\n```")
    assert not result.accepted
    assert [t.passed for t in result.tests] == [False]  # SandboxFusion stops there too
    assert result.tests[0].exec_info.run_result.stdout == "2\n"
    assert result.tests[0].test_info["verdict"] == "WA"


def test_every_case_with_run_all_cases(server):
    result = _submit(
        server,
        "```python\na, b = map(int, input().split())\nprint(a * b if a else b)\n```",
        extra={"run_all_cases": True},
    )
    assert [t.passed for t in result.tests] == [False, False, True]


def test_a_crash_and_a_timeout(server):
    crash = _submit(server, "```python\nraise ValueError('no')\n```")
    assert crash.tests[0].exec_info.status == "Failed"
    assert crash.tests[0].exec_info.run_result.return_code == 1
    loop = _submit(server, "```python\nwhile True:\n    pass\n```", run_timeout=1)
    assert loop.tests[0].exec_info.run_result.status == "TimeLimitExceeded"


def test_no_code_is_not_run(server):
    result = _submit(server, "I cannot solve this.")
    assert not result.accepted and result.tests == [] and result.extracted_type == "empty"


def test_a_dataset_this_server_does_not_hold(server):
    body = {
        "dataset": "humaneval_python",
        "id": 0,
        "completion": "x",
        "config": {"language": "python"},
    }
    reply = requests.post(f"{server.url}/submit", json=body, timeout=30)
    assert reply.status_code == 400
    assert "provided_data" in reply.json()["error"]


def test_a_cpp_completion(server):
    right = "```cpp\n#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n```"
    result = _submit(server, right, language="cpp")
    assert result.accepted and [t.passed for t in result.tests] == [True, True, True]
    broken = _submit(server, "```cpp\nint main() { return nope; }\n```", language="cpp")
    assert not broken.accepted and broken.tests[0].test_info["verdict"] == "CE"
