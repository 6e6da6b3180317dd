"""How a program runs: fork servers, confinement (seccomp, Landlock, rlimits), the pool; and
the one launcher for the trusted programs the grader starts outside them (:mod:`.launcher`:
builds, checker programs).

Imported lazily: the fork template imports submodules of this package and must stay lean.
"""

from __future__ import annotations

from evaluator.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "SandboxPool": ".pool",
        "WorkerDied": ".pool",
        "DEFAULT_PROFILE": ".profile",
        "Profile": ".profile",
        "ProfileError": ".profile",
        "available_profiles": ".profile",
        "load_profile": ".profile",
        "Isolation": ".jobs",
        "Job": ".jobs",
        "JobResult": ".jobs",
        "LimitHit": ".jobs",
        "Limits": ".jobs",
        "Mode": ".jobs",
        "Names": ".jobs",
        "RunResult": ".jobs",
    },
)
