"""AReaL (inclusionAI/AReaL): :func:`code_reward`, a reward function in AReaL's contract,
``reward_fn(prompt, completions, prompt_ids, completion_ids, **data) -> float``::

    RLVRWorkflow(
        reward_fn="evaluator.reward.frameworks.areal.code_reward", gconfig=..., tokenizer=...
    )

AReaL's ``RLVRWorkflow`` imports the function by its dotted path and wraps it in
``AsyncRewardWrapper`` (``areal/api/reward_api.py``), which runs it in a process pool (it must
be a picklable, module-level function) under a timeout, 15 s by default: a call that times out
is retried, and scores 0 after the last try. Each call gets one completion: ``completions`` is
the decoded response (special tokens kept: those at its end are stripped here) and ``data``
the dataset row's fields (``messages`` included), the row of any source the format registry
reads (TACO's ``input_output``, LiveCodeBench's ``public_test_cases``, ..., or a
``problem_json`` field holding one: :mod:`evaluator.reward.labels`). The score is binary
(1.0 when every test passes), a float as AReaL's workflow takes it. A row whose problem cannot
be read raises naming the field (AReaL logs it, retries and then fails the rollout with the
message); ``MICROCODER_ON_BAD_PROBLEM=skip`` scores it 0.0 with one logged warning instead.

The pool: a call in AReaL's process-pool worker grades in that process's own warm pool of
``$MICROCODER_AREAL_WORKERS`` fork servers (default 1: a worker grades one completion at a
time, and AReaL runs several workers), started on its first call and closed when the worker
exits (AReaL shuts its pool down at exit); a pool inherited from a forked parent is never
used. A call in a main process (no ``multiprocessing`` parent) grades in the process's shared
reward (:func:`~evaluator.reward.shared.shared_reward`). The verdicts are not logged: AReaL's
workflow records the returned reward only, and nothing else crosses its process pool.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import threading
from typing import Any

from evaluator.reward.code_reward import CodeReward
from evaluator.reward.columns import ProblemError
from evaluator.reward.labels import grade_labelled
from evaluator.reward.shared import shared_reward

__all__ = ["AREAL_WORKERS_ENV", "ROW", "code_reward", "process_reward"]

AREAL_WORKERS_ENV = "MICROCODER_AREAL_WORKERS"
"""Environment variable: fork servers per AReaL process-pool worker (default 1)."""
ROW = "the dataset row (code_reward's **data)"
"""How errors name the problem's place."""

_lock = threading.Lock()
_own: dict[str, Any] = {"pid": None, "reward": None}
_inherited: list[CodeReward] = []  # a forked parent's, kept referenced: never used nor closed


def _workers() -> int:
    value = os.environ.get(AREAL_WORKERS_ENV, "").strip()
    return max(1, int(value)) if value else 1


def process_reward() -> CodeReward:
    """The reward this process grades with: in a ``multiprocessing`` child (AReaL's
    process-pool worker) its own, of :data:`AREAL_WORKERS_ENV` fork servers, closed when the
    worker exits; elsewhere the shared one (:func:`shared_reward`)."""
    if multiprocessing.parent_process() is None:
        return shared_reward()
    with _lock:
        reward = _own["reward"]
        if _own["pid"] == os.getpid() and reward is not None and not reward.closed:
            return reward
        if reward is not None and _own["pid"] != os.getpid():
            _inherited.append(reward)  # its servers are the parent's
        reward = CodeReward(mode="binary", workers=_workers())
        # multiprocessing children leave through os._exit, past atexit: close at their exit
        multiprocessing.util.Finalize(None, reward.close, exitpriority=50)
        _own["pid"], _own["reward"] = os.getpid(), reward
        return reward


def code_reward(
    prompt: Any = None,
    completions: Any = None,
    prompt_ids: Any = None,
    completion_ids: Any = None,
    **data: Any,
) -> float:
    """AReaL's reward function: 1.0 when the code in ``completions`` (one decoded response)
    passes every test of the problem the row ``data`` holds, else 0.0 (see the module
    docstring). ``prompt``, ``prompt_ids`` and ``completion_ids`` are accepted and not used."""
    if not isinstance(completions, str):
        got = "none" if completions is None else type(completions).__name__
        raise TypeError(
            "code_reward(prompt, completions, prompt_ids, completion_ids, **data) takes one "
            f"response, decoded, as completions; got {got}"
        )
    try:
        details = grade_labelled(process_reward(), [completions], [data], [ROW])
    except ProblemError as exc:  # as a plain ProblemError: it is pickled back to AReaL
        raise ProblemError(str(exc)) from None
    return float(details.rewards[0] or 0.0)
