"""Worker of ``sandbox_overhead.py``'s ``fork-floor`` strategy (run as a script).

A lower bound for any design that forks a Python child per submission: this process holds
what a fork server holds (the same pre-imported modules and the in-sandbox harness), then for
each submission forks a child that runs the tests exactly as a sandbox child does (fresh
``__main__`` globals and fresh stdin/stdout objects per test, input from a memfd) and exits.
Left out on purpose: confinement (seccomp, Landlock, limits, new session), per-test reports,
the watchdog and every exchange with a caller. The child reads back each test's output (as a
sandbox child does) and exits with the number of outputs that were wrong.

Protocol: argv = tests per submission; stdin = one JSON line of submissions
([[input, ...], ...]); writes ``ready`` once set up, waits for a ``go`` line, runs, then
writes one JSON line ``{"failures": n}``.
"""

from __future__ import annotations

import gc
import json
import os
import sys

from evaluator.sandbox import kernel
from evaluator.sandbox.inside import harness
from evaluator.sandbox.template import PRELOAD

PROGRAM = "print(input())"


def main() -> None:
    for name in PRELOAD:
        __import__(name)
    submissions = json.loads(sys.stdin.readline())
    program = compile(PROGRAM, "solution.py", "exec")
    out = os.fdopen(os.dup(1), "w", buffering=1)
    ring = [os.memfd_create("in", os.MFD_CLOEXEC) for _ in submissions[0]]
    capture = os.memfd_create("out", os.MFD_CLOEXEC)
    errors = os.memfd_create("err", os.MFD_CLOEXEC)
    gc.collect()
    gc.freeze()
    out.write("ready\n")
    sys.stdin.readline()  # go
    failures = 0
    for inputs in submissions:
        for fd, text in zip(ring, inputs, strict=True):
            os.ftruncate(fd, 0)
            os.pwrite(fd, text.encode(), 0)
        pid = kernel.fork_lean()
        if pid == 0:  # pragma: no cover - the child
            wrong = 100
            try:
                os.dup2(capture, 1)
                os.dup2(errors, 2)
                wrong = 0
                for fd, text in zip(ring, inputs, strict=True):
                    os.dup2(fd, 0)
                    harness.run_script_test(PROGRAM, program, "continue")
                    got = os.pread(1, os.fstat(1).st_size, 0)
                    os.ftruncate(1, 0)
                    wrong += got != text.encode()
            finally:
                os._exit(wrong)
        _, status, _ = os.wait4(pid, 0)
        failures += os.waitstatus_to_exitcode(status)
    out.write(json.dumps({"failures": failures}) + "\n")


if __name__ == "__main__":
    main()
