"""A language whose toolchain is not installed here: its programs are ``UNSUPPORTED``
(nothing ran, no judgement), the message naming what to install; never an ERROR or a crash.
The system's PATH is pointed at an empty directory, so nothing is found."""

from __future__ import annotations

import pytest

from evaluator.languages import base
from evaluator.languages.d import D
from evaluator.languages.go import Go
from evaluator.languages.javascript import JavaScript
from evaluator.languages.php import PHP
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import Grader

SUM = Problem("sum", Harness.STDIN, [TestCase("1 2\n", "3\n")])


@pytest.mark.parametrize(
    ("language", "install"),
    [
        (Go(), "apt-get install golang-go"),
        (JavaScript(), "node is not installed"),
        (PHP(), "php is not installed: PHP needs it (Debian: apt-get install php-cli)"),
        (D(), "gdc is not installed: D (gdc) needs it (Debian: apt-get install gdc)"),
    ],
    ids=["compiler", "runtime", "runtime_package", "compiler_package"],
)
def test_a_missing_toolchain_is_unsupported_naming_it(
    monkeypatch, tmp_path, pool, language, install
):
    monkeypatch.setattr(base, "SYSTEM_PATH", str(tmp_path))
    with Grader(pool=pool) as grader:
        result = grader.grade(SUM, "main", language=language)
    assert result.verdict is Verdict.UNSUPPORTED, result.message
    assert result.message.startswith(f"{language.name} programs are not graded on this machine")
    assert install in result.message
