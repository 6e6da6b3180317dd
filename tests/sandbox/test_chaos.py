"""Chaos: fork servers and fork templates killed at random moments cost nothing (issue 16).

A few thousand programs of every verdict are graded twice, undisturbed and while a thread
SIGKILLs a random fork server or fork template (lean or heavy) every 0.15 to 0.4 s.
The pool replaces a dead worker and re-runs the job from the test in flight, so every test
must get the verdict of the undisturbed run; afterwards no process, temp dir or descriptor
of either pool is left."""

from __future__ import annotations

import os
import random
import signal
import tempfile
import threading
import time

import psutil

from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation, SandboxPool

STDIN = [
    "a, b = map(int, input().split())\nprint(a + b)\n",  # AC
    "a, b = map(int, input().split())\nprint(a - b)\n",  # WA
    "a, b = map(int, input().split())\nprint(a + b)\nraise ValueError('late')\n",  # RE
    "import sys\nprint(sum(map(int, sys.stdin.read().split())))\nsys.exit(3)\n",  # RE
    "import os, sys\nprint(sum(map(int, input().split())))\nsys.stdout.flush()\nos._exit(0)\n",
    "import numpy\nprint(int(numpy.array(input().split(), dtype=int).sum()))\n",  # heavy
    "import builtins\nbuiltins.leak = 1\nprint(sum(map(int, input().split())))\n",  # fresh child
]
CALL = [
    "def f(a, b):\n    return a + b\n",  # AC
    "def f(a, b):\n    return [a, b]\n",  # WA
    "def f(a, b):\n    return a / 0\n",  # RE
    "class Solution:\n    def f(self, a: int, b: int) -> int:\n        return b + a\n",  # AC
]


def _items(count: int) -> list[tuple[Problem, str]]:
    items = []
    for index in range(count):
        pairs = [(index % 7, index % 5), (index, 1), (-index, index * 3)]
        if index % 2:
            tests = [TestCase(f"{a} {b}\n", f"{a + b}\n") for a, b in pairs]
            problem = Problem(f"s{index}", Harness.STDIN, tests)
            items.append((problem, STDIN[index % len(STDIN)]))
        else:
            tests = [TestCase(f"{a}\n{b}", str(a + b)) for a, b in pairs]
            problem = Problem(f"c{index}", Harness.FUNCTIONAL, tests, func_name="f")
            items.append((problem, CALL[index % len(CALL)]))
    return items


def _verdicts(results) -> list[tuple[str, ...]]:
    return [tuple(str(test.verdict) for test in result.tests) for result in results]


def _sandbox_processes(pool: SandboxPool) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """The pool's fork servers, and their long-lived children: the fork templates."""
    me = psutil.Process()
    servers = [p for p in me.children() if "evaluator.sandbox.server" in " ".join(_cmd(p))]
    now = time.time()
    templates = []
    for server in servers:
        for child in _children(server):
            try:
                if now - child.create_time() > 1.0:  # sandbox children live milliseconds
                    templates.append(child)
            except psutil.Error:
                pass
    return servers, templates


def _cmd(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children()
    except psutil.Error:
        return []


def _kill_at_random(pool: SandboxPool, stop: threading.Event, killed: list[str]) -> None:
    chance = random.Random(15)
    while not stop.wait(chance.uniform(0.15, 0.4)):
        servers, templates = _sandbox_processes(pool)
        victims = [("server", p) for p in servers] + [("template", p) for p in templates]
        if not victims:
            continue
        kind, victim = chance.choice(victims)
        try:
            victim.send_signal(signal.SIGKILL)
            killed.append(kind)
        except psutil.Error:
            pass


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_killed_servers_and_templates_change_no_verdict():
    items = _items(2000)
    options = GradeOptions(time_limit=5.0, isolation=Isolation.ADAPTIVE)
    with Grader(options, workers=2) as grader:
        calm = _verdicts(grader.grade_many(items))
    assert {v for tests in calm for v in tests} >= {"AC", "WA", "RE"}

    fds_before = _open_fds()
    with tempfile.TemporaryDirectory(prefix="chaos-") as tmp:
        pool = SandboxPool(workers=2, tmp_dir=tmp)
        stop, killed = threading.Event(), []
        killer = threading.Thread(target=_kill_at_random, args=(pool, stop, killed))
        killer.start()
        try:
            stormy = _verdicts(Grader(options, pool=pool).grade_many(items))
        finally:
            stop.set()
            killer.join()
            pool.close()
        assert len(killed) >= 10 and {"server", "template"} <= set(killed), killed
        assert pool.restarts >= len(killed) // 2
        assert stormy == calm
        assert os.listdir(tmp) == []  # every worker's private temp dir was removed
    servers, _ = _sandbox_processes(pool)
    assert servers == []
    assert _open_fds() <= fds_before
