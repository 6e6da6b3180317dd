"""D, built with gdc (GCC's D compiler, Debian's ``gdc``) and run as a contest judge runs it:
``gdc -O2 -o solution solution.d``, then ``./solution < input > output``.

MultiPL-E's evaluator runs ``rdmd -unittest`` (DMD's driver) and SandboxFusion's ``D_ut``
``dmd -unittest``; Debian packages neither DMD nor rdmd, and of its two D compilers (gdc,
ldc) gdc is GCC's, beside the grader's gcc and g++. The program links Phobos, D's standard
library, as a shared library (``libgphobos``) from ``/usr/lib``. Test programs
(``unittest`` blocks): :mod:`.d_unittest`.

One small C unit of ours is linked in (:data:`MAIN_STACK_CODE`): D's garbage collector scans
the main thread's stack up to the bottom that ``pthread_getattr_np`` gives, which glibc finds
for the main thread by reading ``/proc/self/maps``. The sandbox refuses ``/proc``, so the
call fails, D's runtime (which does not check it) takes a null bottom and never scans the
main thread's stack: an array that only a local of ``main`` holds is collected and its memory
reused (measured: ``auto kept = new int[](1000)``, then allocations, read ``kept`` back as
zeros). The unit answers the main thread's query, when glibc's own fails, with the stack
that ends at ``__libc_stack_end`` (where ``main``'s callers' frames begin) and is as large as
``RLIMIT_STACK``: everything a D program's frames hold lies below it. Where glibc's call
succeeds (a plain run) the unit changes nothing."""

from __future__ import annotations

from .native import NativeLanguage

__all__ = ["LANGUAGE", "MAIN_STACK_CODE", "D"]

MAIN_STACK_CODE = """#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

extern void *__libc_stack_end;

/* D's runtime asks this of the main thread at start (its stack's bottom, for the collector).
   Defined in the program, it is the one libgphobos binds to; glibc's does the work. */
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
    static int (*glibc)(pthread_t, pthread_attr_t *);
    if (glibc == 0) glibc = (int (*)(pthread_t, pthread_attr_t *))dlsym(RTLD_NEXT, "pthread_getattr_np");
    int status = glibc(thread, attr);
    if (status == 0 || !pthread_equal(thread, pthread_self()) || getpid() != gettid()) return status;
    struct rlimit stack; /* the main thread's, and /proc/self/maps was refused */
    if (getrlimit(RLIMIT_STACK, &stack) != 0) return status;
    size_t size = stack.rlim_cur == RLIM_INFINITY ? (size_t)8 << 20 : (size_t)stack.rlim_cur;
    pthread_attr_init(attr);
    return pthread_attr_setstack(attr, (char *)__libc_stack_end - size, size);
}
"""


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
