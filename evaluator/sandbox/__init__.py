"""How a program runs: fork servers, confinement (seccomp, Landlock, rlimits), the pool.

Imported lazily: the fork template imports submodules of this package and must stay lean.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "SandboxPool": "pool",
    "WorkerDied": "pool",
    "Profile": "profile",
    "ProfileError": "profile",
    "available_profiles": "profile",
    "load_profile": "profile",
    "Isolation": "records",
    "Job": "records",
    "JobResult": "records",
    "LimitHit": "records",
    "Limits": "records",
    "Mode": "records",
    "RunResult": "records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evaluator.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(f"evaluator.sandbox.{module}"), name)
