"""The one warm reward a process's framework adapters share: :func:`shared_reward`.

Frameworks that call a module-level function (verl's ``compute_score``, OpenRLHF's
``reward_func``, slime's ``rm``, AReaL's reward function, ...) get no object to keep a pool in;
each adapter grades through this one :class:`~evaluator.reward.code_reward.CodeReward` (binary
mode, up to one fork server per CPU core, made on first use, closed at interpreter exit), so a process
keeps one warm pool whatever frameworks it serves. An adapter that needs another scoring mode
asks :meth:`CodeReward.score_details` for the results and scores them itself.
"""

from __future__ import annotations

import threading

from evaluator.reward.code_reward import CodeReward

__all__ = ["shared_reward"]

_shared: CodeReward | None = None
_lock = threading.Lock()


def shared_reward() -> CodeReward:
    """The process's shared :class:`CodeReward` (see the module docstring)."""
    global _shared
    with _lock:
        if _shared is None or _shared.closed:
            # one server up front, the others as calls overlap: a framework that calls once
            # per sample from short-lived processes (verl's PrimeRewardManager: a fresh
            # process pool per batch) starts one per process, not one per core
            _shared = CodeReward(mode="binary", started=1)
        return _shared
