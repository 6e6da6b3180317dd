"""The main thread's stack bounds where glibc cannot find them: one small C unit of ours for
runtimes that ask (D's collector, linked into the program; Mono, preloaded).

``pthread_getattr_np`` on the main thread makes glibc read ``/proc/self/maps`` to find the
stack's mapping; the sandbox refuses ``/proc``, so the call fails. D's runtime does not check
the failure and then never scans the main thread's stack; Mono aborts. The unit defines the
function: glibc's own answers first, and only when it fails, for the main thread, the unit
answers with the stack as the kernel laid it out: ending at the page that holds the
program's name (``AT_EXECFN``, at the top of the initial stack, above the environment and
``main``'s callers' frames) and as large as ``RLIMIT_STACK``. Where glibc's call succeeds (a
plain run) it changes nothing."""

from __future__ import annotations

__all__ = ["MAIN_STACK_CODE"]

MAIN_STACK_CODE = """#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <unistd.h>

/* Asked of the main thread by a runtime at start; glibc reads /proc/self/maps to answer. */
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr) {
    static int (*glibc)(pthread_t, pthread_attr_t *);
    if (glibc == 0) glibc = (int (*)(pthread_t, pthread_attr_t *))dlsym(RTLD_NEXT, "pthread_getattr_np");
    int status = glibc(thread, attr);
    if (status == 0 || !pthread_equal(thread, pthread_self()) || getpid() != gettid()) return status;
    struct rlimit stack; /* the main thread's, and /proc/self/maps was refused */
    const char *name = (const char *)getauxval(AT_EXECFN);
    if (name == 0 || getrlimit(RLIMIT_STACK, &stack) != 0) return status;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t top = ((size_t)(name + strlen(name) + 1) + page - 1) & ~(page - 1);
    size_t size = stack.rlim_cur == RLIM_INFINITY ? (size_t)8 << 20 : (size_t)stack.rlim_cur;
    pthread_attr_init(attr);
    return pthread_attr_setstack(attr, (char *)top - size, size);
}
"""
