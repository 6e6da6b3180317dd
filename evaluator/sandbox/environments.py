"""Named interpreter environments: the few interpreter defaults a problem's platform sets
differently from a plain run, with where each value comes from.

A sandbox child starts as a plain run of this interpreter (:mod:`evaluator.sandbox.reference`).
An environment changes only what its platform is known to change: the recursion limit, the
int/str conversion digit limit (Python 3.11 refuses more than 4,300 digits by default) and
whether a stdin program finds LeetCode-style names (``List``, ``deque``, ``heappush``...) as
globals without an import (call-based programs always do: that is LeetCode's convention, and
there is no plain run to follow). Everything else (streams, exit path, ``sys.flags``) stays a
plain run's. The table in
``docs/plain-run.md`` is generated from :data:`ENVIRONMENTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Environment:
    """``None`` keeps the plain run's value (CPython 3.11: recursion limit 1000, 4300
    digits)."""

    name: str
    recursion_limit: int | None
    int_max_str_digits: int | None
    stdin_preamble: bool  # LeetCode's names as globals for stdin programs too
    used_for: str
    source: str

    def overrides(self) -> dict[str, int]:
        """What the sandbox child sets before the program runs."""
        values = {"recursion_limit": self.recursion_limit}
        values["int_max_str_digits"] = self.int_max_str_digits
        return {k: v for k, v in values.items() if v is not None}


PLAIN = Environment(
    "plain",
    None,
    None,
    False,
    "problems with no platform (our schema's default), HumanEval and MBPP, AtCoder and "
    "Codeforces problems",
    "CPython's own defaults, measured by a plain run at pool start. AtCoder and Codeforces "
    "run the stock interpreter on the submitted file and publish no changed defaults: a "
    "program that needs deep recursion or huge integer printing says so itself "
    "(sys.setrecursionlimit, sys.set_int_max_str_digits), as contest code does.",
)
LEETCODE = Environment(
    "leetcode",
    50_000,
    None,
    False,
    "LeetCode problems (LeetCodeDataset, LiveCodeBench's LeetCode half, DebugBench)",
    "LeetCode's Python 3 environment imports the typing, collections, heapq, bisect, math, "
    "itertools, functools, string and operator names for the program (the prompt of "
    "LeetCodeDataset shows the same star imports). Its recursion limit is not published: we "
    "keep LiveCodeBench's 50,000, the setting LeetCode-problem results are usually reported "
    "under, so no program LiveCodeBench accepts is rejected for its depth (none of the "
    "repo's accepted LeetCode programs needs it: all 227 LeetCodeDataset v0.3.1 references "
    "and 1,039 of 1,043 DebugBench oracles pass at 1000 as at 50,000). The int/str digit "
    "limit stays CPython's: accepted solutions of huge-number problems raise it themselves.",
)
LIVECODEBENCH = Environment(
    "livecodebench",
    50_000,
    50_000,
    True,
    "reproducing LiveCodeBench's own numbers (--environment livecodebench)",
    "lcb_runner/evaluation/testing_util.py prepends `sys.setrecursionlimit(50000)` (and star "
    "imports) to every program; compute_code_generation_metrics.py calls "
    "`sys.set_int_max_str_digits(50000)` in the process that runs them.",
)

ENVIRONMENTS: dict[str, Environment] = {env.name: env for env in (PLAIN, LEETCODE, LIVECODEBENCH)}
_BY_PLATFORM = {"leetcode": LEETCODE}


def get_environment(name: str) -> Environment:
    try:
        return ENVIRONMENTS[name]
    except KeyError:
        known = ", ".join(sorted(ENVIRONMENTS))
        raise ValueError(f"unknown environment {name!r} (known: {known})") from None


def environment_for(name: str | None, metadata: dict[str, Any] | None = None) -> Environment:
    """A problem's environment: the one it names, else its platform's, else ``plain``."""
    if name:
        return get_environment(name)
    platform = str((metadata or {}).get("platform") or "").strip().lower()
    return _BY_PLATFORM.get(platform, PLAIN)
