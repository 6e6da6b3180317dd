"""NeMo-Gym's code_gen resources server, answered by ``mcevaluate serve``: ``POST /verify``
(and ``POST /seed_session``).

nemo-gym is not installable here (its wheels need Python >= 3.12), so each request is the one
its own code sends, read from ``NVIDIA-NeMo/Gym@07d6b0d07b22fcf530b4c211dae2ee23100428e4``:
``responses_api_agents/simple_agent/app.py`` L277-344 (``/seed_session`` with the row, then
``/verify`` with ``SimpleAgentVerifyRequest.model_validate(body.model_dump() | {"response":
<the model's Responses JSON>}).model_dump()``: the row's fields, its extra ones included, plus
the response), ``nemo_gym/base_resources_server.py`` L83-92 (the request and response models)
and ``resources_servers/code_gen/app.py`` L54-76 and L147-227 (``verifier_metadata``,
``CompCodingVerifyResponse``, the reward). The response object has the fields an OpenAI
``Response.model_dump()`` writes, as in ``resources_servers/code_gen/data/
example_rollouts.jsonl``; the rows are ``tests/data/sources/nemo_gym/rows.jsonl``.
"""

from __future__ import annotations

import copy
import io
import json
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

import requests

from tests.frameworks.readme import readme_snippet

ROWS = Path(__file__).resolve().parents[1] / "data" / "sources" / "nemo_gym" / "rows.jsonl"
STDIN_ROW, CALL_ROW = (json.loads(line) for line in ROWS.read_text().splitlines())

SUM_RIGHT = "n = int(input())\nprint(n * (n + 1) // 2)"
SUM_WRONG = "n = int(input())\nprint(n * n)"
ADDK_RIGHT = "class Solution:\n    def addK(self, nums, k):\n        return [x + k for x in nums]"
ADDK_WRONG = "def addK(nums, k):\n    return [x - k for x in nums]"


def create_params(params: dict) -> dict:
    """``NeMoGymResponseCreateParamsNonStreaming.model_dump()`` of a row's params: every
    field, unset ones None (``nemo_gym/openai_utils.py``)."""
    defaults = dict.fromkeys(
        ("background", "include", "instructions", "max_output_tokens", "max_tool_calls",
         "metadata", "model", "previous_response_id", "prompt", "reasoning", "service_tier",
         "store", "temperature", "text", "top_logprobs", "top_p", "truncation", "user",
         "stream"),
    )  # fmt: skip
    defaults.update(parallel_tool_calls=True, tool_choice="auto", tools=[])
    params = copy.deepcopy(params)
    params["input"] = [{**m, "type": "message"} for m in params["input"]]
    return {**defaults, **params}


def responses_object(text: str, reasoning: str | None = None) -> dict:
    """The policy's answer as ``NeMoGymResponse.model_dump()`` writes it (an OpenAI
    ``Response``: one assistant ``message`` output item with one ``output_text`` part)."""
    output = []
    if reasoning is not None:
        output.append(
            {
                "id": "rs_1",
                "summary": [{"text": reasoning, "type": "summary_text"}],
                "type": "reasoning",
                "content": None,
                "encrypted_content": None,
                "status": None,
            }
        )
    output.append(
        {
            "id": "msg_95a668846a25466395603e70d55f3f4a",
            "content": [{"annotations": [], "text": text, "type": "output_text", "logprobs": None}],
            "role": "assistant",
            "status": "completed",
            "type": "message",
        }
    )
    return {
        "id": "resp_cd319ab895874e32aab3b55c9305a8d4",
        "created_at": 1758933021.0,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": None,
        "model": "policy",
        "object": "response",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
        "background": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "previous_response_id": None,
        "prompt": None,
        "reasoning": None,
        "service_tier": None,
        "status": None,
        "text": None,
        "top_logprobs": None,
        "truncation": None,
        "usage": None,
        "user": None,
    }


def verify_request(row: dict, text: str, reasoning: str | None = None) -> dict:
    """What simple_agent posts to ``/verify`` (L334-341): the row, then the response."""
    body = copy.deepcopy(row)
    body["responses_create_params"] = create_params(row["responses_create_params"])
    body["response"] = responses_object(text, reasoning)
    return body


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\n"


def verify(server, row: dict, text: str, reasoning: str | None = None) -> dict:
    reply = server.post("/verify", verify_request(row, text, reasoning))
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_seed_session_then_verify_a_right_stdin_answer(server):
    seeded = server.post("/seed_session", create_params(STDIN_ROW["responses_create_params"]))
    assert seeded.status_code == 200 and seeded.json() == {}
    request = verify_request(STDIN_ROW, fenced(SUM_RIGHT))
    answer = verify(server, STDIN_ROW, fenced(SUM_RIGHT))
    assert answer["reward"] == 1.0
    assert answer["result"] == [True, True]
    assert answer["metadata"]["verdict"] == "AC"
    assert answer["extracted_model_code"] == SUM_RIGHT
    assert answer["extracted_model_output"] == fenced(SUM_RIGHT)
    assert answer["difficulty"] == "easy" and answer["reasoning_format_violation_rate"] == 0.0
    assert answer["unit_tests_time_taken"] > 0
    # BaseVerifyResponse(**body.model_dump(), reward=...): the request's fields come back
    for key in ("responses_create_params", "response", "verifier_metadata", "hash_id"):
        assert answer[key] == request[key]


def test_a_wrong_stdin_answer_stops_at_its_first_failure(server):
    answer = verify(server, STDIN_ROW, fenced(SUM_WRONG))
    assert answer["reward"] == 0.0
    assert answer["result"] == [-2]  # LiveCodeBench stops there too: wrong answer
    meta = answer["metadata"]
    assert meta["verdict"] == "WA" and meta["error_code"] == -2
    assert meta["error_message"] == "Wrong Answer"
    assert meta["inputs"] == "3\n" and meta["expected"] == "6\n" and meta["output"] == "9\n"


def test_call_based_right_and_wrong(server):
    right = verify(server, CALL_ROW, fenced(ADDK_RIGHT))
    assert (right["reward"], right["result"]) == (1.0, [True, True])
    wrong = verify(server, CALL_ROW, fenced(ADDK_WRONG))
    assert (wrong["reward"], wrong["result"]) == (0.0, [-2])
    crash = verify(server, CALL_ROW, fenced("def addK(nums, k):\n    raise ValueError('no')"))
    assert (crash["reward"], crash["result"]) == (0.0, [-4])
    assert crash["metadata"]["error_message"] == "Runtime Error"
    assert "ValueError" in crash["metadata"]["reason"]


def test_empty_answers_no_code_and_the_reasoning_format(server):
    empty = verify(server, STDIN_ROW, "   ")
    assert empty["reward"] == 0.0 and empty["extracted_model_output"] is None
    assert empty["result"] is None and empty["difficulty"] == "easy"
    prose = verify(server, STDIN_ROW, "I think the answer is n(n+1)/2.")
    assert prose["reward"] == 0.0 and prose["extracted_model_output"].startswith("I think")
    assert prose["extracted_model_code"] is None
    # code_gen's reasoning format: think tags in the final text cost the reward (penalty 0.0)
    tagged = verify(server, STDIN_ROW, "<think>easy</think>" + fenced(SUM_RIGHT))
    assert tagged["reward"] == 0.0 and tagged["reasoning_format_violation_rate"] == 1.0
    assert tagged["result"] == [True, True]  # graded all the same, as code_gen does
    twice = verify(server, STDIN_ROW, fenced(SUM_RIGHT), reasoning="<think>a<think>b")
    assert twice["reward"] == 0.0 and twice["reasoning_format_violation_rate"] == 1.0
    once = verify(server, STDIN_ROW, fenced(SUM_RIGHT), reasoning="<think>fine</think>")
    assert once["reward"] == 1.0


def test_malformed_bodies_are_422_naming_the_field(server):
    good = verify_request(STDIN_ROW, fenced(SUM_RIGHT))
    cases = []
    body = copy.deepcopy(good)
    del body["verifier_metadata"]
    cases.append((body, "verifier_metadata"))
    body = copy.deepcopy(good)
    body["verifier_metadata"] = {"difficulty": "easy"}
    cases.append((body, "verifier_metadata.unit_tests"))
    body = copy.deepcopy(good)
    body["verifier_metadata"]["unit_tests"]["outputs"] = ["6\n"]
    cases.append((body, "verifier_metadata.unit_tests"))
    body = copy.deepcopy(good)
    body["verifier_metadata"]["unit_tests"]["inputs"] = "3\n"
    cases.append((body, "verifier_metadata.unit_tests"))
    body = copy.deepcopy(good)
    del body["response"]
    cases.append((body, "response"))
    body = copy.deepcopy(good)
    body["response"]["output"] = "```python\nprint(1)\n```"
    cases.append((body, "response.output"))
    body = copy.deepcopy(good)
    del body["responses_create_params"]["input"]
    cases.append((body, "responses_create_params.input"))
    for body, field in cases:
        reply = server.post("/verify", body)
        assert reply.status_code == 422, (field, reply.text)
        assert field in reply.json()["error"], (field, reply.json())  # and FastAPI's detail:
        assert reply.json()["detail"][0]["loc"][:2] == ["body", field.split(".")[0]]
    assert server.post("/verify", [1, 2]).status_code == 422
    reply = requests.post(f"{server.url}/verify", data=b"{not json", timeout=30)
    assert reply.status_code == 422


def test_a_batch_of_256_rollouts(server):
    """256 rollouts (half right, half wrong; stdin and call-based), sent concurrently as
    NeMo-Gym's rollout collection sends them, one verify request each."""
    bodies, expected = [], []
    for index in range(256):
        row = STDIN_ROW if index % 2 == 0 else CALL_ROW
        right = index % 4 < 2
        code = (
            (SUM_RIGHT if right else SUM_WRONG)
            if row is STDIN_ROW
            else (ADDK_RIGHT if right else ADDK_WRONG)
        )
        bodies.append(verify_request(row, fenced(code)))
        expected.append(1.0 if right else 0.0)
    with ThreadPoolExecutor(32) as pool:
        replies = list(pool.map(lambda body: server.post("/verify", body), bodies))
    assert [r.status_code for r in replies] == [200] * 256
    assert [r.json()["reward"] for r in replies] == expected


def test_readme_snippet(server):
    snippet = readme_snippet("# NeMo-Gym: code_gen's /verify")
    out = io.StringIO()
    with redirect_stdout(out):
        exec(
            snippet,
            {
                "URL": server.url,
                "row": STDIN_ROW,
                "response": responses_object(fenced(SUM_RIGHT)),
            },
        )
    assert out.getvalue().split() == ["1.0", "AC"]
