"""The conventions of the judges whose problems we grade, as plain data for the sandbox child.

The sandbox runs what a job says and knows no dataset (docs/architecture.md, "What the
sandbox knows"); what a program written for a platform expects of its judge is said here and
travels in the job (:class:`~evaluator.sandbox.Job`'s ``names``, ``entry_class`` and
``check_name``):

- LeetCode's call-based problems: the program defines ``class Solution`` whose method is
  called on a fresh instance for each test (a top-level function of that name is taken when
  there is no such class: LiveCodeBench's functional problems, MBPP), and it finds LeetCode's
  names (``List``, ``deque``, ``heappush``, ``inf``...) as globals without an import.
- HumanEval's (and MBPP's, EvalPlus's) assertion tests define ``check(candidate)``, called
  with the entry point; a test passes when it returns.
"""

from __future__ import annotations

from typing import Any

from evaluator.sandbox import Names

# LeetCode's Python 3 environment imports these for the program; LeetCodeDataset's prompt
# star-imports the same (statistics: a contest habit). Later modules win a name two share.
LEETCODE_STAR = (
    "typing",
    "collections",
    "heapq",
    "bisect",
    "math",
    "itertools",
    "functools",
    "string",
    "operator",
    "statistics",
)
# ... and these modules are found under their own names (``collections.Counter``, ``sys``).
LEETCODE_MODULES = (
    "bisect",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "sys",
    "typing",
)
LEETCODE_NAMES = Names(star=LEETCODE_STAR, modules=LEETCODE_MODULES)
NO_NAMES = Names()

SOLUTION_CLASS = "Solution"  # LeetCode: the class whose method a test calls, fresh per test
CHECK_FUNCTION = "check"  # HumanEval: the function the tests define, given the candidate

# A call-based job's fields for LeetCode's convention: ``Job(..., **LEETCODE_CALL)``.
LEETCODE_CALL: dict[str, Any] = {"entry_class": SOLUTION_CLASS, "names": LEETCODE_NAMES}
