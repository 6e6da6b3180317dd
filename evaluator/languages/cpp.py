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

import os

from .base import Tool
from .flag_rules import GXX
from .native import BINARY, THREADS_CODE, NativeLanguage

__all__ = ["BINARY", "LANGUAGE", "ONLINE_JUDGE_FLAGS", "THREADS_CODE", "THREADS_SOURCE", "Cpp"]

DEFAULT_FLAGS = ("-std=c++17", "-O2")
ONLINE_JUDGE_FLAGS = (*DEFAULT_FLAGS, "-DONLINE_JUDGE")
"""A contest judge's build, Codeforces' as open-r1 runs it (piston's ``codeforces`` package,
``c++17``): the defaults with ``ONLINE_JUDGE`` defined, which contest programs test before
reading ``input.txt``. ``formats/sources/codeforces.py`` writes it into each of its problems: a flag
set of the grader's own (:attr:`Cpp.known_flags`)."""
SOURCE = "solution.cpp"
THREADS_SOURCE = "judge_threads.cpp"  # native.THREADS_CODE: threads get a judge's 8 MiB stack


class Cpp(NativeLanguage):
    name = "cpp"
    title = "C++ (g++)"
    extensions = (".cpp", ".cc", ".cxx")
    fence_tags = ("cpp", "c++", "cxx")
    default_flags = DEFAULT_FLAGS
    known_flags = (ONLINE_JUDGE_FLAGS,)
    flag_rule = GXX
    compiler_name = "g++"
    package = "g++"
    source = SOURCE
    units = {THREADS_SOURCE: THREADS_CODE}

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


LANGUAGE = Cpp()
