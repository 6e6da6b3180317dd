"""What a language module describes: its names, how a source becomes a program (the build
step) and how that program is started (the run step).

A language is one module of :mod:`evaluator.languages` that defines ``LANGUAGE``, an instance
of a :class:`Language` subclass (DMOJ's executors are the model). The sandbox knows nothing of
languages: an interpreted language the sandbox runs itself (Python) only describes itself;
a compiled one builds a program file, which the sandbox executes as it would any program
file (``Job.executable`` and ``Job.argv``).
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT
from evaluator.sandbox.files.run_files import OVER_LIMIT, read_regular

from .flag_rules import NO_FLAGS, FlagRule

__all__ = [
    "SYSTEM_PATH",
    "Build",
    "BuildLimits",
    "Language",
    "Tool",
    "ToolRun",
    "ToolchainMissing",
    "find_tool",
    "parse_flags",
    "read_program",
    "default_build_wall",
]


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may use. The compiler reads untrusted input, so it runs confined
    (:mod:`evaluator.sandbox.launcher`); a build past any limit is a compile error. Its time
    is judged by CPU (per process); the wall clock is only a backstop
    (:func:`default_build_wall`)."""

    time_limit: float = 10.0  # seconds of CPU, for each process of the build (RLIMIT_CPU)
    # seconds for the whole build (its process group is killed); None: the backstop
    # :func:`default_build_wall` derives from ``time_limit``, far enough that load cannot
    # reach it
    wall_limit: float | None = None
    memory_limit: int = 2048  # MB: RLIMIT_DATA of each process of the build
    output_bytes: int = 256 << 20  # any file it writes (RLIMIT_FSIZE): objects, the binary
    message_bytes: int = 64 << 10  # what is kept of the compiler's diagnostics

    @property
    def effective_wall_limit(self) -> float:
        """The wall-clock limit the build runs under: ``wall_limit`` when given (a caller
        that wants a wall limit, as SandboxFusion's ``compile_timeout`` is), else
        :func:`default_build_wall` of the CPU limit."""
        return (
            self.wall_limit if self.wall_limit is not None else default_build_wall(self.time_limit)
        )


WALL_BACKSTOP_MIN = 60.0  # seconds: a build never stops for wall time before this
WALL_BACKSTOP_FACTOR = 10.0  # times the CPU limit


def default_build_wall(time_limit: float) -> float:
    """The default wall-clock limit of a build allowed ``time_limit`` seconds of CPU.

    The verdict of a build is the CPU it used (``RLIMIT_CPU``), which the machine's load does
    not change; its wall time does (a 4.2 s build took over 20 s on a loaded grader: a CE that
    a quiet machine would not give). The wall limit is only there for a build that waits
    without using CPU (a stuck read), so it sits where no load short of a stalled machine can
    reach it: ten times the CPU limit, and at least a minute."""
    return max(WALL_BACKSTOP_MIN, WALL_BACKSTOP_FACTOR * time_limit)


@dataclass(frozen=True, slots=True)
class ToolRun:
    """How a confined tool run ended: ``status`` (exit status, negative: the signal that
    killed it), ``limit`` (``"wall"``, ``"stopped"``, or None), what it wrote on stdout and stderr (the
    start, ``message_bytes`` at most) and its wall time."""

    status: int
    limit: str | None
    output: bytes
    seconds: float


class Tool(Protocol):
    """Runs ``argv`` (its first item an absolute path) confined, in the build directory
    ``work``, under :attr:`limits` (:class:`evaluator.languages.builds.ConfinedTool`)."""

    limits: BuildLimits

    def __call__(self, argv: list[str], work: str) -> ToolRun: ...


@dataclass(frozen=True, slots=True)
class Build:
    """A program built from source: the program file's bytes (a native language), or the
    files its runtime reads (``files``: a script, class files; ``entry``: what the run
    starts from, such as Java's main class), or why there is none (``message``: one line;
    ``output``: the compiler's diagnostics, capped)."""

    binary: bytes | None
    message: str = ""
    output: str = ""
    seconds: float = 0.0
    timed_out: bool = False  # no program because the build ran past its time limits
    files: dict[str, bytes] | None = None
    entry: str = ""

    @property
    def ok(self) -> bool:
        return self.binary is not None or self.files is not None

    @property
    def size(self) -> int:
        """Bytes the build holds (a builder's cache counts them)."""
        return len(self.binary or b"") + sum(len(data) for data in (self.files or {}).values())


class Language:
    """One language: its names and its steps. Subclasses set the class attributes; a
    compiled language implements :meth:`build` and :meth:`argv` (and may :meth:`prepare`)."""

    name: str = ""  # what samples, options and problems call it ("cpp")
    title: str = ""  # for people ("C++ (g++)")
    extensions: tuple[str, ...] = ()  # file names it answers to (".cpp")
    fence_tags: tuple[str, ...] = ()  # code-fence tags it answers to ("cpp", "c++")
    compiled: bool = False  # whether it has a build step (else the sandbox runs it)
    default_flags: tuple[str, ...] = ()  # the build's documented flags
    # flag sets besides the defaults that the grader's own code writes into problems (a
    # platform's judge build): trusted like the defaults (their prepared work is made)
    known_flags: tuple[tuple[str, ...], ...] = ()
    # the build flags a problem may give (evaluator.languages.flag_rules): a language that
    # declares none takes none from data
    flag_rule: FlagRule = NO_FLAGS
    # what its build may read beyond the system toolchain (launcher.TOOLCHAIN_PATHS): a
    # toolchain installed elsewhere (/opt/..., a rustup home)
    toolchain_paths: tuple[str, ...] = ()
    # A language whose programs run on an installed runtime (an interpreter, a VM) names
    # its executable here ("node"; found on the system's PATH), and the files it reads
    # beyond the system's libraries (node: its OpenSSL configuration; a directory: what is
    # in it, and its listing). The sandbox lets children execute the runtime and read those
    # (``SandboxPool(runtimes=...)``).
    runtime_name: str = ""
    runtime_reads: tuple[str, ...] = ()
    package: str = ""  # the Debian package that installs its toolchain, named when missing
    # No compiler: the "build" only stages the source for the runtime (JavaScript), so a
    # syntax error is the program's runtime error, and nothing reports a compile.
    interpreted: bool = False
    # What the runtime prints when a program runs out of the memory it was given and the
    # runtime ends it (the JVM's OutOfMemoryError): the test hit the memory limit (MLE).
    memory_marks: tuple[str, ...] = ()
    # Its programs cannot build without its prepared work (:meth:`prepare`: Rust tests' crates),
    # where other languages' only makes builds faster: a build waits for it, even where the
    # builder's optional prepared work is off, and fails as it failed (a ToolchainMissing:
    # the program is UNSUPPORTED) rather than build without it.
    needs_prepared: bool = False
    # The open files its runtime needs to start at all, where the limits give fewer (R
    # refuses to start below about 170; a shell gives 1024): its jobs get that many.
    open_files: int = 0

    def version(self) -> str:
        """One line naming the toolchain or interpreter (for results and cache keys): what
        :meth:`version_command` prints, read by :meth:`version_line`, asked once."""
        return self._version

    @functools.cached_property
    def _version(self) -> str:
        # javac 8 and some runtimes print their version on stderr
        done = subprocess.run(self.version_command(), capture_output=True, text=True,
                              timeout=60, check=True)  # fmt: skip
        return self.version_line((done.stdout or done.stderr).strip())

    def version_command(self) -> list[str]:
        """The command that prints the toolchain's version (``[g++, --version]``)."""
        raise NotImplementedError

    def version_line(self, printed: str) -> str:
        """The version from what :meth:`version_command` printed: its first line."""
        return printed.splitlines()[0].strip() if printed else ""

    def flags(self, metadata: Mapping[str, Any], override: Sequence[str] | None) -> tuple[str, ...]:
        """The build's flags: ``override`` (the grading options', the operator's: as given),
        else the problem's (``metadata["<name>_flags"]``, a list or one shell-quoted string,
        checked by :meth:`data_flags`), else the defaults. Raises ``ValueError`` for flags
        that are not text, or a problem's flag that :attr:`flag_rule` does not allow."""
        if override is not None:
            return parse_flags(override, "the grading options' flags")
        key = self.flags_key
        if metadata.get(key) is not None:
            return self.data_flags(metadata[key], f"the problem's {key}")
        return self.default_flags

    @property
    def flags_key(self) -> str:
        """Where a problem's metadata gives this language's build flags (``cpp_flags``)."""
        return f"{self.name}_flags"

    def data_flags(self, value: Any, where: str) -> tuple[str, ...]:
        """Build flags from data (a problem's metadata, a request), ``where`` naming them:
        parsed (:func:`parse_flags`), each one a shape :attr:`flag_rule` allows. Raises
        ``ValueError`` saying why not (:meth:`flags_refusal`)."""
        why = self.flags_refusal(value)
        if why is not None:
            raise ValueError(f"{where}: {why}")
        return parse_flags(value, where)

    def flags_refusal(self, value: Any) -> str | None:
        """Why ``value`` is not build flags this language takes from data (not a list of
        strings or one shell-quoted string, or a flag its :attr:`flag_rule` refuses, named);
        None when it is."""
        try:
            flags = parse_flags(value, "the flags")
        except ValueError as exc:
            return str(exc)
        return self.flag_rule.refusal(flags)

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        """Build ``source`` in the empty directory ``work`` with ``tool`` (which runs the
        compiler confined, under the build limits)."""
        raise NotImplementedError(f"{self.name} has no build step")

    def prepare(self, flags: tuple[str, ...], directory: str, tool: Tool) -> tuple[str, ...]:
        """Work done once per flag set that makes later builds faster without changing
        what they build (C++: the precompiled ``bits/stdc++.h``), or that they need
        (:attr:`needs_prepared`), in ``directory``; the flags that make a build use it
        (none: nothing to prepare)."""
        return ()

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        """How the built program is started (its ``argv``, as a plain run types it; for a
        runtime, ``{program}`` is the directory of the build's files), under a memory limit
        of ``memory_mb`` (a VM's heap flag)."""
        raise NotImplementedError(f"{self.name} has no program file")

    def run_environment(self) -> dict[str, str]:
        """Variables its programs run with beside a child's own (``Job.program_environment``:
        node's ``NODE_PATH`` to the packages a judge's environment ships); none by default."""
        return {}

    def runtime(self) -> str | None:
        """The installed runtime's absolute path (the file its programs' exec reaches), or
        None for a language whose build makes the program file. Raises ``OSError`` naming
        the package to install when it is missing."""
        if not self.runtime_name:
            return None
        return find_tool(self.runtime_name, self.title, self.package)

    def __repr__(self) -> str:
        return f"<language {self.name}>"


# Where a toolchain is looked for: the system's, never the caller's PATH (a build and a run
# must use what the grader's documentation says).
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


class ToolchainMissing(OSError):
    """A language's compiler or runtime is not installed on this machine: its programs are
    ``UNSUPPORTED`` here (nothing ran), the message naming what to install."""


def find_tool(name: str, title: str, package: str = "", resolve: bool = True) -> str:
    """``name``'s file on the system's PATH, links followed with ``resolve``
    (``/usr/bin/java`` is the JDK's; a compiler driver keeps the name it was called by,
    which it prints in its version); raises ``OSError`` naming what to install."""
    found = shutil.which(name, path=SYSTEM_PATH)
    if found is None:
        hint = f" (Debian: apt-get install {package})" if package else ""
        raise ToolchainMissing(f"{name} is not installed: {title} needs it{hint}")
    return os.path.realpath(found) if resolve else found


def parse_flags(value: Any, where: str) -> tuple[str, ...]:
    """Flags from a list of strings or one shell-quoted string."""
    if isinstance(value, str):
        try:
            return tuple(shlex.split(value))
        except ValueError as exc:
            raise ValueError(f"{where} do not parse: {exc}") from None
    if isinstance(value, list | tuple) and all(isinstance(flag, str) for flag in value):
        return tuple(value)
    raise ValueError(f"{where} must be a list of strings or one string, not {value!r}")


def read_program(work: str, name: str, limit: int) -> tuple[bytes | None, str]:
    """The program file ``name`` a build wrote in its directory ``work``, else None and why
    not (``missing``, ``a symbolic link``, ``over the limit of N bytes``...). The build ran
    a compiler on untrusted input as a user that may write ``work``, and the grader reads
    its output as root: so the directory is opened without following a link and the file
    through it (:func:`~evaluator.sandbox.files.run_files.read_regular`): a regular file of one link
    (a symbolic link could name a file of the host, a FIFO block, a hard link have another
    name elsewhere), at most ``limit`` bytes (the build's ``output_bytes``, which no file it
    writes can pass: its ``RLIMIT_FSIZE``)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        directory = os.open(work, flags)
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    try:
        data, why = read_regular(directory, name, limit)
    finally:
        os.close(directory)
    if why is None:
        return data, ""
    if why == OVER_LIMIT:
        return None, f"{why} of {limit} bytes"
    return None, why
