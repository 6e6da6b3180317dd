"""Named interpreter environments: the few interpreter defaults a problem's platform sets
differently from a plain run, with where each value comes from. A problem's environment is
decided here, from its own ``environment`` or its ``metadata["platform"]``
(:func:`environment_for`), and reaches the sandbox child as plain data in its job
(``Job.environment``, ``Job.names``): the sandbox reads no problem.

A sandbox child starts as a plain run of this interpreter (:mod:`evaluator.sandbox.reference`).
An environment changes only what its platform is known to change: the recursion limit, the
int/str conversion digit limit (Python 3.11 refuses more than 4,300 digits by default) and
whether a stdin program finds LeetCode-style names (``List``, ``deque``, ``heappush``...) as
globals without an import (call-based programs always do: that is LeetCode's convention, and
there is no plain run to follow). Everything else (streams, exit path, ``sys.flags``) stays a
plain run's. Each environment also names the third-party modules its platform documents
(``modules``, with their source): the ``platforms`` extra installs them, so that a program
written for that platform finds them here too. The table in ``docs/plain-run.md`` follows
:data:`ENVIRONMENTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.sandbox import Names

from .conventions import LEETCODE_NAMES, NO_NAMES


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
    # Third-party modules (import names) the platform documents for its programs, beside the
    # standard library; () for none documented. What a program can import is what this
    # interpreter has installed (`pip install microcoder[platforms]` installs these):
    # nothing is refused for not being on the list (``docs/plain-run.md``, "Environments").
    modules: tuple[str, ...] = ()
    modules_source: str = ""

    @property
    def stdin_names(self) -> Names:
        """The names a stdin program finds as globals in this environment."""
        return LEETCODE_NAMES if self.stdin_preamble else NO_NAMES

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
    "problems with no platform (our schema's default), HumanEval and MBPP, Codeforces problems",
    "CPython's own defaults, measured by a plain run at pool start. Codeforces runs the "
    "stock interpreter on the submitted file and publishes no changed defaults: a program "
    "that needs deep recursion or huge integer printing says so itself "
    "(sys.setrecursionlimit, sys.set_int_max_str_digits), as contest code does.",
)
# AtCoder's 2023 language update (the judge since then): "Python (CPython 3.11.4)" and its
# pip-installed libraries, https://img.atcoder.jp/file/language-update/language-list.html
# (numpy 1.24.1, scipy 1.10.1, networkx 3.0, sympy 1.11.1, sortedcontainers 2.4.0,
# more-itertools 9.0.0, shapely 2.0.0, bitarray 2.6.2, PuLP 2.7.0, mpmath 1.2.1, pandas
# 1.5.2, z3-solver, scikit-learn 1.2.0, ortools, ac-library-python, cppyy, torch 1.13.1,
# polars, lightgbm, gmpy2 2.1.5, numba 0.57.0). Import names, in that order. (Read from a
# copy of that list that cites it: the page itself was not reachable from where this was
# written; LeetCode's text likewise from a capture of its language notes.)
ATCODER_MODULES = (
    "numpy",
    "scipy",
    "networkx",
    "sympy",
    "sortedcontainers",
    "more_itertools",
    "shapely",
    "bitarray",
    "pulp",
    "mpmath",
    "pandas",
    "z3",
    "sklearn",
    "ortools",
    "atcoder",
    "cppyy",
    "torch",
    "polars",
    "lightgbm",
    "gmpy2",
    "numba",
)
ATCODER = Environment(
    "atcoder",
    None,
    None,
    False,
    "AtCoder problems",
    "AtCoder runs the stock interpreter on the submitted file and publishes no changed "
    "defaults (as plain); what differs is the libraries it installs beside it.",
    ATCODER_MODULES,
    "AtCoder's 2023 language update, Python (CPython 3.11.4): "
    "https://img.atcoder.jp/file/language-update/language-list.html",
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
    ("sortedcontainers",),
    "LeetCode's environments page, Python3 (Python 3.11): \"For Map/TreeMap data structure, "
    'you may use sortedcontainers library." https://support.leetcode.com/hc/en-us/articles/'
    "360011833974-What-are-the-environments-for-the-programming-languages",
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

ENVIRONMENTS: dict[str, Environment] = {
    env.name: env for env in (PLAIN, LEETCODE, ATCODER, LIVECODEBENCH)
}
_BY_PLATFORM = {"leetcode": LEETCODE, "atcoder": ATCODER}


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
