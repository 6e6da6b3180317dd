"""Call-based tests for compiled languages (C++, Java): a LeetCode-style function graded on
LiveCodeBench's functional tests, whose ``input`` holds one JSON value per argument.

The program is the code joined with a driver of ours (``drivers/call.cpp``,
``drivers/CallMain.java``), built once as any program of its language, and run once per
test with the test's input on stdin: the driver reads the arguments, converts each to its
parameter's declared type (C++: deduced from the method's signature; Java: by reflection),
calls the method on a fresh object of LeetCode's class (a free function of that name in
C++ when the code has no such class), and writes the JSON of the return value (of argument
``output_arg`` after the call, for an in-place problem) to stdout. The program's own prints
go to stderr, as LeetCode keeps them apart from the answer. The answer is judged as a
Python call's return value is (:func:`~evaluator.judges.returned.judge_return`).

Before the code, each language's names as LeetCode's environment gives them: C++ every
standard header and ``using namespace std``; Java the ``java.util`` family's imports (on the
code's first line: a compiler's message names the code's own line numbers). A
Java class the code declares ``public`` is made package-private, so the driver's
``public class Main`` names the file (LeetCode's own templates declare ``class Solution``).

Where this differs from LeetCode's judge, which runs all tests in one process: each test
is its own process here, so a global or static variable starts afresh on every test
(``docs/plain-run.md``, "compiled-call-process")."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from evaluator.problem import Problem

from .conventions import SOLUTION_CLASS

__all__ = ["CPP_PRELUDE", "JAVA_PRELUDE", "driven_languages", "program"]

DRIVERS = Path(__file__).resolve().parent / "drivers"
# Each prelude leaves the code's line numbers as they are in its compiler's messages.
CPP_PRELUDE = "#include <bits/stdc++.h>\nusing namespace std;\n#line 1\n"
JAVA_PRELUDE = (
    "import java.util.*; import java.util.function.*; import java.util.stream.*; "
    "import java.math.*; "
)
_DRIVER_FILES = {"cpp": "call.cpp", "java": "CallMain.java"}
_CLASS_DECLARED = re.compile(rf"\b(?:class|struct)\s+{SOLUTION_CLASS}\b")
_JAVA_PUBLIC_CLASS = re.compile(r"\bpublic(\s+(?:(?:final|abstract|strictfp)\s+)*class\s)")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def driven_languages() -> tuple[str, ...]:
    """The languages whose programs take call-based tests (by :attr:`Language.name`)."""
    return tuple(_DRIVER_FILES)


@functools.cache
def _driver(language: str) -> str:
    return (DRIVERS / _DRIVER_FILES[language]).read_text(encoding="utf-8")


def program(problem: Problem, code: str, language: str) -> str:
    """The source that is built for ``code`` on the call-based ``problem`` in ``language``
    (one of :func:`driven_languages`). Raises ``ValueError`` for a function name that is
    not an identifier (a problem's fault: it would be spliced into the source)."""
    name = problem.func_name or ""
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"func_name {name!r} is not a function name")
    output_arg = -1 if problem.output_arg is None else int(problem.output_arg)
    if language == "cpp":
        target = f"&{SOLUTION_CLASS}::{name}" if _CLASS_DECLARED.search(code) else f"&{name}"
        head = (
            f'\n#line 1 "call_driver.cpp"\n'
            f"#define MC_CALL_TARGET {target}\n#define MC_OUTPUT_ARG {output_arg}\n"
        )
        return CPP_PRELUDE + code + head + _driver("cpp")
    if language == "java":
        driver = (
            _driver("java")
            .replace("@CLASS@", SOLUTION_CLASS)
            .replace("@METHOD@", name)
            .replace("@OUTPUT_ARG@", str(output_arg))
        )
        return JAVA_PRELUDE + _JAVA_PUBLIC_CLASS.sub(r"\1", code) + "\n\n" + driver
    raise ValueError(f"{language} programs take no call-based tests")
