"""A program must find nothing of other submissions in its own address space.

Every child is forked, so it starts as a copy of the process that forked it. The process that
talks to the pool holds every job's code and every test's output (in live objects and in freed
memory it has not reused yet); if children were forked from it, a program could read a sibling
completion's answers with ``ctypes.string_at`` and print them (reward hacking). Children are
forked from a template that never sees job data; these tests scan a child's memory for an
earlier job's code and output, and for the tests of an assertion problem."""

from __future__ import annotations

import ast
import textwrap

import pytest

from evaluator.harness.conventions import LEETCODE_NAMES
from evaluator.sandbox import Isolation, Job, Limits, Mode, SandboxPool

LIMITS = Limits(time_limit=20.0, wall_limit=60.0, memory_limit=1024)

# The earlier submission: its output and a comment in its code are the needles.
EARLIER = "# MCLEAK-src-77\nprint('MCLEAK' + '-out-' + str(6 * 7 * 1000 + 13))\n"
NEEDLES = {"code": "MCLEAK-src-77", "output": "MCLEAK-out-42013"}

REPORT = "print(sorted(found), len(pages), flush=True)\n"


def _found(stdout: bytes) -> list[str]:
    names, pages = stdout.decode().rsplit(" ", 1)
    assert int(pages) > 1000, "the scan reached too little memory to mean anything"
    return ast.literal_eval(names)


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("mode", [Mode.STDIN, Mode.CALL])
def test_no_earlier_code_or_output_in_a_later_child(tmp_path, memory_scan, isolation, mode):
    scan = memory_scan(NEEDLES, REPORT)
    if mode is Mode.CALL:  # the scan runs when the function is called
        scan = "def f(*args):\n" + textwrap.indent(scan, "    ") + "    return 0\n"
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        earlier = pool.run(Job(EARLIER, ["", ""], limits=LIMITS, isolation=isolation))
        assert earlier.runs[0].stdout == b"MCLEAK-out-42013\n"
        job = Job(scan, ["[]"], limits=LIMITS, isolation=isolation, mode=mode)
        if mode is Mode.CALL:
            job.func_name, job.entry_class, job.names = "f", "Solution", LEETCODE_NAMES
        run = pool.run(job).runs[0]
        assert run.clean_exit, run.stderr
        assert _found(run.stdout) == ["control"]  # its own live string: found; nothing else


@pytest.mark.parametrize("isolation", list(Isolation))
def test_candidate_does_not_see_the_assertion_tests(tmp_path, memory_scan, isolation):
    """Split assertion tests: the tests (with the expected values) run in a second child; the
    candidate's memory must hold none of them."""
    tests = "# MCLEAK-tst-55\ndef check(candidate):\n    assert candidate(1) == 'MCLEAK-exp-9'\n"
    needles = {"tests": "MCLEAK-tst-55", "expected": "MCLEAK-exp-9"}
    candidate = memory_scan(needles, REPORT) + "\ndef f(x):\n    return 'wrong'\n"
    job = Job(candidate, [""], mode=Mode.ASSERTION, func_name="f", check_name="check")
    job.isolation, job.tests_code, job.limits = isolation, tests, LIMITS
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        run = pool.run(job).runs[0]
    assert run.status == "exception" and run.exception == "AssertionError"  # the tests ran
    assert _found(run.stdout) == ["control"]


@pytest.mark.parametrize("isolation", [Isolation.TEST, Isolation.ADAPTIVE])
def test_heavy_template_holds_no_earlier_job(tmp_path, memory_scan, isolation):
    """A program that names numpy is forked from the second, heavy template, which the first
    forks on demand (after jobs have run): it must hold nothing of them either."""
    scan = "import numpy\n" + memory_scan(NEEDLES, REPORT)
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        earlier = pool.run(Job(EARLIER, ["", ""], limits=LIMITS, isolation=isolation))
        assert earlier.runs[0].stdout == b"MCLEAK-out-42013\n"
        run = pool.run(Job(scan, [""], limits=LIMITS, isolation=isolation)).runs[0]
        assert run.clean_exit, run.stderr
        assert _found(run.stdout) == ["control"]
