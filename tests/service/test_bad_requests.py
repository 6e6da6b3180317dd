"""Every bad request gets a 4xx with a one-line reason, and the server goes on serving."""

from __future__ import annotations

import pytest
import requests

from .conftest import start_server

GOOD = {"code": "print(input())", "stdin": "ok\n", "language": "python"}


def _assert_still_serving(server) -> None:
    answer = server.post("/run_code", GOOD)
    assert answer.status_code == 200 and answer.json()["run_result"]["stdout"] == "ok\n"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "malformed JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"language": "python"}', "missing field 'code'"),
        (b'{"code": "print(1)"}', "missing field 'language'"),
        (b'{"code": "print(1)", "language": "cobol"}', "unknown language 'cobol'"),
        (b'{"code": 7, "language": "python"}', "field 'code'"),
        (b'{"code": "1", "language": "python", "run_timeout": -1}', "positive number"),
        (b'{"code": "1", "language": "python", "run_timeout": 1e9}', "at most"),
        (b'{"code": "1", "language": "python", "files": {"a.txt": "!!"}}', "base64"),
    ],
)
def test_a_bad_run_code_request(server, body, reason):
    answer = requests.post(f"{server.url}/run_code", data=body, timeout=30)
    assert answer.status_code == 400
    line = answer.json()["error"]
    assert reason in line and "\n" not in line
    _assert_still_serving(server)


def test_a_body_over_max_body(server):
    body = b'{"code": "' + b"x" * (100 << 20) + b'", "language": "python"}'
    try:
        answer = requests.post(f"{server.url}/run_code", data=body, timeout=60)
    except requests.ConnectionError:  # the server may close before the upload ends
        pass
    else:
        assert answer.status_code == 413
        assert "--max-body" in answer.json()["error"]
    _assert_still_serving(server)


def test_an_unknown_path_and_method(server):
    assert requests.get(f"{server.url}/run_code", timeout=10).status_code == 405
    assert requests.post(f"{server.url}/nowhere", json={}, timeout=10).status_code == 404
    _assert_still_serving(server)


def test_the_token(tmp_path):
    server = start_server(tmp_path, "--workers", "1", "--token", "s3cret")
    try:
        missing = requests.post(f"{server.url}/run_code", json=GOOD, timeout=30)
        wrong = requests.post(
            f"{server.url}/run_code", json=GOOD, timeout=30, headers={"Authorization": "Bearer no"}
        )
        right = requests.post(
            f"{server.url}/run_code",
            json=GOOD,
            timeout=30,
            headers={"Authorization": "Bearer s3cret"},
        )
        assert missing.status_code == wrong.status_code == 401
        assert wrong.json()["error"] == "bad or missing bearer token"
        assert right.status_code == 200 and right.json()["run_result"]["stdout"] == "ok\n"
        assert requests.get(f"{server.url}/health", timeout=10).status_code == 200
    finally:
        assert server.stop()


def test_a_non_loopback_bind_needs_a_token(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "evaluator.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "Error: refusing to bind 0.0.0.0 without --token: only loopback is open"
    )


def test_loopback_names():
    from evaluator.service import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3")
