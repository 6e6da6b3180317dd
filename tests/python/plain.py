"""The reference run: ``python3 solution.py < input > output`` as a contest judge runs it.

Same interpreter as the sandbox, the environment a sandbox child gets, a fresh directory as
the working directory, stdin and stdout redirected to files, default signal dispositions, and
the judge's limits that change behaviour rather than stop it: the sandbox's 1 GiB stack and no
core dumps.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from evaluator.sandbox import Job, Limits, RunResult
from evaluator.sandbox.reference import child_environment

CASES_FILE = Path(__file__).with_name("cases.toml")
DEFAULT_INPUT = b"3\n1 2\n3 4\n5 6\n"
STACK = 1 << 30


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    stdin: bytes
    deviation: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What a judge sees of a run: the bytes on stdout and the exit status (negative: the
    number of the signal that killed it)."""

    stdout: bytes
    status: int


def load_cases() -> list[Case]:
    with CASES_FILE.open("rb") as file:
        table = tomllib.load(file)
    cases = []
    for name, fields in table.items():
        if "input_hex" in fields:
            stdin = bytes.fromhex(fields["input_hex"])
        else:
            stdin = fields.get("input", DEFAULT_INPUT.decode()).encode()
        cases.append(Case(name, fields["source"].lstrip("\n"), stdin, fields.get("deviation")))
    return cases


def _judge_limits() -> None:
    # A judge starts programs with default dispositions; a test run in the background would
    # pass SIGINT ignored, and Python installs no KeyboardInterrupt handler for it then.
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    resource.setrlimit(resource.RLIMIT_STACK, (STACK, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_plain(case: Case, timeout: float = 60.0) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="mcplain-") as where:
        Path(where, "solution.py").write_text(case.source, encoding="utf-8")
        Path(where, "input").write_bytes(case.stdin)
        with (
            open(os.path.join(where, "input"), "rb") as stdin,
            open(os.path.join(where, "output"), "wb") as stdout,
        ):
            done = subprocess.run(
                [sys.executable, "solution.py"],
                stdin=stdin,
                stdout=stdout,
                stderr=subprocess.DEVNULL,
                cwd=where,
                env=child_environment(where),
                preexec_fn=_judge_limits,
                timeout=timeout,
            )
        return Outcome(Path(where, "output").read_bytes(), done.returncode)


def sandbox_job(case: Case, isolation: str, tests: int) -> Job:
    text = case.stdin.decode("utf-8", "surrogateescape")
    return Job(
        code=case.source,
        inputs=[text] * tests,
        limits=Limits(time_limit=20.0),
        isolation=isolation,  # type: ignore[arg-type]
    )


def outcome_of(run: RunResult) -> Outcome:
    status = -run.signal if run.signal is not None else (run.exit_code or 0)
    return Outcome(run.stdout, status)
