"""C, built with gcc and run as a contest judge runs it: ``gcc -std=c11 -O2 -o solution
solution.c -lm`` (HumanEval-X's and the judges' standard, ``-lm`` after the sources, where
the linker needs it), then ``./solution < input > output``. Like C++, one small unit of
ours is linked in that gives threads other than the main one an 8 MiB stack
(:data:`~evaluator.languages.native.THREADS_CODE`; ``docs/plain-run.md``, ``thread-stack``).
A problem's ``c_flags`` take the shapes gcc allows from data (the C++ rule's)."""

from __future__ import annotations

from .flag_rules import GCC
from .native import THREADS_CODE, NativeLanguage

__all__ = ["LANGUAGE", "C"]

DEFAULT_FLAGS = ("-std=c11", "-O2")


class C(NativeLanguage):
    name = "c"
    title = "C (gcc)"
    extensions = (".c",)
    fence_tags = ("c",)
    default_flags = DEFAULT_FLAGS
    flag_rule = GCC
    compiler_name = "gcc"
    package = "gcc"
    source = "solution.c"
    units = {"judge_threads.c": THREADS_CODE}
    link_flags = ("-lm",)


LANGUAGE = C()
