"""HumanEval-X (THUDM/CodeGeeX's ``humaneval_<lang>.jsonl.gz``): HumanEval in C++, Java,
JavaScript, Python, Go and Rust, read as it ships::

    {"task_id": "CPP/0", "prompt", "canonical_solution", "test", "declaration", "example_test"}

Each problem is graded as its authors' evaluation joins and runs it
(``codegeex/benchmark/humaneval-x/evaluate_humaneval_x.py``, ``process_humaneval_test``; and
``execution.py``): the program is ``prompt + generation + "\\n" + test`` (C++ with the nine
includes its prompts lack first; Python with the 16 import lines first and the generation cut
at its first unindented line; Go: the record's ``test_setup``, an import block of the
packages the generation uses that it lacks, then the prompt without its own ``import``;
Rust: an empty ``main``, the ``declaration``, then the prompt), built and run once
(:mod:`evaluator.harness.test_program`), and it passes as their rule says: a clean exit
(C++, Java: asserts end it with a failure status; Python: no exception; Go: ``go test``, the
``go_test`` language; Rust: ``cargo test``, the ``rust_test`` language, against the rand,
regex and md5 crates), and for JavaScript nothing printed on stdout or stderr (a failed
``console.assert`` prints and exits 0). A sample is the generation (``generation`` in their
generation files), the continuation of the prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import PROGRAM_CUT as CUT
from ...problem import PROGRAM_IMPORTS as IMPORTS
from ...problem import PROGRAM_PREFIX as PREFIX
from ...problem import PROGRAM_SUFFIX as SUFFIX
from ...problem import Problem
from ..code_tests import joined_program_problem
from ..errors import InputError
from ..fields import expect_str, require_field
from ..registry import Format, Solution, take_id

__all__ = ["FORMAT"]

# task_id's prefix: the language (a name of evaluator.languages)
LANGUAGES = {"CPP": "cpp", "Java": "java", "JavaScript": "javascript", "Python": "python",
             "Go": "go_test", "Rust": "rust_test"}  # fmt: skip
# The packages their Go joiner imports when the generation uses them (IMPORT_HELPER["go"]).
GO_PACKAGES = ["math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort",
               "math/rand", "crypto/md5"]  # fmt: skip
RUST_MAIN = "\nfn main(){ \n } \n"  # their Rust programs' main: the tests are #[cfg(test)]
# The includes process_humaneval_test puts before a C++ prompt that lacks them.
CPP_INCLUDES = ["math.h", "stdio.h", "stdlib.h", "algorithm", "vector", "string", "climits",
                "cstring", "iostream"]  # fmt: skip
# The lines it puts before a Python program (numpy among them: HumanEval-X's environment).
PYTHON_HEADER = """import math
import re
import sys
import copy
import datetime
import itertools
import collections
import heapq
import statistics
import functools
import hashlib
import numpy
import numpy as np
import string
from typing import *
from collections import *
"""
TIME_LIMIT = 10.0  # seconds of CPU: the tests are small (their evaluation allows far more)


def _language(task_id: str) -> str:
    prefix = task_id.split("/", 1)[0]
    if prefix not in LANGUAGES:
        known = ", ".join(f"{p}/" for p in LANGUAGES)
        raise InputError(f"expected a task_id starting {known}, got {task_id!r}", field="task_id")
    return LANGUAGES[prefix]


def _prefix(language: str, record: Mapping[str, Any], prompt: str) -> str:
    if language == "cpp":
        lacking = [name for name in CPP_INCLUDES if f"#include<{name}>" not in prompt]
        return "".join(f"#include<{name}>\n" for name in lacking) + "\n" + prompt
    if language == "python":
        return PYTHON_HEADER + prompt
    if language == "go_test":  # the record's imports go into the head with the code's own
        return prompt.replace(expect_str(require_field(record, "import"), "import"), "")
    if language == "rust_test":
        declaration = expect_str(require_field(record, "declaration"), "declaration")
        return RUST_MAIN + declaration + prompt
    return prompt


def _go_imports(record: Mapping[str, Any]) -> dict[str, Any]:
    """The Go test file's head and the packages the joiner may add after it."""
    setup = expect_str(require_field(record, "test_setup"), "test_setup", non_empty=True)
    return {"head": setup + "\n", "packages": [p for p in GO_PACKAGES if p not in setup]}


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    task_id = take_id(record, ("task_id",), fallback_id)
    language = _language(task_id)
    prompt = expect_str(require_field(record, "prompt"), "prompt")
    test = expect_str(require_field(record, "test"), "test", non_empty=True)
    metadata: dict[str, Any] = {
        "source_format": "humaneval_x",
        "language": language,
        PREFIX: _prefix(language, record, prompt),
        SUFFIX: _suffix(language, test),
    }
    if language == "go_test":
        metadata[IMPORTS] = _go_imports(record)
    if language == "python":
        metadata[CUT] = "top_level"
    if language == "cpp":  # their build: g++ -std=c++11, OpenSSL's libraries for MD5's task
        uses_openssl = "openssl/" in prompt + test
        metadata["cpp_flags"] = ["-std=c++11", *(["-lcrypto", "-lssl"] if uses_openssl else [])]
    if record.get("canonical_solution") is not None:
        metadata["canonical_solution"] = expect_str(
            record["canonical_solution"], "canonical_solution"
        )
    return joined_program_problem(
        task_id,
        judge="silent" if language == "javascript" else "exit",
        prompt=prompt,
        time_limit=TIME_LIMIT,
        metadata=metadata,
    )


def _suffix(language: str, test: str) -> str:
    if language == "rust_test":
        return test
    return "\n" + test + ("\n" if language == "python" else "")


def _canonical(record: Mapping[str, Any]) -> list[Solution]:
    """The canonical solution, as a sample is: the continuation of the prompt."""
    task_id, canonical = str(record.get("task_id") or ""), record.get("canonical_solution")
    language = LANGUAGES.get(task_id.split("/", 1)[0])
    if language and isinstance(canonical, str) and canonical.strip():
        return [Solution(canonical, language)]
    return []


FORMAT = Format(
    name="humaneval_x",
    title="HumanEval-X",
    shape="'task_id' with 'test' and 'declaration'",
    recognise=lambda record: "task_id" in record and "test" in record and "declaration" in record,
    read=_read,
    fields=("task_id", "prompt", "canonical_solution", "test", "declaration"),
    rank=29,  # before HumanEval's 'task_id' with 'test'
    id_keys=("task_id",),
    statement=lambda record: str(record.get("prompt") or ""),
    references=_canonical,
    aliases=("humaneval-x",),
)
