"""Adaptive isolation: a batch child goes on while the interpreter's global state is what it
was before the first test, and stops at the test that changed it; the rest run in a fresh
child. Verdicts are those of a child per test."""

from __future__ import annotations

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, Job, Limits

PID = "import os\nprint(input(), os.getpid())\n"

# Programs that change what a later test in the same process would find, and the name the
# child gives the change (a substring of RunResult.changed).
CHANGES = {
    "builtins": ("import builtins\nbuiltins.input = lambda: 'forged'\n", "builtins.input"),
    "builtin added": ("import builtins\nbuiltins.helper = 1\n", "builtins.helper"),
    "sys attribute": ("import sys\nsys.excepthook = print\n", "sys.excepthook"),
    "sys.path": ("import sys\nsys.path.insert(0, '/nowhere')\n", "sys.path"),
    "module global": ("import math\nmath.pi = 3\n", "math.pi"),
    "module global added": ("import json\njson.cache = {}\n", "json.cache"),
    "module removed": ("import sys\ndel sys.modules['json']\n", "sys.modules['json']"),
    "signal handler": (
        "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)\n",
        "signal handlers",
    ),
    "timer": ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 100)\n", "timers"),
    "blocked signal": (
        "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2])\n",
        "blocked signals",
    ),
    "thread": ("import threading\nthreading.Thread(target=lambda: None).start()\n", "threads"),
    "daemon thread": (
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n",
        "threads",
    ),
    "raw thread": (
        "import _thread, time\n_thread.start_new_thread(time.sleep, (60,))\n",
        "threads",
    ),
    "audit hook": ("import sys\nsys.addaudithook(lambda *a: None)\n", "audit hook"),
    "cwd": ("import os\nos.mkdir('d')\nos.chdir('d')\n", "cwd"),
    "umask": ("import os\nos.umask(0o077)\n", "umask"),
    "environment": ("import os\nos.environ['LEAK'] = '1'\n", "os.environ"),
    "open descriptor": (
        "import os\nleaked = os.open('f', os.O_CREAT | os.O_WRONLY)\n",
        "descriptors",
    ),
    "warning filter": ("import warnings\nwarnings.simplefilter('error')\n", "warnings.filters"),
    "trace function": ("import sys\nsys.settrace(lambda *a: None)\n", "trace"),
    "switch interval": ("import sys\nsys.setswitchinterval(0.5)\n", "switch interval"),
    "memory kept": ("import re\nre._cache['kept'] = bytearray(64 << 20)\n", "memory"),
}

# Programs that change nothing a fresh child would not undo: one child runs every test.
UNCHANGED = {
    "plain": "",
    "recursion limit": "import sys\nsys.setrecursionlimit(10**6)\n",
    "digit limit": "import sys\nsys.set_int_max_str_digits(0)\n",
    "gc off": "import gc\ngc.disable()\ngc.set_threshold(1)\n",
    "decimal context": "from decimal import getcontext\ngetcontext().prec = 60\n",
    "random seed": "import random\nrandom.seed(7)\n",
    "new imports": "import numpy, fractions, heapq, bisect, itertools\nfrom collections import deque\n",
    "stdout replaced": "import sys, io\nsys.stdout = io.TextIOWrapper(open(1, 'wb', closefd=False))\n",
    "argv": "import sys\nsys.argv.append('x')\n",
    "exception": "raise ValueError('each test')\n",
    "exit": "import sys\nsys.exit(3)\n",
    "files in the run dir": "open('scratch', 'w').write('x')\n",
    "stack size": "import threading\nthreading.stack_size(1 << 26)\n",
    # run by the test's own exit path, as at interpreter exit: none is left for the next test
    "atexit handler": "import atexit\natexit.register(print, 'at exit')\n",
}


def _job(code: str, tests: int = 3, isolation: Isolation = Isolation.ADAPTIVE) -> Job:
    return Job(code=code, inputs=[f"{i}\n" for i in range(tests)], isolation=isolation)


def _pids(runs) -> list[bytes]:
    return [run.stdout.split()[-1] for run in runs]


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_change_sends_the_next_test_to_a_fresh_child(pool, name):
    change, reason = CHANGES[name]
    runs = pool.run(_job(PID + change)).runs
    assert [run.status for run in runs] == ["ok"] * 3, [run.stderr for run in runs]
    assert all(run.changed and reason in run.changed for run in runs[:2]), [r.changed for r in runs]
    assert len(set(_pids(runs))) == 3
    assert [run.stdout.split()[0] for run in runs] == [b"0", b"1", b"2"]


@pytest.mark.parametrize("name", sorted(UNCHANGED))
def test_no_change_keeps_one_child(pool, name):
    runs = pool.run(_job(PID + UNCHANGED[name])).runs
    assert [run.changed for run in runs] == [None] * 3
    assert len(set(_pids(runs))) == 1, [run.stderr for run in runs]


def test_a_leaked_builtin_never_reaches_the_next_test(pool):
    """The change is seen after the test that made it: the next test runs fresh."""
    code = "import builtins\nprint(getattr(builtins, 'seen', 0))\nbuiltins.seen = 1\n"
    assert [run.stdout for run in pool.run(_job(code)).runs] == [b"0\n"] * 3
    leaky = pool.run(_job(code, isolation=Isolation.SUBMISSION)).runs
    assert [run.stdout for run in leaky] == [b"0\n", b"1\n", b"1\n"]  # what adaptive prevents


def test_thread_out_of_memory_does_not_leak_into_the_next_test(pool):
    """Issue 15's leak of the fast mode: after a test whose worker thread ran out of memory,
    the next test in the same child died at once, charged with the thread's memory."""
    code = (
        "import threading\n"
        "line = input()\n"
        "def hog():\n"
        "    blocks = []\n"
        "    try:\n"
        "        while True:\n"
        "            blocks.append(bytearray(16 << 20))\n"
        "    except MemoryError:\n"
        "        pass\n"
        "if line == 'a':\n"
        "    t = threading.Thread(target=hog)\n"
        "    t.start()\n"
        "    t.join()\n"
        "print(line)\n"
    )
    limits = Limits(time_limit=5.0, memory_limit=256)
    results = {}
    for isolation in (Isolation.TEST, Isolation.ADAPTIVE):
        job = Job(code=code, inputs=["a\n", "b\n", "c\n"], isolation=isolation, limits=limits)
        results[isolation] = pool.run(job).runs
    for isolation, runs in results.items():
        assert [run.status for run in runs] == ["ok"] * 3, (isolation, runs)
        assert [run.stdout for run in runs] == [b"a\n", b"b\n", b"c\n"]
    fresh = results[Isolation.ADAPTIVE][1:]
    assert all(run.peak_memory_kb < 200 << 10 for run in fresh), [r.peak_memory_kb for r in fresh]


# Issue 15's named cases: programs that pass on real judges and failed here.
FASTIO = """import os, sys
from io import BytesIO, IOBase
BUFSIZE = 8192
class FastIO(IOBase):
    newlines = 0
    def __init__(self, file):
        self._fd = file.fileno()
        self.buffer = BytesIO()
        self.writable = "x" in file.mode or "r" not in file.mode
        self.write = self.buffer.write if self.writable else None
    def readline(self):
        while self.newlines == 0:
            b = os.read(self._fd, max(os.fstat(self._fd).st_size, BUFSIZE))
            self.newlines = b.count(b"\\n") + (not b)
            ptr = self.buffer.tell()
            self.buffer.seek(0, 2), self.buffer.write(b), self.buffer.seek(ptr)
        self.newlines -= 1
        return self.buffer.readline()
    def flush(self):
        if self.writable:
            os.write(self._fd, self.buffer.getvalue())
            self.buffer.truncate(0), self.buffer.seek(0)
class IOWrapper(IOBase):
    def __init__(self, file):
        self.buffer = FastIO(file)
        self.flush = self.buffer.flush
        self.writable = self.buffer.writable
        self.write = lambda s: self.buffer.write(s.encode("ascii"))
        self.readline = lambda: self.buffer.readline().decode("ascii")
sys.stdin, sys.stdout = IOWrapper(sys.stdin), IOWrapper(sys.stdout)
input = lambda: sys.stdin.readline().rstrip("\\r\\n")
a, b = map(int, input().split())
print(a + b)
"""
ATEXIT_OUTPUT = """import atexit, io, sys
buffer = io.BytesIO()
sys.stdout = io.TextIOWrapper(buffer, encoding="ascii")
atexit.register(lambda: sys.__stdout__.write(buffer.getvalue().decode()))
a, b = map(int, input().split())
print(a + b)
"""
FLUSH_THEN_OS_EXIT = "import os, sys\na, b = map(int, input().split())\nprint(a + b)\nsys.stdout.flush()\nos._exit(0)\n"


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize(
    "code, verdict",
    [
        (FASTIO, Verdict.AC),
        (ATEXIT_OUTPUT, Verdict.AC),
        (FLUSH_THEN_OS_EXIT, Verdict.AC),
        (FLUSH_THEN_OS_EXIT.replace("sys.stdout.flush()\n", ""), Verdict.WA),  # lost, as plain
    ],
    ids=["fastio", "atexit-output", "flush-os-exit", "os-exit-unflushed"],
)
def test_issue_programs_are_judged_as_a_plain_run(pool, isolation, code, verdict):
    problem = Problem("sum", Harness.STDIN, [TestCase("1 2\n", "3\n"), TestCase("5 6\n", "11\n")])
    grader = Grader(GradeOptions(time_limit=2.0, isolation=isolation), pool=pool)
    result = grader.grade(problem, code)
    assert result.verdict is verdict, result


@pytest.mark.parametrize("isolation", list(Isolation))
def test_memory_error_in_a_thread_is_the_memory_limit(pool, isolation):
    """A thread that runs out of memory: the allocation over RLIMIT_DATA fails (MemoryError)
    and the process goes on, but the program did exceed the limit, as a judge would kill it
    for (found by benchmarks/plain_vs_sandbox.py on o1-mini's abc366_e)."""
    code = (
        "import threading\nprint(1)\n"
        "def hog():\n    a = []\n    while True:\n        a.append([0] * 100000)\n"
        "threading.Thread(target=hog).start()\n"
    )
    problem = Problem("hog", Harness.STDIN, [TestCase("", "1\n")])
    options = GradeOptions(time_limit=10.0, memory_limit=256, isolation=isolation)
    result = Grader(options, pool=pool).grade(problem, code)
    assert result.verdict is Verdict.MLE, result
    caught = "import threading\ndef f():\n    raise ValueError('no')\nt = threading.Thread(target=f)\nt.start()\nt.join()\nprint(1)\n"
    assert Grader(options, pool=pool).grade(problem, caught).verdict is Verdict.AC
