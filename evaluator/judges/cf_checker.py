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

The checker is the problem setter's code and is trusted as a ``program`` checker is: it runs
outside the sandbox profile with the grader's own interpreter (``sys.executable -I``, so no
user site packages or ``PYTHON*`` variables), rlimits on CPU, data segment and file size, no
core dumps, an environment of ``PATH`` only, and a wall-clock timeout that kills its whole
process group. Its source must compile (checked when the problem's judge is built, so a broken
checker is an ERROR before any program runs).
"""

from __future__ import annotations

import math
import os
import re
import signal
import sys
import tempfile
from concurrent.futures import Future
from dataclasses import dataclass

from evaluator.problem import Verdict
from evaluator.sandbox import Limits, SandboxPool

from .base import cap, show
from .trusted import file_bytes, run_group

__all__ = ["ACCEPTING_OUTPUTS", "CodeforcesChecker", "correct_output_file", "output_file"]

Outcome = tuple[Verdict, str]

ACCEPTING_OUTPUTS = frozenset({"1", "100"})
"""What an accepting checker prints (its stdout stripped)."""

OUTPUT_CAP = 16 << 20  # bytes the checker may write to any file (RLIMIT_FSIZE)
_READ_BYTES = 4096  # bytes of its stdout and stderr read back
_NOT_STARTED = 127
_NOT_STARTED_MARK = "mc-checker: cannot start: "

# ``python -I -c _START cpu_s data_bytes fsize_bytes checker.py input correct output``: set the
# rlimits, then run checker.py as ``__main__`` with its three arguments, in this process (one
# interpreter start per test). A failure before the checker's first line exits 127 with a
# marked message: a judge failure, never a verdict on the program.
_START = f"""
import resource, runpy, sys
try:
    cpu, data, fsize = (int(a) for a in sys.argv[1:4])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_DATA, (data, data))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.argv = sys.argv[4:]
except BaseException as exc:
    import os
    sys.stderr.write({_NOT_STARTED_MARK!r} + repr(exc) + "\\n")
    sys.stderr.flush()
    os._exit({_NOT_STARTED})
runpy.run_path(sys.argv[0], run_name="__main__")
"""

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
    """An open-r1/codeforces checker (Python source), trusted, run with rlimits only."""

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
        with tempfile.TemporaryDirectory(prefix="mc-cf-checker-") as work:
            for name, data in (
                ("checker.py", self.code.encode("utf-8", "surrogatepass")),
                ("input.txt", file_bytes(test_input)),
                ("correct_output.txt", correct_output_file(expected)),
                ("output.txt", output_file(output)),
            ):
                with open(os.path.join(work, name), "wb") as handle:
                    handle.write(data)
            command = [
                sys.executable,
                "-I",
                "-c",
                _START,
                str(math.ceil(self.limits.cpu_time)),
                str(self.limits.memory_mb << 20),
                str(OUTPUT_CAP),
                "checker.py",
                "input.txt",
                "correct_output.txt",
                "output.txt",
            ]
            out_path, err_path = os.path.join(work, ".stdout"), os.path.join(work, ".stderr")
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                status = run_group(command, work, out, err, self.limits.effective_wall_time)
            stdout, stderr = _head(out_path), _tail(err_path)
        return verdict(status, stdout, stderr)

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
    if status == _NOT_STARTED and _NOT_STARTED_MARK in stderr:
        return Verdict.ERROR, cap(_why("checker not started", last))
    if last.startswith("MemoryError"):  # over its own memory limit: the judge's failure
        return Verdict.ERROR, cap(_why(f"checker ran out of memory (status {status})", last))
    return Verdict.WA, cap(_why(f"rejected by the checker: it exited with status {status}", last))


def _why(what: str, detail: str) -> str:
    return f"{what}: {detail}" if detail else what


def _head(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read(_READ_BYTES).decode("utf-8", "replace")


def _tail(path: str) -> str:
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - _READ_BYTES))
        return handle.read().decode("utf-8", "replace")
