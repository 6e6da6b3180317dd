"""OpenRLHF's remote reward model, ``POST /get_reward`` (the path of OpenRLHF's own
``openrlhf/cli/serve_rm.py``; its trainer posts to ``--reward.remote_url`` exactly as given)::

    python -m openrlhf.cli.train_ppo_ray ... --data.label_key label \\
        --reward.remote_url http://127.0.0.1:8080/get_reward

Request (OpenRLHF 0.11 ``SingleTurnAgentExecutor._fetch_rewards_via_http``, one sample per
request): ``{"query": [str], "prompts": [str], "labels": [row]}``; each query is the decode of
the prompt's and the response's tokens with special tokens kept, from which the response is
taken (:func:`~evaluator.reward.frameworks.openrlhf.response_of_query`); each label a dataset
row of any source (JSON text or an object). Answer: ``{"rewards": [float], "scores": [float],
"extra_logs": {"verdict_AC": share, ...}}``, as ``serve_rm`` answers (one reward per query,
binary; scores equal to rewards; extra_logs the share of each verdict, which OpenRLHF logs).

A body that is not this shape, or a label that cannot be read, is a 400
``{"error": "field 'labels[0]': ..."}`` naming the field: OpenRLHF logs the failed request
(``400, message='Bad Request'``) and, after its five tries, leaves the sample without a
reward, which stops training; this server's log line names the field.
"""

from __future__ import annotations

from typing import Any

from evaluator.reward.frameworks.openrlhf import openrlhf_answer, response_of_query

from ..errors import BadRequest
from ..graders import grade_labels

__all__ = ["get_reward"]


def _strings(body: dict[str, Any], name: str, count: int | None) -> list[Any]:
    value = body.get(name)
    if value is None:
        raise BadRequest(f"missing field {name!r} (OpenRLHF sends query, prompts and labels)")
    if not isinstance(value, list):
        raise BadRequest(f"field {name!r}: expected a list, got {type(value).__name__}")
    if count is not None and len(value) != count:
        raise BadRequest(f"field {name!r}: {len(value)} values for {count} queries")
    return value


async def get_reward(service: Any, body: Any) -> tuple[dict[str, Any], str]:
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    queries = _strings(body, "query", None)
    prompts = _strings(body, "prompts", len(queries))
    labels = _strings(body, "labels", len(queries))
    for name, values in (("query", queries), ("prompts", prompts)):
        for index, value in enumerate(values):
            if not isinstance(value, str):
                raise BadRequest(
                    f"field '{name}[{index}]': expected a string, got {type(value).__name__}"
                )
    responses = [response_of_query(q, p) for q, p in zip(queries, prompts, strict=True)]
    fields = [f"labels[{index}]" for index in range(len(labels))]
    details = await grade_labels(service, responses, labels, fields)
    verdicts = ", ".join(details.verdicts[:4]) + (", ..." if len(details.verdicts) > 4 else "")
    return openrlhf_answer(details), f"{len(queries)} queries: {verdicts}"
