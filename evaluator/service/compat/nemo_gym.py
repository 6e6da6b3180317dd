"""NeMo-Gym's resources-server API for code, spoken by our grader: ``POST /verify`` (and
``POST /seed_session``, which NeMo-Gym's agents call before each rollout).

The shapes are NeMo-Gym's ``code_gen`` resources server's (``NVIDIA-NeMo/Gym@07d6b0d``,
``nemo_gym/base_resources_server.py`` and ``resources_servers/code_gen/app.py``; the same in
the 0.4.0 wheel). A verify request is what its ``simple_agent`` posts
(``responses_api_agents/simple_agent/app.py``: the dataset row, its extra fields included,
plus the model's response)::

    {"responses_create_params": {"input": [...], ...},
     "response": {<an OpenAI Responses object: "output": [{"type": "message", "content":
                  [{"type": "output_text", "text": "..."}], ...}], ...}},
     "verifier_metadata": {"unit_tests": {"inputs": [...], "outputs": [...], "fn_name"?},
                           "difficulty"?},
     "hash_id"?, "dataset"?, "source"?, ...}

The answer is ``code_gen``'s ``CompCodingVerifyResponse``: the request's fields, ``reward``,
``extracted_model_output``, ``extracted_model_code``, ``result`` (per test run, in order, up
to the first failure: ``true``, or LiveCodeBench's codes -2 wrong answer, -3 time limit,
-4 runtime error), ``metadata`` (our ``verdict`` and ``reason``; for a failure LiveCodeBench's
``error_code``, ``error_message``, and the test's ``inputs``, ``expected`` and ``output``),
``unit_tests_time_taken``, ``reasoning_format_violation_rate`` and ``difficulty``.

Graded by ``code_gen``'s rule: the text is the response's ``output_text`` (the ``output_text``
parts of its ``message`` items); an empty one, or one without a fenced block, scores 0.0; the
code runs as Python against ``unit_tests`` read by our ``nemo_gym`` format (LiveCodeBench's
rule, ``docs/datasets.md``), stopping at the first failing test; the reward is 1.0 when every
test passes, else 0.0, and ``code_gen``'s ``reasoning_format_penalty`` (0.0, its default)
when the answer breaks its reasoning format (``<think>``/``</think>`` in the final text, or
more than one of either in the reasoning summary). Differences: a body whose
``verifier_metadata`` cannot be read is a 422 naming the field before anything else (code_gen
scores an empty answer 0.0 without reading it, and fails with a 500 on a missing one); each
test has our CPU limit (6 s) where ``code_gen``'s is ``unit_test_timeout_secs`` (10 s wall);
the program is the answer's last fenced block by our extraction
(:mod:`evaluator.formats.extract`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.problem import Problem, Verdict
from evaluator.reward.columns import ProblemError
from evaluator.runner import GradeResult
from evaluator.runner.answers import resolve_program

from ..cancel import graded
from ..graders import grader_for, problem_cache
from .fusion_requests import Unprocessable, parse

__all__ = ["REASONING_FORMAT_PENALTY", "output_text", "seed_session", "verify"]

REASONING_FORMAT_PENALTY = 0.0
"""The reward of an answer that breaks the reasoning format: ``code_gen``'s
``reasoning_format_penalty`` default."""
_ROW_FIELDS = ("hash_id", "dataset", "source")  # what our nemo_gym format reads beside it
_LCB_CODES = {
    Verdict.WA: (-2, "Wrong Answer"),
    Verdict.NO_CODE: (-2, "Wrong Answer"),  # LiveCodeBench grades an empty program so
    Verdict.TLE: (-3, "Time Limit Exceeded"),
}
_RUNTIME_ERROR = (-4, "Runtime Error")
_SHOWN = 300  # characters of a failing test's input, expected and actual output echoed


class _Response(BaseModel):
    model_config = ConfigDict(extra="allow")
    output: list[dict[str, Any]]


class VerifyRequest(BaseModel):
    """What ``code_gen``'s ``CompCodingVerifyRequest`` requires (other fields are kept)."""

    model_config = ConfigDict(extra="allow")
    responses_create_params: dict[str, Any]
    response: _Response
    verifier_metadata: Any = None


def _missing(loc: list[str], message: str) -> Unprocessable:
    return Unprocessable(
        [{"type": "missing", "loc": ["body", *loc], "msg": message, "input": None}]
    )


def output_text(response: Mapping[str, Any]) -> str:
    """The OpenAI Responses object's ``output_text``: the ``output_text`` parts of its
    ``message`` output items, joined ("" when there are none)."""
    texts = []
    for item in response.get("output") or []:
        if not isinstance(item, Mapping) or item.get("type") != "message":
            continue
        for part in item.get("content") or []:
            if isinstance(part, Mapping) and part.get("type") == "output_text":
                text = part.get("text")
                if isinstance(text, str):
                    texts.append(text)
    return "".join(texts)


def reasoning_format_violation(text: str, response: Mapping[str, Any]) -> bool:
    """``code_gen``'s check: think tags in the final text, or more than one opening or
    closing tag in the reasoning items' summaries."""
    if "<think>" in text or "</think>" in text:
        return True
    reasoning = ""
    for item in response.get("output") or []:
        if isinstance(item, Mapping) and item.get("type") == "reasoning":
            for summary in item.get("summary") or []:
                if isinstance(summary, Mapping) and isinstance(summary.get("text"), str):
                    reasoning += summary["text"]
    return reasoning.count("<think>") > 1 or reasoning.count("</think>") > 1


def _problem(service: Any, body: Mapping[str, Any]) -> Problem:
    metadata = body.get("verifier_metadata")
    if metadata is None:
        raise _missing(
            ["verifier_metadata"],
            "Field required: the problem's unit_tests ({'unit_tests': {'inputs', 'outputs', "
            "'fn_name'?}}), as code_gen's rows carry them",
        )
    record: dict[str, Any] = {"verifier_metadata": metadata}
    record.update({key: body[key] for key in _ROW_FIELDS if body.get(key) is not None})
    found = problem_cache(service).for_record(record)
    if isinstance(found, ProblemError):
        raise Unprocessable(
            [
                {
                    "type": "value_error",
                    "loc": ["body", "verifier_metadata"],
                    "msg": str(found),
                    "input": None,
                }
            ]
        )
    return found


def _result_list(result: GradeResult) -> list[bool | int]:
    """LiveCodeBench's per-test results, up to and including the first failure."""
    out: list[bool | int] = []
    for test in result.tests:
        if test.verdict is Verdict.SKIPPED:
            break
        if test.verdict is Verdict.AC:
            out.append(True)
            continue
        out.append(_LCB_CODES.get(test.verdict, _RUNTIME_ERROR)[0])
        break
    return out


def _metadata(problem: Problem, result: GradeResult) -> dict[str, Any]:
    meta: dict[str, Any] = {"verdict": str(result.verdict), "reason": ""}
    for index, test in enumerate(result.tests):
        if test.verdict in (Verdict.AC, Verdict.SKIPPED):
            continue
        code, message = _LCB_CODES.get(test.verdict, _RUNTIME_ERROR)
        reason = f"test {index + 1}: {test.verdict}"
        meta.update(
            reason=f"{reason}: {test.message}" if test.message else reason,
            error_code=code,
            error_message=message,
            inputs=problem.tests[index].input[:_SHOWN] if index < len(problem.tests) else "",
            expected=problem.tests[index].output[:_SHOWN] if index < len(problem.tests) else "",
            output=test.stdout[:_SHOWN],
        )
        break
    else:
        if not result.passed:
            meta["reason"] = result.message
    return meta


async def verify(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    """``POST /verify``: NeMo-Gym's verify request graded, its verify response answered."""
    parse(VerifyRequest, body)  # FastAPI's 422 for what NeMo-Gym's models refuse
    if "input" not in body["responses_create_params"]:
        raise _missing(["responses_create_params", "input"], "Field required")
    problem = _problem(service, body)
    metadata = body["verifier_metadata"]
    difficulty = metadata.get("difficulty") if isinstance(metadata, Mapping) else None
    answer: dict[str, Any] = {
        **body,
        "reward": 0.0,
        "extracted_model_output": None,
        "extracted_model_code": None,
        "result": None,
        "metadata": None,
        "unit_tests_time_taken": None,
        "reasoning_format_violation_rate": 0.0,
        "difficulty": difficulty if isinstance(difficulty, str) else None,
    }
    text = output_text(body["response"])
    if not text.strip():
        return answer, f"{problem.id}: empty answer, reward 0.0"
    answer["extracted_model_output"] = text
    program = resolve_program(text, "python")  # code_gen grades Python, whatever the fence
    code = program.code
    if code is None:
        return answer, f"{problem.id}: no code, reward 0.0"
    started = time.perf_counter()
    grader = grader_for(service, early_exit=True)
    result = await graded(grader.submit(problem, code, program.language))
    violation = reasoning_format_violation(text, body["response"])
    reward = REASONING_FORMAT_PENALTY if violation else (1.0 if result.passed else 0.0)
    answer.update(
        reward=reward,
        extracted_model_code=code,
        result=_result_list(result),
        metadata=_metadata(problem, result),
        unit_tests_time_taken=round(time.perf_counter() - started, 6),
        reasoning_format_violation_rate=1.0 if violation else 0.0,
    )
    note = ", reasoning format broken" if violation else ""
    return answer, f"{problem.id}: {result.verdict}{note}, reward {reward}"


async def seed_session(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    """``POST /seed_session``: NeMo-Gym's agents open each rollout with it; code_gen keeps
    no session (an empty ``BaseSeedSessionResponse``)."""
    return {}, "session"
