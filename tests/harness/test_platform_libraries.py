"""Platform libraries (issue 45, item 4): what a program written for LeetCode or AtCoder
imports besides the standard library, installed by the ``platforms`` extra, is importable in
the sandbox at every isolation level (its site-packages are among Landlock's readable paths).

Expected answers are computed, not written: a call-based LeetCode program's by a brute force
here, a stdin AtCoder program's by its plain run (``tests/python/plain.py``)."""

from __future__ import annotations

import json
import random
import textwrap

import pytest

from evaluator.harness.environments import ATCODER, LEETCODE, environment_for
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation
from tests.python.plain import Case, run_plain

# A correct LeetCode solution of "Count of Smaller Numbers After Self" (problem 315) with
# sortedcontainers' SortedList, the library LeetCode's Python3 documents.
SORTED_LIST_SOLUTION = """
from sortedcontainers import SortedList

class Solution:
    def countSmaller(self, nums: List[int]) -> List[int]:
        seen = SortedList()
        counts = []
        for value in reversed(nums):
            counts.append(seen.bisect_left(value))
            seen.add(value)
        return counts[::-1]
"""

# AtCoder stdin programs with the libraries its judge installs: NumPy, NetworkX, and the
# AtCoder Library's Python port (import name ``atcoder``).
ATCODER_PROGRAMS = {
    "numpy": """
import numpy as np
n = int(input())
a = np.array(list(map(int, input().split())), dtype=np.int64)
print(int(a.sum()), int(np.cumsum(a)[-1]), int(a.max()))
""",
    "networkx": """
import networkx as nx
n, m = map(int, input().split())
g = nx.Graph()
g.add_nodes_from(range(n))
for _ in range(m):
    u, v = map(int, input().split())
    g.add_edge(u, v)
print(nx.number_connected_components(g), nx.shortest_path_length(g, 0, 1) if nx.has_path(g, 0, 1) else -1)
""",
    "atcoder": """
from atcoder.dsu import DSU
n, m = map(int, input().split())
dsu = DSU(n)
for _ in range(m):
    u, v = map(int, input().split())
    dsu.merge(u, v)
print(len(dsu.groups()))
""",
}


def _count_smaller(nums: list[int]) -> list[int]:
    return [sum(1 for later in nums[i + 1 :] if later < value) for i, value in enumerate(nums)]


def _graph_input(rng: random.Random) -> str:
    n, m = 8, 6
    edges = [f"{rng.randrange(n)} {rng.randrange(n)}" for _ in range(m)]
    return f"{n} {m}\n" + "\n".join(edges) + "\n"


def _atcoder_inputs(name: str) -> list[str]:
    rng = random.Random(45)
    if name == "numpy":
        return [
            f"5\n{' '.join(str(rng.randrange(-99, 100)) for _ in range(5))}\n" for _ in range(3)
        ]
    return [_graph_input(rng) for _ in range(3)]


@pytest.fixture(scope="module", params=list(Isolation))
def grader(request, pool):
    return Grader(GradeOptions(time_limit=10.0, isolation=request.param), pool=pool)


def test_platforms_resolve_to_their_environments():
    assert environment_for(None, {"platform": "LeetCode"}) is LEETCODE
    assert environment_for(None, {"platform": "atcoder"}) is ATCODER
    assert "sortedcontainers" in LEETCODE.modules and LEETCODE.modules_source
    assert {"numpy", "networkx", "atcoder", "sortedcontainers"} <= set(ATCODER.modules)


def test_a_leetcode_sorted_list_solution_is_accepted(grader):
    rng = random.Random(315)
    arguments = [
        [5, 2, 6, 1],
        [-1],
        [-1, -1],
        *([rng.randrange(-50, 50) for _ in range(40)] for _ in range(3)),
    ]
    tests = [TestCase(json.dumps(nums), json.dumps(_count_smaller(nums))) for nums in arguments]
    problem = Problem(
        "count-smaller", Harness.FUNCTIONAL, tests, func_name="countSmaller",
        metadata={"platform": "leetcode"},
    )  # fmt: skip
    result = grader.grade(problem, textwrap.dedent(SORTED_LIST_SOLUTION))
    assert result.verdict is Verdict.AC, result


@pytest.mark.parametrize("name", sorted(ATCODER_PROGRAMS))
def test_atcoder_library_imports_give_the_plain_runs_answers(grader, name):
    source = ATCODER_PROGRAMS[name].lstrip("\n")
    tests = []
    for text in _atcoder_inputs(name):
        plain = run_plain(Case(name, source, text.encode()))
        assert plain.status == 0, plain  # the reference itself must run
        tests.append(TestCase(text, plain.stdout.decode()))
    problem = Problem(f"atcoder-{name}", Harness.STDIN, tests, metadata={"platform": "atcoder"})
    result = grader.grade(problem, source)
    assert result.verdict is Verdict.AC, result


def test_a_module_the_platform_does_not_offer_still_imports(grader):
    """``platform-modules`` (docs/plain-run.md, "Deviations"): LeetCode documents only
    sortedcontainers, yet a LeetCode program importing NetworkX runs here, as in a plain run
    of this interpreter."""
    assert "networkx" not in LEETCODE.modules
    code = "import networkx\n\nclass Solution:\n    def name(self, x):\n        return networkx.__name__\n"
    problem = Problem(
        "offered", Harness.FUNCTIONAL, [TestCase("0", json.dumps("networkx"))], func_name="name",
        metadata={"platform": "leetcode"},
    )  # fmt: skip
    assert grader.grade(problem, code).verdict is Verdict.AC
