"""What the languages built into one native program file share (C++, C, Rust): the
compiler found on the system's PATH, its version line, and the build (the source written,
the compiler run confined by the grader's launcher, the program file read back through the
build directory without following a link). The binary runs as ``./solution < input``,
executed in the sandbox (``docs/languages.md``, "The run").

A subclass names its compiler and source file, and may add units of ours to link in
(:attr:`NativeLanguage.units`: C and C++'s thread-stack constructor) and flags after the
sources (:attr:`NativeLanguage.link_flags`: C's ``-lm``)."""

from __future__ import annotations

import functools
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT
from evaluator.sandbox.launcher import START_FAILED, START_FAILED_MARK

from .base import Build, Language, Tool, find_tool, read_program
from .diagnostics import CPU_LIMIT_MESSAGE, compile_failure

__all__ = ["BINARY", "THREAD_STACK", "THREADS_CODE", "NativeLanguage"]

BINARY = "solution"
THREAD_STACK = 8 << 20  # bytes: what glibc gives a thread under a shell's 8 MiB `ulimit -s`
# Linked into every C and C++ program (a translation unit of its own, so no macro of the
# program's, `#define int long long` say, reaches it). The run's RLIMIT_STACK is the memory
# limit, for the main thread's deep recursion, and glibc makes that every thread's default
# stack size; each such stack is address space that RLIMIT_DATA's backstop (16 x the memory
# limit) counts, so the 16th thread could not be created. A judge's threads get a normal
# stack: this sets glibc's default for new threads before any of the program's own
# initialisers run (priority 101 is the first an application may use); the main thread keeps
# its stack, and a thread given its own size (pthread_attr_setstacksize) keeps that. The same
# text is C and C++.
THREADS_CODE = f"""#include <pthread.h>
__attribute__((constructor(101))) static void judge_thread_stack() {{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    if (pthread_attr_setstacksize(&attr, {THREAD_STACK}) == 0) pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
}}
"""


class NativeLanguage(Language):
    """A language whose build makes one native program file."""

    compiled = True
    compiler_name = ""  # the compiler's name on the system's PATH ("g++")
    source = ""  # the program's file name in the build directory ("solution.cpp")
    units: dict[str, str] = {}  # our own sources linked in, by file name
    link_flags: tuple[str, ...] = ()  # after the sources (libraries)

    @functools.cached_property
    def compiler(self) -> str:
        """The compiler's absolute path (the build's PATH is the system's, never the
        caller's). Raises ``OSError`` naming the package to install when it is missing."""
        return find_tool(self.compiler_name, self.title, self.package, resolve=False)

    def version_command(self) -> list[str]:
        """``--version``: its first line names the compiler (``g++ (Debian 12.2.0-14) 12.2.0``)."""
        return [self.compiler, "--version"]

    def command(self, flags: tuple[str, ...]) -> list[str]:
        """The build's command line: libraries (``-lNAME``, the flags' and
        :attr:`link_flags`) after the sources, where the linker looks for what they need."""
        libraries = [flag for flag in flags if flag.startswith("-l")]
        options = [flag for flag in flags if not flag.startswith("-l")]
        return [self.compiler, *options, "-o", BINARY, self.source, *self.units, *libraries,
                *self.link_flags]  # fmt: skip

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        with open(os.path.join(work, self.source), "wb") as file:
            file.write(text)
        for name, code in self.units.items():
            with open(os.path.join(work, name), "w") as file:
                file.write(code)
        run = tool(self.command(flags), work)
        output = run.output.decode("utf-8", "replace")
        if run.status == START_FAILED and output.startswith(START_FAILED_MARK):
            raise OSError(output.strip())  # the grader's set-up: not the program's fault
        if run.status == 0 and run.limit is None:
            binary, why = read_program(work, BINARY, tool.limits.output_bytes)
            if binary is not None:
                return Build(binary, output=output, seconds=run.seconds)
            return Build(None, f"the build left no program: {BINARY!r} is {why}", output)
        message = compile_failure(run, output, tool, self.source)
        timed_out = run.limit == "wall" or message == CPU_LIMIT_MESSAGE
        return Build(None, message, output, run.seconds, timed_out)

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["./" + BINARY]
