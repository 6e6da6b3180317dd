"""A client's problems built to take the server's memory or to break its limits (issue 51):
each refused with one line naming the record or label and its field, the server's own memory
bounded (its peak resident size, measured), and the server goes on serving. Before, a 510 KiB
``/grade`` grew the server by 1.16 GiB, and ``memory_limit_MB: 10**12`` reached the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bombs import MB, lcb_bomb_row

from .conftest import start_server

PROGRAM = "print(input())"


def _peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A server of its own: its peak memory is this module's alone."""
    started = start_server(tmp_path_factory.mktemp("untrusted"), "--workers", "1")
    yield started
    assert started.stop(), started.log.read_text()


def _grade_body(rows: list[dict]) -> dict:
    return {
        "problems": rows,
        "samples": [{"question_id": row["question_id"], "code_list": [PROGRAM]} for row in rows],
    }


def _refused(answer, status: int = 400) -> str:
    assert answer.status_code == status, answer.text[:2000]
    line = answer.json()["error"]
    assert line and "\n" not in line
    return line


def _assert_still_serving(server) -> None:
    row = lcb_bomb_row("fine", inflated=1)
    answer = server.post("/grade", _grade_body([row]))
    assert answer.status_code == 200, answer.text[:2000]
    assert answer.json()["results"][0]["graded_list"] == [False]  # "1" is not the "0" asked


def test_a_bomb_in_grade_is_refused_in_bounded_memory(fresh):
    before = _peak_mb(fresh.process.pid)
    body = _grade_body([lcb_bomb_row("fine", inflated=MB), lcb_bomb_row("bomb", inflated=400 * MB)])
    assert len(json.dumps(body)) < 600 * 1024
    line = _refused(fresh.post("/grade", body))
    assert line.startswith("problems: record 2: field 'private_test_cases': ")
    assert "decompression bomb" in line
    grown = _peak_mb(fresh.process.pid) - before
    assert grown < 150, f"the server grew by {grown:.0f} MB"
    _assert_still_serving(fresh)


def test_a_request_of_many_small_bombs_shares_one_bound(fresh):
    """40 rows of 16 MiB each, each within its own floor: the request's 640 MiB in all is
    past the one bound its 700 KB of compressed tests allow."""
    before = _peak_mb(fresh.process.pid)
    rows = [lcb_bomb_row(f"b{index}", inflated=16 * MB) for index in range(40)]
    line = _refused(fresh.post("/grade", _grade_body(rows)))
    assert "field 'private_test_cases'" in line
    assert "with what else this request inflated" in line
    grown = _peak_mb(fresh.process.pid) - before
    assert grown < 250, f"the server grew by {grown:.0f} MB"
    _assert_still_serving(fresh)


def test_a_bomb_label_is_refused_naming_the_label(fresh):
    """The RL frameworks' labels (OpenRLHF's /get_reward, slime's /slime/reward) reach the
    same readers: a bomb label is a 400 naming it."""
    bomb = lcb_bomb_row("bomb", inflated=300 * MB)
    body = {"query": [f"```python\n{PROGRAM}\n```"], "prompts": [""], "labels": [bomb]}
    line = _refused(fresh.post("/get_reward", body))
    assert line.startswith("field 'labels[0]': ") and "decompression bomb" in line
    body = {"prompt": "", "response": f"```python\n{PROGRAM}\n```", "label": bomb}
    line = _refused(fresh.post("/slime/reward", body))
    assert "field 'private_test_cases'" in line and "decompression bomb" in line


@pytest.mark.parametrize(
    ("field", "value"), [("time_limit", 1e300), ("memory_limit", 10**12)]
)  # fmt: skip
def test_a_limit_out_of_bounds_in_grade_is_refused_naming_the_field(fresh, field, value):
    row = {**lcb_bomb_row("fine", inflated=1), field: value}
    line = _refused(fresh.post("/grade", _grade_body([row])))
    assert f"field '{field}': at most" in line


def test_run_codes_memory_limit_out_of_bounds_is_refused(fresh):
    body = {"code": PROGRAM, "stdin": "1\n", "language": "python", "memory_limit_MB": 10**12}
    answer = fresh.post("/run_code", body)
    line = _refused(answer, 422)
    assert line.startswith("field 'memory_limit_MB': at most")
    assert answer.json()["detail"][0]["loc"] == ["body", "memory_limit_MB"]
