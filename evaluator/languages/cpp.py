"""C++, built with g++ and run as a contest judge runs it.

Build: ``g++ -std=c++17 -O2 -o solution solution.cpp`` (the flags are :attr:`Cpp.default_flags`;
a problem's ``metadata["cpp_flags"]``, shapes :data:`~evaluator.languages.flag_rules.GXX`
allows, or the grading options replace them), confined and limited
(:mod:`evaluator.sandbox.launcher`), plus one small translation unit of ours that
gives threads other than the main one an 8 MiB stack (:data:`THREADS_CODE`). Run:
``./solution < input > output``, the binary executed in the sandbox (``docs/plain-run.md``,
"C++").

The program file is read through the build directory's descriptor, never following a link,
at most the build's ``output_bytes`` (:func:`~evaluator.languages.base.read_program`).

Prepared once per trusted flag set (the defaults, :data:`ONLINE_JUDGE_FLAGS`, the operator's;
never a problem's own: :mod:`evaluator.languages.builds`): a precompiled ``bits/stdc++.h``
(``bits/stdc++.h.gch`` in an include directory put first), which g++ uses for a program
whose first include is ``<bits/stdc++.h>`` (most contest programs) and ignores otherwise
(another first include, a macro defined before it). It changes no output of the compiler: g++ loads the header's parsed
state instead of parsing it again (``tests/cpp/test_grading.py`` compares the binaries;
``benchmarks/cpp_compile.py`` measures the time).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT
from evaluator.sandbox.launcher import START_FAILED, START_FAILED_MARK

from .base import Build, Language, Tool, read_program
from .diagnostics import CPU_LIMIT_MESSAGE, compile_failure
from .flag_rules import GXX

__all__ = ["LANGUAGE", "ONLINE_JUDGE_FLAGS", "Cpp"]

DEFAULT_FLAGS = ("-std=c++17", "-O2")
ONLINE_JUDGE_FLAGS = (*DEFAULT_FLAGS, "-DONLINE_JUDGE")
"""A contest judge's build, Codeforces' as open-r1 runs it (piston's ``codeforces`` package,
``c++17``): the defaults with ``ONLINE_JUDGE`` defined, which contest programs test before
reading ``input.txt``. ``formats/codeforces.py`` writes it into each of its problems: a flag
set of the grader's own (:attr:`Cpp.known_flags`)."""
SOURCE = "solution.cpp"
BINARY = "solution"
THREAD_STACK = 8 << 20  # bytes: what glibc gives a thread under a shell's 8 MiB `ulimit -s`
# Linked into every program (a translation unit of its own, so no macro of the program's,
# `#define int long long` say, reaches it). The run's RLIMIT_STACK is the memory limit, for
# the main thread's deep recursion, and glibc makes that every thread's default stack size;
# each such stack is address space that RLIMIT_DATA's backstop (16 x the memory limit)
# counts, so the 16th thread could not be created. A judge's threads get a normal stack:
# this sets glibc's default for new threads before any of the program's own initialisers
# run (priority 101 is the first an application may use); the main thread keeps its stack,
# and a thread given its own size (pthread_attr_setstacksize) keeps that.
THREADS_SOURCE = "judge_threads.cpp"
THREADS_CODE = f"""#include <pthread.h>
__attribute__((constructor(101))) static void judge_thread_stack() {{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return;
    if (pthread_attr_setstacksize(&attr, {THREAD_STACK}) == 0) pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
}}
"""


class Cpp(Language):
    name = "cpp"
    title = "C++ (g++)"
    extensions = (".cpp", ".cc", ".cxx")
    fence_tags = ("cpp", "c++", "cxx")
    compiled = True
    default_flags = DEFAULT_FLAGS
    known_flags = (ONLINE_JUDGE_FLAGS,)
    flag_rule = GXX

    @functools.cached_property
    def compiler(self) -> str:
        """g++'s absolute path (the build's PATH is the system's, never the caller's)."""
        found = shutil.which("g++", path="/usr/local/bin:/usr/bin:/bin")
        if found is None:
            raise OSError("g++ is not installed (Debian: apt-get install g++)")
        return found

    @functools.cached_property
    def _version(self) -> str:
        done = subprocess.run(
            [self.compiler, "--version"], capture_output=True, text=True, timeout=30, check=True
        )
        return done.stdout.splitlines()[0].strip()

    def version(self) -> str:
        """``g++ --version``'s first line, e.g. ``g++ (Debian 12.2.0-14) 12.2.0``."""
        return self._version

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        text = source.encode("utf-8", "surrogateescape")  # the builder: a CE when it fails
        with open(os.path.join(work, SOURCE), "wb") as file:
            file.write(text)
        with open(os.path.join(work, THREADS_SOURCE), "w") as file:
            file.write(THREADS_CODE)
        run = tool([self.compiler, *flags, "-o", BINARY, SOURCE, THREADS_SOURCE], work)
        output = run.output.decode("utf-8", "replace")
        if run.status == START_FAILED and output.startswith(START_FAILED_MARK):
            raise OSError(output.strip())  # the grader's set-up: not the program's fault
        if run.status == 0 and run.limit is None:
            binary, why = read_program(work, BINARY, tool.limits.output_bytes)
            if binary is not None:
                return Build(binary, output=output, seconds=run.seconds)
            return Build(None, f"the build left no program: {BINARY!r} is {why}", output)
        message = compile_failure(run, output, tool, SOURCE)
        timed_out = run.limit == "wall" or message == CPU_LIMIT_MESSAGE
        return Build(None, message, output, run.seconds, timed_out)

    def prepare(self, flags: tuple[str, ...], directory: str, tool: Tool) -> tuple[str, ...]:
        """Precompile ``bits/stdc++.h`` with ``flags`` (into ``directory/include/bits``);
        the flags that make g++ look there first. Nothing when it does not build."""
        include = os.path.join(directory, "include")
        os.makedirs(os.path.join(include, "bits"), exist_ok=True)
        with open(os.path.join(directory, "stdcxx.hpp"), "w") as file:
            file.write("#include <bits/stdc++.h>\n")
        header = os.path.join("include", "bits", "stdc++.h.gch")
        argv = [self.compiler, *flags, "-x", "c++-header", "stdcxx.hpp", "-o", header]
        run = tool(argv, directory)
        if run.status != 0 or run.limit is not None:
            return ()
        return ("-I", include)

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["./" + BINARY]


LANGUAGE = Cpp()
