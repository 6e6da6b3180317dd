"""Running a checker that is not the grader's own code (a problem setter's, a dataset's, a
client's): outside the sandbox profile, through the grader's one launcher for trusted
programs (:mod:`evaluator.sandbox.launcher`: rlimits, Landlock, no network, its own PID and
IPC namespaces so that nothing it starts or makes outlives it, the default profile's seccomp
refusals, an unprivileged user of its own, never uid 0), in a fresh directory holding only
its files, which is all it may write. It may read the system's toolchain, the grader's
Python interpreter and the paths its caller names; nothing else (not the problem's other
tests, not the grader's files). The program checkers (:mod:`.checker`, run from a copy of
the problem's file) and open-r1/codeforces' checkers (:mod:`.cf_checker`) run so."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from evaluator.sandbox import Limits
from evaluator.sandbox.launcher import TrustedLimits, interpreter_paths, launch

__all__ = ["OUTPUT_CAP", "CheckerRun", "file_bytes", "run_checker"]

OUTPUT_CAP = 16 << 20  # bytes a checker may write to any file (RLIMIT_FSIZE)
READ_BYTES = 4096  # bytes of its stdout and stderr read back (each end)


@dataclass(frozen=True, slots=True)
class CheckerRun:
    """How a checker ended: its exit status (negative: the signal that killed it; None: past
    its wall-clock limit), the start of its stdout, the start and the end of its stderr
    (:data:`READ_BYTES` each, decoded as UTF-8 with replacement)."""

    status: int | None
    stdout: str
    stderr: str
    stderr_tail: str


def run_checker(
    argv: Sequence[str],
    files: Mapping[str, bytes],
    limits: Limits,
    readable: Sequence[str] = (),
) -> CheckerRun:
    """Write ``files`` (name to bytes) into a fresh directory and run ``argv`` there (its
    first item an absolute path, or the name of one of ``files``, then made executable),
    under ``limits``' CPU, memory and wall-clock limits, able to read ``readable`` and the
    grader's interpreter besides the toolchain. Raises ``OSError`` when it cannot be started
    at all."""
    with tempfile.TemporaryDirectory(prefix="mc-checker-") as work:
        for name, data in files.items():
            with open(os.path.join(work, name), "wb") as handle:
                handle.write(data)
        if argv[0] in files:
            argv = [os.path.join(work, argv[0]), *argv[1:]]
            os.chmod(argv[0], 0o755)
        trusted = TrustedLimits(
            time_limit=limits.time_limit,
            memory_limit=limits.memory_limit,
            output_bytes=OUTPUT_CAP,
            wall_limit=limits.effective_wall_limit,
        )
        # its stdout and stderr unlinked: it cannot name them, they do not sit among its files
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            run = launch(
                argv, work, trusted, out=out, err=err, readable=(*interpreter_paths(), *readable)
            )
            status = None if run.limit is not None else run.status
            return CheckerRun(status, _head(out), _head(err), _tail(err))


def _head(file: IO[bytes]) -> str:
    file.seek(0)
    return file.read(READ_BYTES).decode("utf-8", "replace")


def _tail(file: IO[bytes]) -> str:
    size = file.seek(0, os.SEEK_END)
    file.seek(max(0, size - READ_BYTES))
    return file.read().decode("utf-8", "replace")


def file_bytes(text: str) -> bytes:
    """``text`` as the bytes of a checker's file: UTF-8, undecodable bytes (surrogate escapes)
    restored; any other lone surrogate (from a ``"\\ud800"`` escape in a problem file) written
    as its three UTF-8-style bytes rather than refused."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
