"""Assertion harness (HumanEval/MBPP): the problem's tests define ``check(candidate)``.

By default the tests run in a process of their own (see :func:`evaluator.sandbox.inside.split.run_check`):
``check`` gets a proxy that calls the candidate in its sandbox and receives plain data back,
so the candidate can neither forge the report that ``check`` returned nor pass an always-equal
object to the asserts, and a pass needs that report (exit status 0, e.g. ``sys.exit(0)``
before the asserts, is not one). Tests that use a name only the candidate defines (a class the
solution declares, say) cannot work that way; they run joined with the program in one module,
as HumanEval's own harness does.

A problem of LeetCode's platform (its environment is ``leetcode``: DeepSeek-Coder's LeetCode
set, rllm's LeetCode rows) runs its program with LeetCode's names found without an import
(``List``, ``deque``, ``heappush``...), as its call-based problems do: their graders put
such imports before every program (``docs/datasets.md``)."""

from __future__ import annotations

import ast
import builtins
import functools

from evaluator.harness.environments import LEETCODE, Environment
from evaluator.problem import Problem, Verdict
from evaluator.sandbox import Isolation, Job, Limits, Mode, RunResult

from . import pytest_file
from .conventions import CHECK_FUNCTION, LEETCODE_NAMES, NO_NAMES, SOLUTION_CLASS
from .outcome import failure


def program(problem: Problem, completion: str, continues_prompt: bool) -> str:
    """The candidate's program, HumanEval's way: ``prompt + completion``. A whole-program
    sample (EvalPlus ``solution``) is used as it is. The tests are added by :func:`build_job`."""
    return problem.prompt + completion if continues_prompt else completion


def build_job(
    problem: Problem, code: str, limits: Limits, isolation: Isolation, environment: Environment
) -> Job:
    if pytest_file.is_pytest_problem(problem):  # a pytest file (KodCode): real pytest
        return pytest_file.build_job(problem, code, limits, isolation, environment)
    job = Job(
        code=code,
        inputs=[""],
        mode=Mode.ASSERTION,
        func_name=problem.entry_point,
        entry_class=SOLUTION_CLASS,
        check_name=CHECK_FUNCTION,
        names=LEETCODE_NAMES if environment.name == LEETCODE.name else NO_NAMES,
        limits=limits,
        isolation=isolation,
        environment=environment.overrides(),
    )
    support = _split_support(problem.prompt, problem.test_code, problem.entry_point or "")
    if support is not None:
        job.tests_code, job.support_code = problem.test_code, support
    else:
        job.code = code + "\n\n" + problem.test_code + "\n"
    return job


@functools.lru_cache(maxsize=4096)
def _split_support(prompt: str, tests: str, entry_point: str) -> str | None:
    """The trusted code the split tests run first (the prompt, when it is code), or None
    when the tests must run joined with the program. Cached: rewards grade one problem often."""
    support = prompt if _compiles(prompt) else ""
    return support if can_split(support, tests, entry_point) else None


def can_split(support: str, tests: str, entry_point: str) -> bool:
    """Whether every name the tests use is bound by the trusted code (support and tests), a
    builtin, or the entry point: then they can run apart from the candidate."""
    try:
        trees = [ast.parse(support), ast.parse(tests)]
    except (SyntaxError, ValueError):
        return False
    bound, used = set(dir(builtins)) | {entry_point, "__name__", "__file__"}, set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.Global | ast.Nonlocal):
                bound.update(node.names)
            elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
                bound.add(node.name)
    return used <= bound


def _compiles(code: str) -> bool:
    try:
        compile(code, "<prompt>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return bool(code.strip())


def judge(run: RunResult) -> tuple[Verdict, str]:
    failed = failure(run)
    if failed is not None:
        return failed
    if not run.checked:
        return Verdict.RE, "the program exited before check() finished"
    return Verdict.AC, ""
