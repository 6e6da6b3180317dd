"""The deviations that a single conformance case cannot show, and the table that documents
them all (``docs/plain-run.md``) against the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.harness.environments import ENVIRONMENTS
from evaluator.sandbox import Isolation, Job
from tests.python.deviations import DEVIATIONS
from tests.python.plain import Case, run_plain

DOC = Path(__file__).resolve().parents[2] / "docs" / "plain-run.md"
# A C-level atexit handler (what a C extension registers), through ctypes: puts of a string
# the C library owns, so it outlives the interpreter's objects.
C_ATEXIT = """\
import ctypes
libc = ctypes.CDLL(None)
libc.strdup.restype = ctypes.c_void_p
libc.__cxa_atexit(libc.puts, ctypes.c_void_p(libc.strdup(b"c-atexit handler")), None)
print("main")
"""
SET_ORDER = "print(list({'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig'}))\n"


def test_every_deviation_is_in_the_table():
    table = DOC.read_text(encoding="utf-8")
    for name in [*DEVIATIONS, "shared-hash-seed", "c-atexit-in-batch"]:
        assert f"`{name}`" in table, name


def test_every_environment_is_in_the_table():
    table = DOC.read_text(encoding="utf-8")
    for name in ENVIRONMENTS:
        assert f"`{name}`" in table, name


@pytest.mark.parametrize("isolation", list(Isolation))
def test_shared_hash_seed(pool, isolation):
    """``shared-hash-seed``: every child of one fork template has its string-hash seed, so a
    program whose output follows set order prints the same in every test on a worker; plain
    runs draw a seed each (twelve runs agreeing by chance: about 1 in 720**11)."""
    job = Job(code=SET_ORDER, inputs=[""] * 12, isolation=isolation)
    sandboxed = {run.stdout for run in pool.run(job).runs}
    assert len(sandboxed) == 1
    case = Case("set-order", SET_ORDER, b"")
    plain = {run_plain(case).stdout for _ in range(12)}
    assert len(plain) > 1


def test_c_atexit_runs_at_exit_as_in_a_plain_run(pool):
    """exit(3) ends every child, so a C handler runs after Python's streams are flushed."""
    plain = run_plain(Case("c-atexit", C_ATEXIT, b""))
    assert plain.stdout == b"main\nc-atexit handler\n"
    job = Job(code=C_ATEXIT, inputs=["", ""], isolation=Isolation.TEST)
    assert [(run.stdout, run.exit_code) for run in pool.run(job).runs] == [(plain.stdout, 0)] * 2


@pytest.mark.parametrize("isolation", [Isolation.ADAPTIVE, Isolation.SUBMISSION])
def test_c_atexit_in_batch(pool, isolation):
    """``c-atexit-in-batch``: a batch child's C handlers run when it ends, after its last test
    (the C library's list of them cannot be read or reset between tests): each test's
    registration adds one."""
    job = Job(code=C_ATEXIT, inputs=["", ""], isolation=isolation)
    outputs = [run.stdout for run in pool.run(job).runs]
    assert outputs == [b"main\n", b"main\n" + b"c-atexit handler\n" * 2]
