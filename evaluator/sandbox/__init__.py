"""How a program runs: fork servers, confinement (seccomp, Landlock, rlimits), the pool."""

from evaluator.sandbox.pool import SandboxPool, WorkerDied
from evaluator.sandbox.profile import Profile, ProfileError, available_profiles, load_profile
from evaluator.sandbox.records import Isolation, Job, JobResult, LimitHit, Limits, Mode, RunResult

__all__ = [
    "Isolation",
    "Job",
    "JobResult",
    "LimitHit",
    "Limits",
    "Mode",
    "Profile",
    "ProfileError",
    "RunResult",
    "SandboxPool",
    "WorkerDied",
    "available_profiles",
    "load_profile",
]
