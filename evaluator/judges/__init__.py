"""Output judges: named rules that decide whether a program's output equals the expected one.

Each judge is a function ``check(output, expected, **options) -> Comparison``, one module per
rule, with testlib's standard checkers as the reference semantics:

========== ===========================================================================
``exact``   the texts are identical
``lines``   line by line, trailing whitespace and trailing empty lines ignored
``tokens``  whitespace-separated tokens equal (testlib ``wcmp``; the default for stdin tests)
``float``   tokens, real numbers within ``abs_tol`` OR ``rel_tol`` (testlib ``rcmp6``)
``yesno``   tokens, ``yes``/``no`` case-insensitive, everything else case-sensitive
``words``   tokens equal ignoring ASCII letter case (``yEs`` is ``YES``, ``Alice`` is ``ALICE``)
``unordered_tokens`` the same tokens as many times each, in any order (a permutation)
``unordered_lines`` the same non-blank lines (each as its tokens) as many times each, any order
``lenient`` the MicroCoder paper's fallback chain: ACCEPTS WRONG ANSWERS, never a default
``lcb``     LiveCodeBench's stdio check (strip, lines, exact ``Decimal``), for comparisons
``sandbox_fusion`` SandboxFusion's (lines, any case, floats within 1e-5 relative): ``/submit``
``exit``    any output: a test program's clean exit is its pass (HumanEval-X, MultiPL-E)
``silent``  nothing printed on stdout or stderr (HumanEval-X's JavaScript rule)
``no_error`` a clean exit and no ``ERROR`` printed on stdout or stderr (MultiPL-E's Perl)
``debug_asserts`` no failed ``Debug.Assert`` or unhandled exception reported (MultiPL-E's C#)
``quiet_stderr`` a clean exit and nothing on stderr (MultiPL-E's Racket and Scala)
========== ===========================================================================

A test's verdict from a run: :mod:`.stdout` (a stdin test's output under one of these) and
:mod:`.returned` (a call's return value, decoded and compared with :func:`compare_values`).
Special judges (checkers) for problems with many valid answers are in :mod:`.checker`, one
module per convention that is not its own (:mod:`.cf_checker`: open-r1/codeforces' checkers,
``checker.py input correct_output output`` printing ``1``/``100``). :mod:`.generated` reads
python checkers made elsewhere (one per problem, in a side file), attaches them to their
problems, and validates one against its problem's reference outputs.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from . import (
    case_insensitive,
    debug_asserts,
    exact,
    exit_status,
    floats,
    lcb,
    lenient,
    lines,
    no_error,
    quiet_stderr,
    sandbox_fusion,
    silent,
    tokens,
    unordered_lines,
    unordered_tokens,
    yesno,
)
from .base import Comparison
from .checker import ProgramChecker, PythonChecker, build_checker, is_checker_spec
from .values import compare_values

Judge = Callable[[str, str], Comparison]

JUDGES: dict[str, Callable[..., Comparison]] = {
    "exact": exact.check,
    "lines": lines.check,
    "tokens": tokens.check,
    "float": floats.check,
    "yesno": yesno.check,
    "words": case_insensitive.check,
    "unordered_tokens": unordered_tokens.check,
    "unordered_lines": unordered_lines.check,
    "lenient": lenient.check,
    "lcb": lcb.check,
    "sandbox_fusion": sandbox_fusion.check,
    "exit": exit_status.check,
    "silent": silent.check,
    "no_error": no_error.check,
    "quiet_stderr": quiet_stderr.check,
    "debug_asserts": debug_asserts.check,
}

DEFAULT_JUDGE = "tokens"  # contest judges' default (testlib wcmp, AtCoder, DMOJ)

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGES",
    "Comparison",
    "Judge",
    "ProgramChecker",
    "PythonChecker",
    "build_checker",
    "compare_values",
    "get_judge",
    "is_checker_spec",
]


def get_judge(name: str, **options: Any) -> Judge:
    """The judge called ``name``, as a ``(output, expected) -> Comparison`` function.

    ``options`` are the judge's keyword options, bound with :func:`functools.partial`
    (``get_judge("float", abs_tol=1e-9, rel_tol=1e-9)``). Raises ``ValueError`` for an unknown
    name, an option the judge does not take, or an invalid option value.
    """
    try:
        check = JUDGES[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name such as a dict
        known = ", ".join(sorted(JUDGES))
        raise ValueError(f"unknown judge {name!r}; known judges: {known}")
    if not options:
        return check
    accepted = [
        p.name
        for p in inspect.signature(check).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        takes = f"takes {', '.join(accepted)}" if accepted else "takes no options"
        raise ValueError(f"judge {name!r} {takes}; got {', '.join(unknown)}")
    if check is floats.check:  # fail now, not at the first test
        floats.validate_tolerances(
            options.get("abs_tol", floats.DEFAULT_ABS_TOL),
            options.get("rel_tol", floats.DEFAULT_REL_TOL),
        )
    return functools.partial(check, **options)
