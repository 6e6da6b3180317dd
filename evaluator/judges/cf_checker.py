"""``{"type": "codeforces", "code": SOURCE}``: open-r1/codeforces' checkers, run by their rule.

open-r1/codeforces ships a Python checker (``generated_checker``) with the problems whose
answers are not unique. Its graders (open-r1's ``cf_scoring.py`` and the piston package
``codeforces/1.0.0/run`` it calls) run it as::

    python3 checker.py INPUT_FILE CORRECT_OUTPUT_FILE SOLUTION_OUTPUT_FILE

(the order: the test's input, the expected output, then the contestant's) and count the test
as passed when the checker exits 0 having printed ``1`` or ``100``. This is not testlib's
convention (``checker input output answer``, the exit status decides), so such a checker
cannot be a ``{"type": "program"}`` one: it exits 0 on every answer.

What the checker is given, as piston gives it: the input as the program got it; the expected
output with a carriage return before each line end removed and empty lines dropped; the
program's output with empty lines dropped (a line of only spaces is not empty). The files are
``input.txt``, ``correct_output.txt`` and ``output.txt`` in a fresh temporary directory, the
checker's working directory, where its source is ``checker.py``.

The verdict, by what the checker did:

* exited 0 and printed ``1`` or ``100`` (its stdout stripped of whitespace at both ends):
  **AC**;
* exited 0 and printed anything else (``0``, a partial score such as ``50``, nothing):
  **WA**. A test has no partial credit here, nor in open-r1, whose test passes only on ``1``;
* exited with a non-zero status (an uncaught exception is status 1): **WA**, as open-r1
  scores it (its test passes only when the run's exit code is 0). A generated checker
  typically raises on a malformed answer (``int()`` of a word), which is the contestant's
  wrong answer; a checker broken on every answer shows in ``mcevaluate dataset check``, where
  the references fail, and the message carries the checker's last stderr line;
* killed by a signal (its CPU limit is ``SIGXCPU``), past its wall-clock limit, out of
  memory (its last stderr line a ``MemoryError``), or not started at all: **ERROR**, a judge failure, never the program's fault. (open-r1 counts a
  checker that times out as a failed test; we do not blame the program for a judge's hang.)

The checker is a dataset's code, run as a ``program`` checker is (:mod:`.trusted`): through
the grader's launcher for trusted programs (rlimits, its own PID and IPC namespaces, Landlock,
no network, the default profile's seccomp refusals, an unprivileged user, a wall-clock limit),
with the grader's own interpreter (``sys.executable -I``, so no user site packages or
``PYTHON*`` variables), in a directory holding only its four files. Its source must compile
(checked when the problem's judge is built, so a broken checker is an ERROR before any
program runs).
"""

from __future__ import annotations

import re
import signal
import sys
from concurrent.futures import Future
from dataclasses import dataclass

from evaluator.problem import Verdict
from evaluator.sandbox import Limits, SandboxPool
from evaluator.sandbox.launcher import START_FAILED, START_FAILED_MARK

from .base import cap, show
from .trusted import file_bytes, run_checker

__all__ = ["ACCEPTING_OUTPUTS", "CodeforcesChecker", "correct_output_file", "output_file"]

Outcome = tuple[Verdict, str]

ACCEPTING_OUTPUTS = frozenset({"1", "100"})
"""What an accepting checker prints (its stdout stripped)."""

_LINE_END_CR = re.compile(r"\r(?=\n|\Z)")


def correct_output_file(expected: str) -> bytes:
    """The expected output as piston writes ``correct_output.txt``: a carriage return before
    each line end removed, empty lines dropped, every line ended by a newline."""
    lines = _LINE_END_CR.sub("", expected).split("\n")
    return file_bytes("".join(line + "\n" for line in lines if line))


def output_file(output: bytes) -> bytes:
    """The program's output as piston hands it to the checker: empty lines dropped (an
    unterminated last line kept as it is)."""
    lines = output.split(b"\n")
    tail = lines.pop()  # what follows the last newline: b"" or an unterminated line
    return b"".join(line + b"\n" for line in lines if line) + tail


@dataclass(frozen=True, slots=True)
class CodeforcesChecker:
    """An open-r1/codeforces checker (Python source), trusted, started as every trusted
    program is (:mod:`.trusted`)."""

    code: str
    limits: Limits

    @classmethod
    def build(cls, code: str, limits: Limits) -> CodeforcesChecker:
        """The checker of ``code``; ``ValueError`` when it does not compile (compiling runs
        nothing)."""
        try:
            compile(code, "checker.py", "exec")
        except (SyntaxError, ValueError) as exc:
            raise ValueError(f"codeforces checker does not compile: {exc}") from None
        return cls(code, limits)

    def run(self, test_input: str, output: bytes, expected: str) -> Outcome:
        """Run the checker on one test and return its verdict. Blocks up to the wall-clock
        limit (``2 * time_limit + 1`` seconds unless the limits say otherwise)."""
        files = {
            "checker.py": self.code.encode("utf-8", "surrogatepass"),
            "input.txt": file_bytes(test_input),
            "correct_output.txt": correct_output_file(expected),
            "output.txt": output_file(output),
        }
        argv = [sys.executable, "-I", "checker.py", "input.txt", "correct_output.txt", "output.txt"]
        run = run_checker(argv, files, self.limits)
        return verdict(run.status, run.stdout, run.stderr_tail)

    def submit(
        self, pool: SandboxPool, test_input: str, output: bytes, expected: str
    ) -> Future[Outcome]:
        """Run now, in the calling thread (no pool job: ``pool`` is unused), and return a
        completed future; a failure to run the checker is an ERROR verdict, never raised."""
        outcome: Future[Outcome] = Future()
        try:
            outcome.set_result(self.run(test_input, output, expected))
        except Exception as exc:  # noqa: BLE001 - reported as the judge's failure
            outcome.set_result((Verdict.ERROR, cap(f"checker not run: {exc}")))
        return outcome


def verdict(status: int | None, stdout: str, stderr: str) -> Outcome:
    """The test's verdict from the checker's exit status (None: timed out; negative: killed
    by that signal), its stdout and the end of its stderr (see the module docstring)."""
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    if status == 0:
        printed = stdout.strip()
        if printed in ACCEPTING_OUTPUTS:
            return Verdict.AC, ""
        return Verdict.WA, cap(f"rejected by the checker: it printed {show(printed)}")
    if status is None:
        return Verdict.ERROR, cap(_why("checker timed out", last))
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return Verdict.ERROR, cap(_why(f"checker killed by {name}", last))
    if status == START_FAILED and START_FAILED_MARK in stderr:
        return Verdict.ERROR, cap(_why("checker not started", last))
    if last.startswith("MemoryError"):  # over its own memory limit: the judge's failure
        return Verdict.ERROR, cap(_why(f"checker ran out of memory (status {status})", last))
    return Verdict.WA, cap(_why(f"rejected by the checker: it exited with status {status}", last))


def _why(what: str, detail: str) -> str:
    return f"{what}: {detail}" if detail else what
