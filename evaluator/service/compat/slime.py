"""slime's remote reward model, ``POST /slime/reward`` (slime's ``--rm-type remote_rm``; its
rollout posts to ``--rm-url`` exactly as given)::

    python train.py ... --label-key label --rm-type remote_rm \\
        --rm-url http://127.0.0.1:8080/slime/reward

Request (slime ``slime/rollout/rm_hub/__init__.py``, ``remote_rm``, one sample per request):
``{"prompt": str or messages, "response": str, "label": row}``; the response is graded (the
special tokens at its end stripped) against the label, a dataset row of any source (JSON text
or an object). Answer: the reward as a bare JSON number, 1.0 when every test passes, else
0.0: slime takes the decoded body as the sample's reward (no ``--reward-key``).

A body that is not this shape, or a label that cannot be read, is a 400
``{"error": "field 'label': ..."}`` naming the field; slime retries it ten times and then
stops the rollout with the error, and this server's log line names the field.
"""

from __future__ import annotations

from typing import Any

from ..errors import BadRequest
from ..graders import grade_labels

__all__ = ["slime_reward"]


async def slime_reward(service: Any, body: Any) -> tuple[float, str]:
    if not isinstance(body, dict):
        raise BadRequest(f"expected a JSON object, got {type(body).__name__}")
    response = body.get("response")
    if not isinstance(response, str):
        what = (
            "missing" if response is None else f"expected a string, got {type(response).__name__}"
        )
        raise BadRequest(f"field 'response': {what} (slime sends prompt, response and label)")
    if body.get("label") is None:
        raise BadRequest(
            "field 'label': missing (slime sends sample.label: set --label-key to the dataset "
            "column holding each problem's row)"
        )
    details = await grade_labels(service, [response], [body["label"]], ["label"])
    return float(details.rewards[0]), details.verdicts[0]  # type: ignore[arg-type]
