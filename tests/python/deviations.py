"""Where the sandbox knowingly differs from a plain run: the table of ``docs/plain-run.md``,
as code. A conformance case that names a deviation is held to its ``holds``: given the plain
run's outcome and the sandbox's, the difference must be exactly the one documented."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tests.python.plain import Outcome


@dataclass(frozen=True)
class Deviation:
    name: str
    summary: str
    holds: Callable[[Outcome, Outcome], bool]  # (plain, sandbox): the documented difference


def _last_line(plain_line: bytes, sandbox_line: bytes) -> Callable[[Outcome, Outcome], bool]:
    def holds(plain: Outcome, sandbox: Outcome) -> bool:
        head, _, last = plain.stdout.rstrip(b"\n").rpartition(b"\n")
        if last != plain_line or plain.status != sandbox.status:
            return False
        return sandbox.stdout == head + b"\n" + sandbox_line + b"\n"

    return holds


def _fixed(stdout: bytes, status: int = 0) -> Callable[[Outcome, Outcome], bool]:
    return lambda plain, sandbox: sandbox == Outcome(stdout, status)


DEVIATIONS = {
    d.name: d
    for d in (
        Deviation(
            "output-limit-signal",
            "SIGXFSZ is at its default (a plain run ignores it): output over the limit kills "
            "the program, reported as OLE, where a plain run's write would fail with EFBIG.",
            _last_line(b"1", b"0"),  # SIG_IGN, SIG_DFL
        ),
        Deviation(
            "harness-descriptors",
            "The harness keeps its descriptors (the report channel; a batch child's test "
            "indices, spare stdio copies, stdin ring and /proc files) at the top of the "
            "open-file range, above the program's own 64: the program's first open() is fd 3 "
            "as in a plain run, but a scan of every descriptor finds them.",
            _fixed(b"open above stdio: True\n"),
        ),
        Deviation(
            "own-modules-hidden",
            "This project's own packages are neither in sys.modules nor importable, even "
            "where the interpreter has them installed (a plain run of it could import them).",
            _fixed(b"[]\nModuleNotFoundError\n"),
        ),
        Deviation(
            "script-not-on-disk",
            "The program's source is not a file in its directory (__file__ names one that "
            "does not exist): tracebacks, inspect and linecache see the source, open(__file__) "
            "raises FileNotFoundError.",
            _fixed(b"FileNotFoundError\n"),
        ),
        Deviation(
            "memfd-streams",
            "fds 0-2 are memfds opened for reading and writing (a shell's < and > open stdin "
            "read-only and stdout write-only, on files with a link): os.read(1) and "
            "os.write(0) succeed, fstat shows no link.",
            _fixed(b"0 True True 0\n1 True True 0\n"),
        ),
        Deviation(
            "preloaded-modules",
            "The standard modules contest programs use (json, re, collections, decimal, "
            "statistics, ...; the pool's preload list; sortedcontainers where installed) are "
            "already in sys.modules: importing "
            "them costs nothing and runs no import-time code.",
            _fixed(b"[True, True, True, True]\n"),
        ),
        Deviation(
            "gc-frozen",
            "The fork template froze its objects (gc.freeze(), so children do not touch its "
            "pages): gc.get_freeze_count() is not 0.",
            _fixed(b"True\n"),
        ),
        Deviation(
            "thread-stack",
            "New threads get 8 MiB of stack by default (a plain run with the judge's 1 GiB "
            "stack limit gives each thread 1 GiB, which the memory limit would count): C-level "
            "recursion thousands deep in a thread needs threading.stack_size(), as contest "
            "programs call it.",
            lambda plain, sandbox: plain.status == 0 and sandbox == Outcome(b"", -11),
        ),
    )
}
