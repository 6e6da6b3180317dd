"""Typed records that cross the sandbox boundary: what to run, under which limits, and what
happened. Plain dataclasses, converted to and from JSON-able dicts for the fork-server pipe."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import signal
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT, DEFAULT_TIME_LIMIT
from evaluator.sandbox.files.run_files import is_plain_name, is_relative_path

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Isolation(StrEnum):
    """``adaptive`` (the default): one child runs a submission's tests one after another as
    long as the interpreter's global state is what it was before the first test; a test
    that changed it (or a child that died) sends the rest to a fresh child
    (:mod:`evaluator.sandbox.inside.state`). ``test``: a fresh child per test (nothing survives
    between tests). ``submission``: one child runs all the tests whatever they change
    (fastest; a program can leave state in imported modules or threads for its later tests).
    At every level the kernel measures each test's CPU time and memory, and a child's report
    counts only in the order its harness sends them (docs/plain-run.md)."""

    ADAPTIVE = "adaptive"
    TEST = "test"
    SUBMISSION = "submission"


class Mode(StrEnum):
    """How the child feeds a test and reads the answer (see :mod:`evaluator.sandbox.inside.harness`)."""

    STDIN = "stdin"  # run as __main__ with the test on fd 0
    CALL = "call"  # call a function with JSON arguments, return strict-JSON
    ASSERTION = "assertion"  # exec program + tests, then the tests' function on the entry point


@dataclass(frozen=True, slots=True)
class Names:
    """Names a Python program finds as globals without importing them, as if it began with
    ``from m import *`` for each module of ``star`` (later ones winning) and ``import m`` for
    each of ``modules``. Plain data: which names, and why, is the caller's convention (the
    sandbox knows none). Builtins are never shadowed and the program's own definitions win."""

    star: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, list[str]]:
        return {"star": list(self.star), "modules": list(self.modules)}


DEFAULT_STACK_MB = 1024  # a fork server's main-thread stack (deep recursion works)
PROGRAM_DATA_FACTOR = 16  # an executed program's RLIMIT_DATA, in memory limits (see Limits)


class LimitHit(StrEnum):
    CPU = "cpu"
    WALL = "wall"
    MEMORY = "memory"
    OUTPUT = "output"


def default_test_wall(time_limit: float) -> float:
    """The wall-clock limit of a test whose caller gave none: ``2 * time_limit + 1`` seconds
    (a program that sleeps or blocks ends; verdicts stay by CPU time)."""
    return 2 * time_limit + 1.0


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-test limits, under the names a problem and the options give them, on every hop
    down to the fork server's check (its wire dict has the same keys): ``time_limit``
    seconds of CPU, ``memory_limit`` MB, ``wall_limit`` seconds of wall clock, a backstop
    against sleeping or blocked programs (verdicts are by CPU time; ``None`` means
    :func:`default_test_wall`). A wall limit leaves out the time the program waited for a CPU
    (a loaded machine never ends a CPU-bound program within its CPU limit), unless
    ``wall_counts_wait``: a deadline a client set (a service's run timeout). What a
    run measured keeps its own names (``RunResult.cpu_time``, ``wall_time``,
    ``peak_memory_kb``)."""

    time_limit: float = DEFAULT_TIME_LIMIT  # seconds of CPU per test
    wall_limit: float | None = None  # seconds
    wall_counts_wait: bool = False  # the wall limit is a deadline: load counts against it
    memory_limit: int = DEFAULT_MEMORY_LIMIT  # MB: RLIMIT_DATA (heap and anonymous maps; not
    # RLIMIT_AS, see docs)
    output_bytes: int = 64 << 20  # stdout and stderr each (RLIMIT_FSIZE on their memfds)
    open_files: int = 64
    # An executed program file (``Job.executable``) is held to ``memory_limit`` of resident
    # memory (its peak RSS, as a judge counts it), its stack may grow as far, and its
    # RLIMIT_DATA is only a backstop on virtual memory: this many MB (None: 16 x memory_limit).
    data_mb: int | None = None

    @property
    def effective_wall_limit(self) -> float:
        """The wall-clock limit the test runs under: ``wall_limit``, else the backstop."""
        return (
            self.wall_limit if self.wall_limit is not None else default_test_wall(self.time_limit)
        )

    @property
    def program_data_mb(self) -> int:
        """An executed program's virtual backstop: room for what it reserves and never
        touches (``reserve``, static arrays, each thread's stack of ``memory_limit``)."""
        if self.data_mb is not None:
            return self.data_mb
        return PROGRAM_DATA_FACTOR * self.memory_limit

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Job:
    """One program and the inputs of its tests. Expected outputs never appear here: a job
    travels into the fork server, and its child gets the code and the inputs (a program can
    read its own memory)."""

    code: str
    inputs: list[str]
    mode: Mode = Mode.STDIN
    func_name: str | None = None  # CALL: the function called; ASSERTION: the entry point
    # CALL and ASSERTION: a class whose method ``func_name`` is called on a fresh instance
    # (made for each call) when the program defines one; else the top-level function
    entry_class: str | None = None
    # ASSERTION: the function the tests define, called with the entry point (a test passes
    # when it returns)
    check_name: str | None = None
    # CALL: the argument (its position) whose value after the call is the test's answer,
    # instead of the return value (an in-place problem); None: the return value
    output_arg: int | None = None
    limits: Limits = field(default_factory=Limits)
    isolation: Isolation = Isolation.ADAPTIVE
    names: Names = Names()  # globals the program finds without an import
    # Interpreter settings the child makes before the program runs: ``recursion_limit``,
    # ``int_max_str_digits``; absent keys keep the plain run's.
    environment: dict[str, int] = field(default_factory=dict)
    # ASSERTION: the problem's tests. Given, they run in a second process over plain data
    # (after ``support_code``, trusted code they may use, such as the prompt's helpers); the
    # candidate cannot fake their report. ``None``: ``code`` already holds the tests.
    tests_code: str | None = None
    support_code: str = ""
    # A program file to execute instead of Python ``code`` (a compiled binary: its bytes),
    # started as ``argv`` on each test's input, a fresh process per test (see
    # :mod:`evaluator.sandbox.template`). ``mode`` must be STDIN; ``code`` is not run.
    executable: bytes | None = None
    argv: list[str] = field(default_factory=lambda: ["./program"])
    # Or an installed runtime to execute (an interpreter or a VM: an absolute path the pool
    # was started with, ``SandboxPool(runtimes=...)``), started as ``argv`` on each test's
    # input, with ``program_files`` (relative paths: a script, class files) staged
    # read-only for the job in the program directory; an ``argv`` item's ``{program}`` is
    # that directory's absolute path (``["node", "{program}/main.js"]``). The sandbox knows
    # no language: the runtime's exec is the child's one exec, as a program file's is.
    runtime: str | None = None
    program_files: dict[str, bytes] = field(default_factory=dict)
    # What the runtime prints on stderr when the program ran out of the memory it was
    # given (a JVM's ``java.lang.OutOfMemoryError``): such a test hit the memory limit.
    memory_marks: list[str] = field(default_factory=list)
    # Variables a program file or runtime gets beside a child's own environment (node's
    # ``NODE_PATH``): the grader's, never a dataset's (the language says them). Names of
    # letters, digits and ``_``; values without NUL.
    program_environment: dict[str, str] = field(default_factory=dict)
    # Files in the program's working directory (its run directory), for STDIN jobs: with
    # ``input_file`` each test's input is that file, written before the program starts, and
    # stdin is empty; with ``output_file`` that file's bytes, read after the program ends, are
    # the run's ``stdout`` (what it wrote on fd 1 is still limited, then dropped) and a file
    # that is missing or not a regular file is ``RunResult.file_error``. Plain names.
    input_file: str | None = None
    output_file: str | None = None
    # More files in the run directory, for STDIN jobs: ``files`` written there before each test (relative paths, their
    # directories made; the program may change them), ``fetch_files`` read back after each
    # test by the same rules as ``output_file`` (regular files, never a link), at most
    # ``fetch_bytes`` in all: :meth:`RunResult.fetched`.
    files: dict[str, bytes] = field(default_factory=dict)
    fetch_files: list[str] = field(default_factory=list)
    fetch_bytes: int = 8 << 20

    def __post_init__(self) -> None:
        for name in (self.input_file, self.output_file):
            if name is not None and not is_plain_name(name):
                raise ValueError(f"a job's input and output files are plain names, not {name!r}")
        staged = [self.input_file, self.output_file, *self.files, *self.fetch_files]
        if any(staged) and self.mode is not Mode.STDIN:
            raise ValueError(f"files in the run directory are for stdin jobs, not {self.mode}")
        if self.mode is Mode.ASSERTION and not self.check_name:
            raise ValueError("an assertion job names the function its tests define (check_name)")
        check_paths(self.files, self.fetch_files, self.input_file)
        self._check_runtime()

    def _check_runtime(self) -> None:
        """A runtime job: an absolute runtime path, its staged files relative paths, a stdin
        job, no program file beside it; a program's environment only for a program."""
        if self.program_environment:
            if self.runtime is None and self.executable is None:
                raise ValueError("a job's program environment is for a program file or runtime")
            for name, value in self.program_environment.items():
                if (
                    not _ENV_NAME.fullmatch(str(name))
                    or not isinstance(value, str)
                    or "\0" in value
                ):
                    raise ValueError(f"not an environment variable: {name!r}={value!r}")
        if self.runtime is None:
            if self.program_files:
                raise ValueError("a job's program files are for a runtime (Job.runtime)")
            return
        if not os.path.isabs(self.runtime):
            raise ValueError(f"a job's runtime is an absolute path, not {self.runtime!r}")
        if self.executable is not None:
            raise ValueError("a job executes a program file or a runtime, not both")
        if self.mode is not Mode.STDIN:
            raise ValueError(f"a runtime runs stdin jobs, not {self.mode}")
        check_paths(self.program_files, [])

    def _wire_files(self) -> dict[str, Any]:
        """The test files' fields of the job's JSON (``files``' bytes as base64)."""
        wire: dict[str, Any] = {"input_file": self.input_file, "output_file": self.output_file}
        if self.files or self.fetch_files:
            wire["files"] = {p: base64.b64encode(d).decode() for p, d in self.files.items()}
            wire["fetch_files"] = list(self.fetch_files)
            wire["fetch_bytes"] = self.fetch_bytes
        return wire

    def to_wire(self) -> dict[str, Any]:
        """The job's JSON for the fork server; an executable travels as a frame of its own
        after it (``executable`` says so here)."""
        self.__post_init__()  # the fields may have been set since
        files = self._wire_files()
        if self.executable is not None or self.runtime is not None:
            return {
                "code": "",
                "inputs": self.inputs,
                "mode": str(Mode.STDIN),
                "limits": {**self.limits.to_dict(), "data_mb": self.limits.program_data_mb},
                "isolation": str(Isolation.TEST),
                "executable": self.executable is not None,
                "runtime": self.runtime,
                "program_files": {
                    p: base64.b64encode(d).decode() for p, d in self.program_files.items()
                },
                "argv": list(self.argv),
                "memory_marks": list(self.memory_marks),
                "program_environment": dict(self.program_environment),
                **files,
            }
        return {
            **files,
            "tests_code": self.tests_code,
            "support_code": self.support_code,
            "code": self.code,
            "inputs": self.inputs,
            "mode": str(self.mode),
            "func_name": self.func_name,
            "entry_class": self.entry_class,
            "check_name": self.check_name,
            "output_arg": self.output_arg,
            "limits": self.limits.to_dict(),
            "isolation": str(self.isolation),
            "names": self.names.to_dict(),
            "environment": self.environment,
        }

    @classmethod
    def from_wire(cls, wire: dict[str, Any], executable: bytes | None = None) -> Job:
        """The job :meth:`to_wire` wrote (and its ``executable`` frame): what a pool that
        lends its servers to other processes reads (:mod:`evaluator.sandbox.shared_pool`).
        ``to_wire`` of the result is ``wire`` again (but ``early_exit``, the channel's own).
        Raises ValueError (KeyError, TypeError) for a dict that is not a job's."""
        limits = Limits(**wire["limits"])
        files = {p: base64.b64decode(d, validate=True) for p, d in wire.get("files", {}).items()}
        common: dict[str, Any] = {
            "inputs": list(wire["inputs"]),
            "limits": limits,
            "input_file": wire.get("input_file"),
            "output_file": wire.get("output_file"),
            "files": files,
            "fetch_files": list(wire.get("fetch_files", [])),
            "fetch_bytes": int(wire.get("fetch_bytes", 8 << 20)),
        }
        if wire.get("executable") or wire.get("runtime") is not None:
            staged = wire.get("program_files", {})
            return cls(
                code="",
                mode=Mode.STDIN,
                isolation=Isolation.TEST,
                executable=executable if wire.get("executable") else None,
                runtime=wire.get("runtime"),
                program_files={p: base64.b64decode(d, validate=True) for p, d in staged.items()},
                argv=list(wire["argv"]),
                memory_marks=list(wire.get("memory_marks", [])),
                program_environment=dict(wire.get("program_environment") or {}),
                **common,
            )
        names = wire.get("names") or {}
        return cls(
            code=wire["code"],
            mode=Mode(wire["mode"]),
            func_name=wire.get("func_name"),
            entry_class=wire.get("entry_class"),
            check_name=wire.get("check_name"),
            output_arg=wire.get("output_arg"),
            isolation=Isolation(wire["isolation"]),
            names=Names(tuple(names.get("star", ())), tuple(names.get("modules", ()))),
            environment=dict(wire.get("environment") or {}),
            tests_code=wire.get("tests_code"),
            support_code=wire.get("support_code", ""),
            **common,
        )


def check_paths(files: dict[str, bytes], fetch: list[str], input_file: str | None = None) -> None:
    """Raise ``ValueError`` naming a path of ``files`` or ``fetch`` that is not a relative
    path below the run directory (:func:`~evaluator.sandbox.files.run_files.is_relative_path`), or a
    given file that another's directory would have to be (``a`` and ``a/b``), or the
    test's input file."""
    for path in (*files, *fetch):
        if not is_relative_path(path):
            raise ValueError(f"a run directory's file is a relative path below it, not {path!r}")
    given = set(files)
    for path in files:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            if "/".join(parts[:depth]) in given:
                raise ValueError(f"{path!r} needs {'/'.join(parts[:depth])!r} as a directory")
    if input_file is not None and (
        input_file in given or any(p.startswith(input_file + "/") for p in given)
    ):
        raise ValueError(f"the test's input file {input_file!r} is also a given file")


@dataclass(slots=True)
class RunResult:
    """What happened to one test. ``status`` is the harness's own report: ``ok`` (program
    finished, or the function returned), ``exit`` (SystemExit), ``exception`` (uncaught
    exception ``exception`` named), ``compile`` (syntax error), ``lost`` (the child died
    without reporting: see ``signal``/``exit_code``), ``error`` (the harness or encoder broke,
    e.g. a return value that is not plain data), ``not_started`` (a program file the sandbox
    could not execute: ``exception`` says why)."""

    status: str
    exit_code: int | None = None
    signal: int | None = None
    limit: LimitHit | None = None
    cpu_time: float = 0.0
    wall_time: float = 0.0
    peak_memory_kb: int = 0
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    exception: str | None = None
    value: str | None = None  # CALL: the return value as strict JSON
    blocked: str | None = None  # the operation the sandbox refused, when known
    checked: bool = False  # ASSERTION: the harness saw check() return
    changed: str | None = None  # adaptive isolation: what this test changed (a fresh child ran on)
    # Job.output_file that could not be read: why, in a sentence naming it ("the program wrote
    # no output.txt"); ``stdout`` is then empty
    file_error: str | None = None

    @property
    def signal_name(self) -> str | None:
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return str(self.signal)

    def fetched(self) -> tuple[dict[str, bytes], dict[str, str]]:
        """A STDIN test's ``Job.fetch_files`` as the server read them back: each file's bytes
        by path, and why each other was not read (``missing``, ``a symbolic link``, ``over
        the limit``...). They travel in ``value``, which a STDIN test has no other use for
        (:meth:`~evaluator.sandbox.run_dir.RunDir.with_file_output`); nothing for a job
        that fetched nothing or a result that is not a report of one (a dead worker)."""
        if not self.value:
            return {}, {}
        try:
            record = json.loads(self.value)
            files = {p: base64.b64decode(d, validate=True) for p, d in record["files"].items()}
            return files, {str(p): str(why) for p, why in record["not_read"].items()}
        except (ValueError, KeyError, TypeError, AttributeError, binascii.Error):
            return {}, {}

    @property
    def clean_exit(self) -> bool:
        """The program ended normally: finished, or exited with status 0, within limits."""
        return self.limit is None and (
            self.status == "ok" or (self.status == "exit" and self.exit_code == 0)
        )


@dataclass(slots=True)
class JobResult:
    """Results of a job's tests, in order; tests not run (early exit) are absent. ``limits``:
    those the tests ran under (the job's), returned with them so that a result records what
    was enforced rather than computing it again."""

    runs: list[RunResult]
    worker_restarts: int = 0  # fork servers that died while running this job
    limits: Limits | None = None
