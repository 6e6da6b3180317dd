"""D, built with gdc (GCC's D compiler, Debian's ``gdc``) and run as a contest judge runs it:
``gdc -O2 -o solution solution.d``, then ``./solution < input > output``.

MultiPL-E's evaluator runs ``rdmd -unittest`` (DMD's driver) and SandboxFusion's ``D_ut``
``dmd -unittest``; Debian packages neither DMD nor rdmd, and of its two D compilers (gdc,
ldc) gdc is GCC's, beside the grader's gcc and g++. The program links Phobos, D's standard
library, as a shared library (``libgphobos``) from ``/usr/lib``. Test programs
(``unittest`` blocks): :mod:`.d_unittest`.

One small C unit of ours is linked in (:mod:`.main_stack`): D's garbage collector scans
the main thread's stack up to the bottom that ``pthread_getattr_np`` gives, which glibc finds
for the main thread by reading ``/proc/self/maps``. The sandbox refuses ``/proc``, so the
call fails, D's runtime (which does not check it) takes a null bottom and never scans the
main thread's stack: an array that only a local of ``main`` holds is collected and its memory
reused (measured: ``auto kept = new int[](1000)``, then allocations, read ``kept`` back as
zeros). The unit answers the main thread's query, when glibc's own fails, with the stack as
the kernel laid it out: everything a D program's frames hold lies below its top. Where
glibc's call succeeds (a plain run) the unit changes nothing."""

from __future__ import annotations

from .main_stack import MAIN_STACK_CODE
from .native import NativeLanguage

__all__ = ["LANGUAGE", "MAIN_STACK_CODE", "D"]


class D(NativeLanguage):
    name = "d"
    title = "D (gdc)"
    extensions = (".d",)
    fence_tags = ("d", "dlang")
    default_flags = ("-O2",)
    compiler_name = "gdc"
    package = "gdc"
    source = "solution.d"
    units = {"judge_main_stack.c": MAIN_STACK_CODE}


LANGUAGE = D()
