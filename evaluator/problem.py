"""The problem model every format is converted into, and the verdict vocabulary.

A :class:`Problem` is what the grader needs and nothing more: how the program is fed
(``harness``), its tests, how output is compared (``judge``), and its limits. Loaders in
:mod:`evaluator.formats` turn LiveCodeBench, HumanEval/MBPP/EvalPlus and our own JSONL records
into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT

__all__ = [
    "PROGRAM_CUT",
    "PROGRAM_IMPORTS",
    "PROGRAM_PREFIX",
    "PROGRAM_SUFFIX",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_TIME_LIMIT",
    "Harness",
    "Problem",
    "TestCase",
    "Verdict",
]


# A problem whose tests are one program joined around the candidate's code (HumanEval-X):
# the keys of its metadata that hold the parts (evaluator.harness.test_program).
PROGRAM_PREFIX, PROGRAM_SUFFIX, PROGRAM_CUT = "program_prefix", "program_suffix", "program_cut"
PROGRAM_IMPORTS = "program_imports"


class Verdict(StrEnum):
    """Outcome of one test or one submission, worst first when combining."""

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    TLE = "TLE"  # CPU time over the limit, or the wall-clock backstop fired
    MLE = "MLE"  # memory over the limit
    RE = "RE"  # runtime error: uncaught exception, non-zero exit, killed by a signal
    OLE = "OLE"  # output over the limit
    CE = "CE"  # compile error: a compiled program could not be built (within its limits)
    # the answer held no code that extraction found (no fence, an empty program): nothing
    # ran; a failure like WA for pass@k, told apart so that a lost program is seen
    NO_CODE = "NO_CODE"
    ERROR = "ERROR"  # the problem, its tests or its judge are broken: not the program's fault
    # the program is in a language not graded here (a source's Rust or JavaScript problems):
    # nothing ran, no judgement; the message names the language
    UNSUPPORTED = "UNSUPPORTED"
    SKIPPED = "SKIPPED"  # not run because early exit was asked for


class Harness(StrEnum):
    """How a test is fed to the program and how its answer is read."""

    STDIN = "stdin"  # program reads stdin, writes stdout (LiveCodeBench "stdin")
    FUNCTIONAL = "functional"  # call ``func_name`` with JSON arguments (LiveCodeBench "functional")
    ASSERTION = "assertion"  # HumanEval/MBPP: run ``test`` then ``check(entry_point)``


@dataclass(frozen=True, slots=True)
class TestCase:
    """One test. For ``stdin`` problems ``input``/``output`` are the raw texts; for
    ``functional`` ones ``input`` is one JSON value per line (one per argument) and ``output``
    the JSON of the expected value. Assertion problems carry their tests in
    :attr:`Problem.test_code` and have a single placeholder test case."""

    __test__ = False  # not a pytest class

    input: str
    output: str


@dataclass(slots=True)
class Problem:
    """A problem ready to grade. ``judge`` is a judge name (``lines``, ``float``...) or a
    special-judge spec dict; ``None`` means the harness's default."""

    id: str
    harness: Harness
    tests: list[TestCase]
    func_name: str | None = None
    judge: str | dict[str, Any] | None = None
    # Why the judge is what it is, where the statement changed the source's rule (the phrase
    # that did: evaluator.formats.statement); and whether the statement says many answers are
    # right while the problem has no checker (its expected output stands for one of them)
    judge_reason: str = ""
    needs_checker: bool = False
    time_limit: float | None = None
    memory_limit: int | None = None
    # assertion harness (HumanEval style)
    prompt: str = ""
    test_code: str = ""
    entry_point: str = ""
    # free-form facts for reports: platform, difficulty, contest_date, title ...
    metadata: dict[str, Any] = field(default_factory=dict)
    # the interpreter environment (evaluator.harness.environments); None: by platform
    environment: str | None = None
    # File I/O (CodeContests' input_file/output_file, Codeforces' input_mode "file"): the
    # program reads its test's input from this file in its working directory instead of
    # stdin / writes its answer to this file instead of stdout, as the judge ran it. None:
    # stdin / stdout.
    input_file: str | None = None
    output_file: str | None = None
    # Functional problems judged by an argument's state after the call (LeetCode's "do not
    # return anything, modify nums in-place"; its metadata's ``output.paramindex``): that
    # argument's position, from 0, whose final value is compared instead of the return value.
    output_arg: int | None = None
