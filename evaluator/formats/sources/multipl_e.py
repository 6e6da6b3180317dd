"""MultiPL-E (nuprl/MultiPL-E's prompt files: ``humaneval-<lang>-reworded.jsonl``,
``mbpp-<lang>-reworded.jsonl``): HumanEval and MBPP translated into 22 languages, read as
they ship::

    {"name": "HumanEval_0_has_close_elements", "language": "rs", "prompt", "tests",
     "stop_tokens", "doctests", "original", "prompt_terminology"}

Each problem is one program, ``prompt + completion + "\\n" + tests`` (their
``evaluation/src/main.py``), built and run once (:mod:`evaluator.harness.test_program`) as
their ``eval_<lang>.py`` runs it, and it passes when it exits 0 within its limits (the
judge ``exit``; their tests end a wrong program with a failure status): ``g++ -std=c++17``
(C++), ``go test`` (``go_test``), ``node`` (JavaScript), ``lua`` (luaunit), ``php``, ``perl``
(Test::Deep; also failing when ``ERROR`` is printed: the judge ``no_error``), ``python3``,
``Rscript`` (R), ``elixir`` (ExUnit), ``ocaml`` (the toplevel), ``runghc`` (Haskell: compiled by ghc ``-O0``),
``ruby`` (test/unit), ``racket`` (rackunit; also failing when anything is written on
stderr, where rackunit reports and racket still exits 0: the judge ``quiet_stderr``),
``scalac`` then ``scala`` (stderr empty too), ``rustc`` with its default edition, 2015 (``rust``, no ``-O``), ``tsc
--target esnext`` (a type error fails) then ``node``, Java compiled and run with
assertions on and javatuples on the class path (``java_assert``), C# built with
``-d:DEBUG`` and run with Mono's trace listener on stderr (``csharp_assert``: failing when
stderr reports a failed ``Debug.Assert`` or an unhandled exception, the judge
``debug_asserts``: mono exits 0 after a failed assert), and D's ``rdmd -unittest``
as gdc builds it (``d_unittest``: ``gdc -funittest``, Debian has no DMD). A sample is the completion
(``completion``, or ``completions`` in their generation files), the continuation of the
prompt; it is not cut at the stop tokens (their generation cuts; their evaluation joins the
text as it is).

A problem in a language not graded here (Julia, Bash, Swift) is read, and its programs are ``UNSUPPORTED`` naming the language.
MultiPL-E's licence forbids using its prompts as training data: tests and benchmarks only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import PROGRAM_PREFIX as PREFIX
from ...problem import PROGRAM_SUFFIX as SUFFIX
from ...problem import Problem
from ..code_tests import joined_program_problem
from ..errors import InputError
from ..fields import expect_list, expect_str, require_field
from ..registry import Format, take_id

__all__ = ["FORMAT", "LANGUAGES"]

# Their "language" field: our language, and the build flags their evaluator uses.
LANGUAGES: dict[str, tuple[str, list[str] | None]] = {
    "cpp": ("cpp", ["-std=c++17"]),
    "cs": ("csharp_assert", None),
    "d": ("d_unittest", None),
    "elixir": ("elixir", None),
    "go_test.go": ("go_test", None),
    "hs": ("haskell", ["-O0"]),
    "java": ("java_assert", None),
    "js": ("javascript", None),
    "lua": ("lua", None),
    "ml": ("ocaml", None),
    "php": ("php", None),
    "pl": ("perl", None),
    "py": ("python", None),
    "r": ("r", None),
    "rb": ("ruby", None),
    "rkt": ("racket", None),
    "rs": ("rust", ["--edition=2015"]),
    "scala": ("scala", None),
    "ts": ("typescript", ["--target", "esnext", "--module", "commonjs", "--skipLibCheck"]),
}
# Languages MultiPL-E has and no module here runs: the name their programs are graded as
# (UNSUPPORTED, naming it).
NOT_GRADED = {"jl": "julia",
              "sh": "bash",
              "swift": "swift"}  # fmt: skip
JUDGES = {
    "csharp_assert": "debug_asserts",  # eval_cs.py: mono exits 0 after a failed Debug.Assert
    "perl": "no_error",  # eval_pl.py: "ERROR" in stdout or stderr fails
    "racket": "quiet_stderr",  # eval_rkt.py: rackunit reports on stderr, racket exits 0
    "scala": "quiet_stderr",  # eval_scala.py: a clean exit with stderr empty
}
TIME_LIMIT = 10.0  # seconds of CPU (their evaluators allow 5 to 15 s of wall time a step)


def _language(record: Mapping[str, Any]) -> tuple[str, list[str] | None]:
    tag = expect_str(require_field(record, "language"), "language", non_empty=True)
    if tag in LANGUAGES:
        return LANGUAGES[tag]
    if tag in NOT_GRADED:
        return NOT_GRADED[tag], None
    known = ", ".join(sorted([*LANGUAGES, *NOT_GRADED]))
    raise InputError(f"expected one of MultiPL-E's languages ({known}), got {tag!r}",
                     field="language")  # fmt: skip


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    name = take_id(record, ("name",), fallback_id)
    language, flags = _language(record)
    prompt = expect_str(require_field(record, "prompt"), "prompt")
    tests = expect_str(require_field(record, "tests"), "tests", non_empty=True)
    stops = expect_list(record.get("stop_tokens") or [], "stop_tokens")
    metadata: dict[str, Any] = {
        "source_format": "multipl_e",
        "language": language,
        PREFIX: prompt,
        SUFFIX: "\n" + tests,
        "stop_tokens": [expect_str(s, f"stop_tokens[{i}]") for i, s in enumerate(stops)],
    }
    if flags is not None:
        metadata[f"{language}_flags"] = flags
    return joined_program_problem(
        name,
        judge=JUDGES.get(language, "exit"),
        prompt=prompt,
        time_limit=TIME_LIMIT,
        metadata=metadata,
    )


FORMAT = Format(
    name="multipl_e",
    title="MultiPL-E",
    shape="'name' with 'language', 'prompt', 'tests' and 'stop_tokens'",
    recognise=lambda record: all(
        key in record for key in ("name", "language", "prompt", "tests", "stop_tokens")
    ),  # fmt: skip
    read=_read,
    fields=("name", "language", "prompt", "tests", "stop_tokens"),
    rank=28,
    id_keys=("name",),
    statement=lambda record: str(record.get("prompt") or ""),
    aliases=("multipl-e", "multiple"),
)
