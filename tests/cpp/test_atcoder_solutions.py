"""Original C++ solutions of the vendored AtCoder problems (LiveCodeBench's O1-Mini records in
``tests/data/lcb_submissions``), graded for real (build, sandbox, judge) with the verdict each
was written for (``atcoder_solutions.toml``).

Each problem is its statement's sample tests (``benchmarks/accuracy/lcb_o1.py``'s
``atcoder_problem``) plus the TOML's extra tests: small ones whose outputs the brute forces
below reproduce, and large ones built by a generator here (their outputs by construction, or
the correct solution's, which agrees with a brute force on random small inputs: the
cross-check below, run in the sandbox). Where the O1-Mini program passed officially, our
grading of it in Python must agree with the C++ solution's AC.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import string
import tomllib
from pathlib import Path

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from tests.test_accuracy_smoke import _load

DATA = tomllib.loads(Path(__file__).with_name("atcoder_solutions.toml").read_text())
SOLUTIONS = DATA["solutions"]
PROBLEMS = DATA["problems"]
# Generous for a loaded machine: the correct solutions take < 0.2 s on the largest tests, the
# slow ones 40x+ the limit.
OPTIONS = GradeOptions(time_limit=3.0, memory_limit=1024, early_exit=True)
SEED = 20240301
MOD = 998244353


# -- brute forces: the statements, followed literally ----------------------------------------


def brute_abc301_a(text: str) -> str:
    s = text.split()[1]
    t, a = s.count("T"), s.count("A")
    if t != a:
        return "T\n" if t > a else "A\n"
    seen = {"T": 0, "A": 0}
    for c in s:  # a tie: whoever reaches the final count first
        seen[c] += 1
        if seen[c] == t:
            return c + "\n"
    raise AssertionError(text)


def brute_abc301_b(text: str) -> str:
    a = [int(x) for x in text.split()[1:]]
    while True:
        gaps = [i for i in range(len(a) - 1) if abs(a[i] - a[i + 1]) != 1]
        if not gaps:
            return " ".join(map(str, a)) + "\n"
        i = gaps[0]
        step = 1 if a[i] < a[i + 1] else -1
        a[i + 1 : i + 1] = range(a[i] + step, a[i + 1], step)


def brute_abc302_a(text: str) -> str:
    a, b = map(int, text.split())
    if a // b > 10**6:  # exact integer arithmetic, the loop below would take too long
        return f"{-(-a // b)}\n"
    attacks = 0
    while a > 0:
        a, attacks = a - b, attacks + 1
    return f"{attacks}\n"


class TooBig(Exception):
    """An input past what a brute force can enumerate."""


DDOS = re.compile(r"([A-Z]).*\1.*[a-z].*[A-Z]")  # a DDoS-type subsequence, as defined


def brute_abc301_f(text: str) -> str:
    s = list(text.strip())
    marks = [i for i, c in enumerate(s) if c == "?"]
    if len(marks) > 3:  # 52^q replacements
        raise TooBig
    count = 0
    for letters in itertools.product(string.ascii_letters, repeat=len(marks)):
        for i, c in zip(marks, letters, strict=True):
            s[i] = c
        count += DDOS.search("".join(s)) is None
    return f"{count % MOD}\n"


def brute_abc303_e(text: str) -> str:
    """Every set of edges whose removal leaves stars of level >= 2, each removed edge joining
    two star leaves and each vertex in at most one removed edge (the procedure's edges): the
    levels of those stars, the same for every such set."""
    numbers = list(map(int, text.split()))
    n, edges = numbers[0], list(zip(numbers[1::2], numbers[2::2], strict=True))
    if n > 10:  # 2^(n-1) edge sets
        raise TooBig
    answers = set()
    for mask in range(1 << (n - 1)):
        added = [e for i, e in enumerate(edges) if mask >> i & 1]
        kept = [e for i, e in enumerate(edges) if not mask >> i & 1]
        ends = [v for e in added for v in e]
        if len(ends) != len(set(ends)):
            continue
        adjacent = {v: set() for v in range(1, n + 1)}
        for u, v in kept:
            adjacent[u].add(v), adjacent[v].add(u)
        centers = [v for v in adjacent if len(adjacent[v]) >= 2]
        leaves = {w for c in centers for w in adjacent[c]}
        stars = all(len(adjacent[w]) == 1 for w in leaves) and len(leaves) + len(centers) == n
        if stars and not set(ends) & set(centers):
            answers.add(" ".join(map(str, sorted(len(adjacent[c]) for c in centers))) + "\n")
    assert len(answers) == 1, (text, answers)
    return answers.pop()


BRUTE = {
    "abc301_a": brute_abc301_a,
    "abc301_b": brute_abc301_b,
    "abc301_f": brute_abc301_f,
    "abc302_a": brute_abc302_a,
    "abc303_e": brute_abc303_e,
}


# -- random small inputs (cross-check) and the large tests' generators -------------------------


def star_tree(levels: list[int], rng: random.Random) -> str:
    """A tree the statement's procedure makes from stars of these levels: leaves of different
    components joined at random until connected, then the vertices renumbered at random."""
    edges, degree, component, n = [], [], [], 0
    for level in levels:
        edges += [(n, n + i) for i in range(1, level + 1)]
        degree += [level] + [1] * level
        component += [n] * (level + 1)
        n += level + 1
    while len(set(component)) > 1:
        u, v = rng.sample([x for x in range(n) if degree[x] == 1], 2)
        if component[u] != component[v]:
            edges.append((u, v))
            degree[u] += 1
            degree[v] += 1
            old = component[v]
            component = [component[u] if c == old else c for c in component]
    label = rng.sample(range(1, n + 1), n)
    rng.shuffle(edges)
    lines = [
        f"{label[u]} {label[v]}" if rng.random() < 0.5 else f"{label[v]} {label[u]}"
        for u, v in edges
    ]
    return f"{n}\n" + "\n".join(lines) + "\n"


def random_input(problem: str, rng: random.Random) -> str:
    if problem == "abc301_a":
        n = rng.randint(1, 12)
        return f"{n}\n{''.join(rng.choice('TA') for _ in range(n))}\n"
    if problem == "abc301_b":
        a = [rng.randint(1, 12)]
        for _ in range(rng.randint(1, 7)):
            a.append(rng.choice([x for x in range(1, 13) if x != a[-1]]))
        return f"{len(a)}\n{' '.join(map(str, a))}\n"
    if problem == "abc302_a":
        big = rng.random() < 0.5
        a, b = rng.randint(1, 10**18 if big else 60), rng.randint(1, 10**9 if big else 12)
        return f"{a} {b}\n"
    if problem == "abc301_f":
        s = [rng.choice("??ABCDabZ") for _ in range(rng.randint(4, 9))]
        if rng.random() < 0.25:  # nearly every uppercase letter fixed and distinct
            s = rng.sample(string.ascii_uppercase, rng.randint(23, 26)) + s
        for i in [i for i, c in enumerate(s) if c == "?"][2:]:
            s[i] = rng.choice("AbC")
        return "".join(s) + "\n"
    assert problem == "abc303_e"
    levels = [rng.randint(2, 4)]
    while (more := rng.randint(2, 4)) + 1 + sum(level + 1 for level in levels) <= 10:
        levels.append(more)
    return star_tree(levels, rng)


def question_marks(length: int) -> tuple[str, None]:
    return "?" * length + "\n", None


def chained_level2_stars(stars: int) -> tuple[str, str]:
    """A path of 3 * ``stars`` vertices: the level-2 stars joined end to end."""
    n = 3 * stars
    edges = "".join(f"{i} {i + 1}\n" for i in range(1, n))
    return f"{n}\n{edges}", " ".join(["2"] * stars) + "\n"


GENERATORS = {"question_marks": question_marks, "chained_level2_stars": chained_level2_stars}


def large_tests(problem: str) -> list[TestCase]:
    tests = []
    for spec in PROBLEMS[problem].get("large", []):
        args = {k: v for k, v in spec.items() if k not in ("generator", "output", "what")}
        text, expected = GENERATORS[spec["generator"]](**args)
        assert (expected is None) != ("output" not in spec)  # one source for the output
        tests.append(TestCase(text, expected if expected is not None else spec["output"]))
    return tests


# -- the graded runs ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def problems():
    lcb = _load("lcb_o1")
    records = {r["question_id"]: r for r in lcb.load_records("o1-mini")}
    built = {}
    for qid, spec in PROBLEMS.items():
        problem = lcb.atcoder_problem(records[qid], "lines")
        extra = [TestCase(t["input"], t["output"]) for t in spec["extra"]]
        tests = problem.tests + extra + large_tests(qid)
        built[qid] = dataclasses.replace(problem, tests=tests), records[qid], problem.tests
    return built


def cross_check_problem(qid: str) -> Problem:
    rng = random.Random(f"{SEED}-{qid}")
    inputs = [random_input(qid, rng) for _ in range(40)]
    tests = [TestCase(text, BRUTE[qid](text)) for text in inputs]
    return Problem(f"{qid}#random", Harness.STDIN, tests, judge="lines")


def correct(qid: str) -> str:
    (name,) = [n for n, s in SOLUTIONS.items() if s["problem"] == qid and s["verdict"] == "AC"]
    return name


@pytest.fixture(scope="module")
def graded(pool, builder, problems):
    """Every solution on its problem, each correct one on random small inputs checked by the
    brute force, and the O1-Mini programs that passed officially (Python), in one batch."""
    items = [(problems[s["problem"]][0], s["source"], "cpp") for s in SOLUTIONS.values()]
    cross = {qid: cross_check_problem(qid) for qid in PROBLEMS}
    items += [(cross[qid], SOLUTIONS[correct(qid)]["source"], "cpp") for qid in PROBLEMS]
    official = [qid for qid, (_, record, _) in problems.items() if record["graded_list"][0]]
    items += [(problems[qid][0], problems[qid][1]["code_list"][0], "python") for qid in official]
    with Grader(OPTIONS, pool=pool, builder=builder) as grader:
        results = iter(grader.grade_many(items))
    return {
        "solutions": {name: next(results) for name in SOLUTIONS},
        "cross": {qid: next(results) for qid in PROBLEMS},
        "official": {qid: next(results) for qid in official},
    }


def test_every_problem_has_a_correct_solution_and_two_wrong_ones():
    assert set(PROBLEMS) == {"abc301_a", "abc301_b", "abc301_f", "abc302_a", "abc303_e"}
    for qid in PROBLEMS:
        verdicts = [s["verdict"] for s in SOLUTIONS.values() if s["problem"] == qid]
        assert verdicts.count("AC") == 1 and len(verdicts) >= 3, (qid, verdicts)
    assert {s["verdict"] for s in SOLUTIONS.values()} == {"AC", "WA", "TLE", "RE"}


@pytest.mark.parametrize("qid", list(PROBLEMS))
def test_extra_tests_agree_with_the_brute_force(qid):
    for test in PROBLEMS[qid]["extra"]:
        assert BRUTE[qid](test["input"]) == test["output"], test["input"]


@pytest.mark.parametrize("qid", list(PROBLEMS))
def test_brute_force_reproduces_the_samples(problems, qid):
    _, _, samples = problems[qid]
    checked = 0
    for test in samples:
        try:
            assert BRUTE[qid](test.input).split() == test.output.split(), test.input
            checked += 1
        except TooBig:  # abc301_f's 40 ?s, abc303_e's 20 vertices
            pass
    assert checked >= 2


@pytest.mark.parametrize("qid", list(PROBLEMS))
def test_correct_solution_agrees_with_the_brute_force_on_random_inputs(graded, qid):
    result = graded["cross"][qid]
    assert len(result.tests) == 40
    assert result.verdict is Verdict.AC, result.to_dict()


@pytest.mark.parametrize("name", list(SOLUTIONS))
def test_solution_gets_its_verdict(graded, name):
    solution, result = SOLUTIONS[name], graded["solutions"][name]
    assert result.verdict == Verdict(solution["verdict"]), (solution["what"], result.to_dict())


def test_official_passes_are_accepted_like_the_correct_cpp_solution(graded):
    assert set(graded["official"]) == {"abc301_a", "abc301_b", "abc302_a"}
    for qid, result in graded["official"].items():
        cpp = graded["solutions"][correct(qid)]
        assert result.verdict is cpp.verdict is Verdict.AC, (qid, result.to_dict())
