"""C#, built by Mono's ``mcs`` and run by the Mono runtime (Debian's Mono 6.8; Debian has
neither .NET nor Roslyn's ``csc``).

Build: ``mcs -optimize+ -r:System.Numerics.dll -out:main.exe main.cs`` (the compiler is
``mono mcs.exe``), confined and limited as every build. Run: ``mono main.exe < input``, the
runtime executed in the sandbox as the child's one exec (``Job.runtime``), reading the
staged ``main.exe``; an ``OutOfMemoryException`` is the memory limit's.

Mono asks glibc for the main thread's stack bounds at start (``pthread_getattr_np``), which
glibc answers by reading ``/proc/self/maps``; the sandbox refuses ``/proc`` and Mono aborts
on the failure (``mono_threads_platform_get_stack_bounds ... Permission denied``). So Mono,
the compiler's and the program's, runs with one small library of ours preloaded
(:mod:`.main_stack`, ``LD_PRELOAD``): only when glibc's own call fails, for the main
thread, it answers with the stack as the kernel laid it out. It is made once per machine by
the system's C compiler (:mod:`.made_once`); ``docs/plain-run.md`` lists the difference
(``mono-main-stack``)."""

from __future__ import annotations

import functools
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Language, Tool, ToolchainMissing, find_tool, read_program
from .diagnostics import compile_failure
from .flag_rules import FlagRule
from .made_once import fingerprint, made_once, run_trusted
from .main_stack import MAIN_STACK_CODE

__all__ = ["LANGUAGE", "CSharp", "main_stack_shim"]

MONO_LIB = "/usr/lib/mono"
MCS = os.path.join(MONO_LIB, "4.5", "mcs.exe")
SOURCE, PROGRAM = "main.cs", "main.exe"
# mcs's options that only change how the source is compiled: defines, optimisation, the
# language version, warnings, and references to the framework's own assemblies
CSHARP_FLAGS = FlagRule(
    single=(
        r"[-/](?:d|define):[A-Za-z_]\w*(?:;[A-Za-z_]\w*)*",
        r"[-/](?:optimize|o)[+-]?",
        r"[-/]langversion:[\w.]+",
        r"[-/]warn:[0-4]",
        r"[-/]nowarn:\d+(?:,\d+)*",
        r"[-/](?:r|reference):System(?:\.[A-Za-z]+)*\.dll",
        r"[-/](?:unsafe|checked)[+-]?",
    ),
    summary="allowed: -d:NAME, -optimize[+-], -langversion:, -warn:, -nowarn:, "
    "-r:System....dll (the framework's own), -unsafe, -checked",
)


def main_stack_shim() -> str | None:
    """The preloaded library (made once per machine), or None where it cannot be made."""
    return _shim(find_tool("gcc", "the C compiler", "gcc"))


@functools.cache
def _shim(gcc: str) -> str | None:
    name = f"main-stack-{fingerprint([gcc], (MAIN_STACK_CODE,))}.so"

    def compile_shim(work: str, target: str) -> None:
        source = os.path.join(work, "main_stack.c")
        with open(source, "w") as file:
            file.write(MAIN_STACK_CODE)
        run_trusted([gcc, "-O2", "-shared", "-fPIC", "-o", target, source, "-ldl"], "build")

    return made_once("mono", name, compile_shim)


class CSharp(Language):
    name = "csharp"
    title = "C# (Mono)"
    extensions = (".cs",)
    fence_tags = ("csharp", "cs", "c#")
    compiled = True
    default_flags = ("-optimize+", "-r:System.Numerics.dll")
    flag_rule = CSHARP_FLAGS
    runtime_name = "mono"
    package = "mono-runtime"
    memory_marks = ("System.OutOfMemoryException",)

    @functools.cached_property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        """Mono's class libraries and configuration, and the shim it is started with."""
        shim = main_stack_shim()
        return (MONO_LIB, "/etc/mono", *((shim,) if shim else ()))

    @property
    def toolchain_paths(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.runtime_reads  # mcs is a Mono program

    def version_command(self) -> list[str]:
        """``mono --version``'s first line names the runtime the compiler runs on too."""
        return [self.runtime() or "mono", "--version"]

    def run_environment(self) -> dict[str, str]:
        shim = main_stack_shim()
        return {"LD_PRELOAD": shim} if shim else {}

    def _mono_argv(self) -> list[str]:
        """How a tool run starts Mono: through ``env``, which sets the shim (the build's
        launcher gives every tool the same environment)."""
        mono = self.runtime()
        if not os.path.isfile(MCS):
            raise ToolchainMissing(f"mcs is not installed: {self.title} needs {MCS} "
                                   "(Debian: apt-get install mono-mcs)")  # fmt: skip
        env = find_tool("env", "env", "coreutils")
        return [env, *(f"{k}={v}" for k, v in self.run_environment().items()), str(mono)]

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        with open(os.path.join(work, SOURCE), "wb") as file:
            file.write(source.encode("utf-8", "surrogateescape"))
        argv = [*self._mono_argv(), MCS, *flags, f"-out:{PROGRAM}", SOURCE]
        run = tool(argv, work)
        output = run.output.decode("utf-8", "replace")
        if run.status != 0 or run.limit is not None:
            message = compile_failure(run, output, tool, SOURCE)
            return Build(None, message, output, run.seconds)
        program, why = read_program(work, PROGRAM, tool.limits.output_bytes)
        if program is None:
            return Build(None, f"the build left no program: {why}", output)
        return Build(None, output=output, seconds=run.seconds, files={PROGRAM: program})

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["mono", f"{{program}}/{PROGRAM}"]


LANGUAGE = CSharp()
