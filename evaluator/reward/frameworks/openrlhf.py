"""OpenRLHF's reward: :func:`reward_func` in the contract of the ``.py`` file OpenRLHF 0.11
loads from ``--reward.remote_url /path/to/file.py`` (``openrlhf/utils/agent.py``,
``SingleTurnAgentExecutor``), over the process's shared warm :class:`CodeReward`
(:func:`~evaluator.reward.shared.shared_reward`, closed at exit).

The file to pass is :mod:`evaluator.reward.frameworks.openrlhf_reward_func` (OpenRLHF needs a
module level ``reward_func`` in a file); ``python -m evaluator.reward.frameworks.openrlhf``
prints its path::

    python -m openrlhf.cli.train_ppo_ray ... --data.label_key label \\
        --reward.remote_url "$(python -m evaluator.reward.frameworks.openrlhf)"

OpenRLHF calls ``reward_func(queries, prompts, labels)`` with one sample per call (in a
thread): ``query`` is the decode of the prompt's and the response's tokens with the special
tokens kept, ``prompt`` the templated prompt, ``label`` the dataset's ``--data.label_key``
value. The label is a row of any source the format registry reads, as JSON text or an object
(:mod:`evaluator.reward.labels`). The same request by URL is ``POST /get_reward`` on
``mcevaluate serve`` (:mod:`evaluator.service.compat.openrlhf`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluator.reward.code_reward import RewardDetails
from evaluator.reward.labels import grade_labelled, strip_special_tokens, verdict_shares
from evaluator.reward.shared import shared_reward

__all__ = ["REWARD_FUNC_FILE", "openrlhf_answer", "response_of_query", "reward_func"]

_LOG = logging.getLogger("evaluator.reward.frameworks.openrlhf")

REWARD_FUNC_FILE = Path(__file__).with_name("openrlhf_reward_func.py")
"""The file to pass as ``--reward.remote_url``: it holds only ``reward_func``."""

# Where chat templates start the assistant's turn; the response follows the last one of the
# prompt. ChatML (Qwen), Llama 3, DeepSeek, Gemma, Phi-3, Mistral/Llama 2.
_ASSISTANT_MARKERS = (
    "<|im_start|>assistant\n",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "<｜Assistant｜>",
    "<start_of_turn>model\n",
    "<|assistant|>\n",
    "[/INST]",
)
_warned_unsplit = False


def _after_prompt_suffix(query: str, prompt: str) -> str | None:
    """What follows the prompt in a query that starts with the end of the prompt (OpenRLHF
    cut it from the left to fit ``max_len``), after at most 8 garbled characters (a token cut
    in the middle of a character); None when the query does not. The longest such end (at
    least 16 characters) wins."""
    for skip in range(min(8, len(query))):
        probe = query[skip : skip + 16]
        if len(probe) < 16:
            return None
        start = prompt.find(probe)
        while start != -1:
            if query.startswith(prompt[start:], skip):
                return query[skip + len(prompt) - start :]
            start = prompt.find(probe, start + 1)
    return None


def response_of_query(query: str, prompt: str | None) -> str:
    """The response in OpenRLHF's ``query`` (the decode of prompt and response tokens, special
    tokens kept), without the special tokens at its end:

    * the query starts with the prompt (or holds it whole, after a BOS the decode added):
      what follows it;
    * else the prompt was cut from the left to fit ``max_len``: what follows the longest end
      of the prompt the query starts with (after at most 8 garbled characters); else (a
      decode that is not an exact round trip) what follows the prompt's last 1,024, 256 or 64
      characters where the query holds them;
    * else what follows the last assistant-turn marker of a known chat template;
    * else the whole query (as OpenRLHF's own examples do), with one warning.
    """
    global _warned_unsplit
    response: str | None = None
    if not prompt:
        response = query
    elif query.startswith(prompt):
        response = query[len(prompt) :]
    else:
        where = query.find(prompt)
        if where != -1:
            response = query[where + len(prompt) :]
        if response is None:
            response = _after_prompt_suffix(query, prompt)
        for size in (1024, 256, 64):
            if response is not None or size >= len(prompt):
                continue
            tail = prompt[-size:]
            where = query.find(tail)
            if where != -1:
                response = query[where + size :]
        if response is None:
            ends = [query.rfind(m) + len(m) for m in _ASSISTANT_MARKERS if m in query]
            if ends:
                response = query[max(ends) :]
    if response is None:
        if not _warned_unsplit:
            _warned_unsplit = True
            _LOG.warning(
                "an OpenRLHF query holds neither its prompt nor an assistant-turn marker: "
                "grading the whole query (its last code block)"
            )
        response = query
    return strip_special_tokens(response)


def _list(value: Any, name: str, count: int | None) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError(f"reward_func: {name} must be a list, got {type(value).__name__}")
    if count is not None and len(value) != count:
        raise ValueError(f"reward_func: {len(value)} {name} for {count} queries")
    return list(value)


def grade_queries(queries: Any, prompts: Any, labels: Any) -> RewardDetails:
    """The shared reward's details for OpenRLHF's three lists (blocking)."""
    queries = _list(queries, "queries", None)
    prompts = _list(prompts, "prompts", len(queries))
    labels = _list(labels, "labels", len(queries))
    for index, query in enumerate(queries):
        if not isinstance(query, str):
            raise TypeError(f"reward_func: queries[{index}] must be a string")
    responses = [
        response_of_query(q, p if isinstance(p, str) else None)
        for q, p in zip(queries, prompts, strict=True)
    ]
    fields = [f"labels[{index}]" for index in range(len(labels))]
    return grade_labelled(shared_reward(), responses, labels, fields)


def openrlhf_answer(details: RewardDetails) -> dict[str, Any]:
    """OpenRLHF's reward answer as JSON: ``rewards`` and ``scores`` (equal: 1.0 when every
    test passes, else 0.0), one per query, and ``extra_logs``, the share of each verdict
    (``verdict_AC``, ``verdict_WA``, ...; one sample's own verdict as 1.0), which OpenRLHF
    logs per sample and averages."""
    rewards = [float(r) for r in details.rewards]  # type: ignore[arg-type]
    return {
        "rewards": rewards,
        "scores": list(rewards),
        "extra_logs": verdict_shares(details.verdicts),
    }


def reward_func(queries: Any, prompts: Any, labels: Any, **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's ``reward_func(queries, prompts, labels)``: ``{"rewards", "scores",
    "extra_logs"}``, rewards and scores as float tensors (one per query; plain lists where
    torch is not installed), ``extra_logs`` the share of each verdict in the call
    (:func:`openrlhf_answer`). A label that cannot be read raises naming it (``labels[0]:
    ...``): OpenRLHF logs the message and the sample has no reward, which stops training;
    ``MICROCODER_ON_BAD_PROBLEM=skip`` scores it 0.0 instead, counted in ``verdict_ERROR``."""
    answer = openrlhf_answer(grade_queries(queries, prompts, labels))
    try:
        import torch
    except ImportError:  # outside OpenRLHF: the JSON form
        return answer
    answer["rewards"] = torch.tensor(answer["rewards"], dtype=torch.float)
    answer["scores"] = torch.tensor(answer["scores"], dtype=torch.float)
    return answer


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evaluator.reward.frameworks.openrlhf``: print the path to pass as
    ``--reward.remote_url`` (:data:`REWARD_FUNC_FILE`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args:
        print(
            "usage: python -m evaluator.reward.frameworks.openrlhf  (prints the reward_func "
            "file's path for OpenRLHF's --reward.remote_url)",
            file=sys.stderr,
        )
        return 2
    print(REWARD_FUNC_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
