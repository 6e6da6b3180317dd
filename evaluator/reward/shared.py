"""The one warm reward a process's framework adapters share: :func:`shared_reward`.

Frameworks that call a module-level function (verl's ``compute_score``, OpenRLHF's
``reward_func``, slime's ``rm``, AReaL's reward function, ...) get no object to keep a pool in;
each adapter grades through this one :class:`~evaluator.reward.code_reward.CodeReward` (binary
mode, made on first use, closed at interpreter exit), so a process keeps one warm grader
whatever frameworks it serves. An adapter that needs another scoring mode asks
:meth:`CodeReward.score_details` for the results and scores them itself.

Its programs run in the user's pool daemon
(:class:`~evaluator.sandbox.shared_pool.SharedSandboxPool`), whose fork servers, one per core,
every process shares: these frameworks call from many short-lived processes (verl's
``PrimeRewardManager``: a fresh process pool per batch), which then start nothing and grade
at once. ``MICROCODER_SHARED_POOL=0`` grades in fork servers of the process's own instead.
"""

from __future__ import annotations

import os
import threading

from evaluator.reward.code_reward import CodeReward

__all__ = ["SHARED_POOL_ENV", "shared_pool_wanted", "shared_reward"]

SHARED_POOL_ENV = "MICROCODER_SHARED_POOL"
"""Environment variable: ``0`` (or ``false``, ``no``, ``off``) makes the shared reward grade in
fork servers of its process's own instead of the user's pool daemon."""

_shared: CodeReward | None = None
_lock = threading.Lock()


def shared_reward() -> CodeReward:
    """The process's shared :class:`CodeReward` (see the module docstring)."""
    global _shared
    with _lock:
        if _shared is None or _shared.closed:
            # one connection (or server) up front, the others as calls overlap
            _shared = CodeReward(mode="binary", started=1, shared_pool=shared_pool_wanted())
        return _shared


def shared_pool_wanted() -> bool:
    """Whether the shared reward grades in the user's pool daemon (:data:`SHARED_POOL_ENV`)."""
    value = os.environ.get(SHARED_POOL_ENV, "1").strip().lower()
    return value not in ("0", "false", "no", "off")
