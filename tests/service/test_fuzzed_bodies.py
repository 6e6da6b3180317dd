"""Fuzzed request bodies at every endpoint that takes one (issue 43): random JSON of every
type in every field (and in place of the whole body) is always a 4xx or an answer, never a
5xx, and no sandbox worker dies of it.

Each endpoint starts from a body it answers (checked first), then hypothesis replaces,
removes or adds fields, at the top level and one level down (``config``, ``options``, a
list's first item). The examples are few (two slow CPUs); a failure prints the body."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_nemo_gym import STDIN_ROW, fenced, verify_request

PROGRAM = "print(int(input() or 0) + 1)"
TESTS = [{"input": "1\n", "output": "2\n"}]
LABEL = {"input_output": json.dumps({"inputs": ["1\n"], "outputs": ["2\n"]})}  # a TACO row

BASES: dict[str, dict] = {
    "/run_code": {"code": PROGRAM, "stdin": "1\n", "language": "python", "run_timeout": 5},
    "/submit": {
        "dataset": "x",
        "id": 1,
        "completion": f"```python\n{PROGRAM}\n```",
        "config": {
            "language": "python",
            "run_timeout": 5,
            "provided_data": {"test": [{"input": {"stdin": "1\n"}, "output": {"stdout": "2\n"}}]},
        },
    },
    "/grade": {
        "problems": [{"id": "p", "harness": "stdin", "tests": TESTS}],
        "samples": [{"id": "p", "code": PROGRAM}],
        "options": {"time_limit": 5},
    },
    "/get_reward": {
        "query": [f"Add one.\n```python\n{PROGRAM}\n```"],
        "prompts": ["Add one."],
        "labels": [LABEL],
    },
    "/slime/reward": {"prompt": "Add one.", "response": fenced(PROGRAM), "label": LABEL},
    "/verify": verify_request(STDIN_ROW, fenced("print(sum(map(int, input().split())))")),
    "/execute_batch": {
        "scripts": ["print(1 + 1)"],
        "languages": ["python"],
        "timeout": 5,
        "request_timeout": 28,
    },
    "/api/v2/execute": {
        "files": [{"name": "main.py", "content": "print(1 + 1)"}],
        "language": "python3",
        "version": "*",
        "run_timeout": 5000,
    },
}

# JSON of every type, small: what a client could send in any field
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)

_GONE = object()  # a field removed


def _mutated(draw, value, depth: int = 0):
    """``value`` with some of its fields (or items) replaced by random JSON, removed, or
    with a random one added; one level further down now and then."""
    if isinstance(value, dict):
        out = dict(value)
        for key in list(out):
            choice = draw(st.sampled_from(["keep", "keep", "replace", "remove", "deeper"]))
            if choice == "replace":
                out[key] = draw(JSON)
            elif choice == "remove":
                del out[key]
            elif choice == "deeper" and depth < 2:
                out[key] = _mutated(draw, out[key], depth + 1)
        if draw(st.booleans()):
            out[draw(st.text(max_size=8))] = draw(JSON)
        return out
    if isinstance(value, list) and value:
        return [_mutated(draw, value[0], depth + 1), *value[1:]]
    return draw(JSON) if draw(st.booleans()) else value


@st.composite
def bodies(draw, base: dict):
    if draw(st.integers(0, 9)) == 0:  # now and then no object at all
        return draw(JSON)
    return _mutated(draw, base)


def _fork_servers(server) -> set[int]:
    """The pool's fork servers: the server process's children started as the pool starts
    them (``--stack-mb``; a worker that died is replaced by a new process, a new id)."""
    found = set()
    for pid in server.descendants():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == server.process.pid and b"--stack-mb" in cmdline:
            found.add(pid)
    return found


@pytest.mark.parametrize("endpoint", list(BASES))
def test_random_json_in_every_field_is_a_4xx_or_an_answer(server, endpoint):
    base = BASES[endpoint]
    first = server.post(endpoint, base)
    assert first.status_code == 200, first.text  # the body the fuzzing starts from is good
    workers = _fork_servers(server)
    assert len(workers) == 4  # two per pool: the grading workers, /run_code's first programs

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,  # the same examples each run: a failure is seen again
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(body=bodies(base))
    def one(body):
        data = json.dumps(body)
        answer = requests.post(
            f"{server.url}{endpoint}",
            data=data,
            headers={"Content-Type": "application/json"},
            timeout=120,
        )
        assert answer.status_code < 500, (data[:2000], answer.text[:2000])
        answer.json()  # every answer, 2xx or 4xx, is JSON

    one()
    again = server.post(endpoint, base)
    assert again.status_code == 200 and again.json() == _stable(first.json(), again.json())
    # none died, none was replaced (a /run_code program server may have started beside them)
    assert workers <= _fork_servers(server)


def _stable(first, again):
    """``first`` with the fields that change from run to run (times, memory, dates) from
    ``again``."""
    if isinstance(first, dict) and isinstance(again, dict):
        volatile = ("time", "memory", "date")
        return {
            k: again.get(k) if any(word in k for word in volatile) else _stable(v, again.get(k))
            for k, v in first.items()
        }
    if isinstance(first, list) and isinstance(again, list) and len(first) == len(again):
        return [_stable(a, b) for a, b in zip(first, again, strict=True)]
    return first
