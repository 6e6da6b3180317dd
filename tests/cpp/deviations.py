"""Where a C++ program's sandboxed run knowingly differs from its plain run: the C++ table of
``docs/plain-run.md``, by name. A conformance case that names one says what each run prints
(``plain_stdout``, ``sandbox_stdout`` in ``cases.toml``); everything else must be equal."""

from __future__ import annotations

DEVIATIONS = {
    "no-processes": "fork, vfork, clone of a process, exec and system() fail in the sandbox "
    "(EPERM; system() says its shell could not start: 127 << 8): the sandbox's point, where "
    "a plain run makes processes.",
    "memfd-streams": "fds 0-2 are memfds opened for reading and writing: write(0) succeeds "
    "where a shell's < opens stdin read-only.",
    "setup-before-exec": "a program's reported peak memory is at least the sandbox child's "
    "before its exec (about 10 MB: wait4's ru_maxrss is a maximum over the process's life, a "
    "maximum, not a sum) and its CPU time includes that child's set-up (about 1.5 ms).",
    "thread-stack": "threads other than the main one get an 8 MiB stack by default (a plain "
    "run under the judge's stack limit gives each the memory limit, which the sandbox's "
    "address-space backstop would count: the 16th could not start): a thread recursing "
    "deeper than 8 MiB needs pthread_attr_setstacksize, as a judge with a shell's stack "
    "would ask.",
    "program-file-path": "/proc/self/exe names the worker's staged copy of the binary, and "
    "/proc is not readable: a program that reads its own file or /proc/self/* finds "
    "neither (argv[0] is ./solution, as in a plain run).",
}
