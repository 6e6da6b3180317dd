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
SET_ORDER = "print(list({'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig'}))\n"


def test_every_deviation_is_in_the_table():
    table = DOC.read_text(encoding="utf-8")
    for name in [*DEVIATIONS, "shared-hash-seed"]:
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
