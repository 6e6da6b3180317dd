"""Call-based programs run as their judge runs them (docs/plain-run.md, "Call-based programs"):
each case in ``call_cases.toml`` runs in the sandbox at every isolation level and as the
judge's reference run (``judge.py``); each test's return value or exception must be the
reference's: the module once per child at ``adaptive`` and ``submission``, a fresh module per
test at ``test``. The recursion and digit limits a program sets are its own, and carry from
test to test as any module state does."""

from __future__ import annotations

import json

import pytest

from evaluator.harness.conventions import LEETCODE_CALL
from evaluator.sandbox import Isolation, Job, Mode
from tests.python.judge import load_call_cases, run_judge

CASES = load_call_cases()


def _outcome(run) -> dict:
    if run.status == "ok":
        return {"status": "ok", "value": json.loads(run.value)}
    if run.status == "exception":
        return {"status": "exception", "exception": run.exception}
    return {"status": run.status, "stderr": run.stderr[-500:]}


def test_the_cases_cover_state_that_carries():
    names = {case.name for case in CASES}
    assert {"class_list_grows", "module_counter", "functools_cache_helper"} <= names
    assert {"numpy_values_returned", "module_recursion_limit", "module_int_digits"} <= names
    assert {"in_place_sort_colors", "in_place_rebinds_the_name"} <= names
    assert all(len(case.inputs) >= 2 for case in CASES)


@pytest.mark.parametrize("isolation", list(Isolation))
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_sandbox_matches_the_judges_run(pool, tmp_path, case, isolation):
    once = isolation is not Isolation.TEST
    reference = run_judge(case, module_once=once, tmp_dir=str(tmp_path))
    assert len(reference) == len(case.inputs), reference
    job = Job(case.source, case.inputs, mode=Mode.CALL, func_name=case.func_name, **LEETCODE_CALL)
    job.output_arg = case.output_arg
    job.isolation = isolation
    got = [_outcome(run) for run in pool.run(job).runs]
    assert got == reference


LENIENT = ["class_list_grows", "class_memo_keyed_wrongly", "mutable_default_argument"]


@pytest.mark.parametrize("name", LENIENT)
def test_test_isolation_is_more_lenient_than_the_judge(pool, tmp_path, name):
    """``--isolation test`` executes the module for each test (docs/plain-run.md, the
    deviation ``test-isolation-fresh-module``): a program whose state carries wrongly from
    test to test, which LeetCode fails, gets the answers of a fresh module per test there."""
    case = next(case for case in CASES if case.name == name)
    judge = run_judge(case, module_once=True, tmp_dir=str(tmp_path))
    fresh = run_judge(case, module_once=False, tmp_dir=str(tmp_path))
    assert judge != fresh
    job = Job(case.source, case.inputs, mode=Mode.CALL, func_name=case.func_name, **LEETCODE_CALL)
    job.output_arg = case.output_arg
    job.isolation = Isolation.TEST
    assert [_outcome(run) for run in pool.run(job).runs] == fresh
