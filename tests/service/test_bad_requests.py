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
    ("body", "loc", "kind"),
    [
        (b"{not json", ["body"], "json_invalid"),
        (b"[1, 2]", ["body"], "model_type"),
        (b'{"language": "python"}', ["body", "code"], "missing"),
        (b'{"code": "print(1)"}', ["body", "language"], "missing"),
        (b'{"code": "print(1)", "language": "cobol"}', ["body", "language"], "literal_error"),
        (b'{"code": 7, "language": "python"}', ["body", "code"], "string_type"),
        (b'{"code": "1", "language": "python", "run_timeout": "abc"}', ["body", "run_timeout"], "float_parsing"),
        (b'{"code": "1", "language": "python", "run_timeout": -1}', ["body", "run_timeout"], "value_error"),
        (b'{"code": "1", "language": "python", "run_timeout": 1e9}', ["body", "run_timeout"], "value_error"),
        (b'{"code": "1", "language": "python", "files": {"a.txt": "abc"}}', ["body", "files", "a.txt"], "value_error"),
    ],
)  # fmt: skip
def test_a_bad_run_code_request_is_refused_as_sandbox_fusion_refuses_it(server, body, loc, kind):
    """SandboxFusion's FastAPI answers 422 ``{"detail": [{"type", "loc", "msg", "input"}]}``;
    so do we (with our one-line ``error`` beside it)."""
    answer = requests.post(f"{server.url}/run_code", data=body, timeout=30)
    assert answer.status_code == 422
    first = answer.json()["detail"][0]
    assert (first["loc"], first["type"]) == (loc, kind) and first["msg"]
    line = answer.json()["error"]
    assert line and "\n" not in line
    _assert_still_serving(server)


def test_what_sandbox_fusion_coerces_is_taken(server):
    """pydantic's lax mode, as SandboxFusion's server reads a body: null stdin, numbers as
    text, whole floats as integers, unknown fields ignored."""
    body = {
        "code": "import sys\nprint(repr(sys.stdin.read()))",
        "language": "python",
        "stdin": None,
        "run_timeout": "5",
        "compile_timeout": 3,
        "memory_limit_MB": 512.0,
        "someone_elses_field": [1],
    }
    answer = server.post("/run_code", body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "Success" and answer.json()["run_result"]["stdout"] == "''\n"


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
