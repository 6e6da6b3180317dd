"""Smoke test of the accuracy benchmarks (``benchmarks/accuracy``): a tiny slice of each script's
conversion and grading, on the real third-party data, must reproduce known verdicts.

Cases were chosen from full runs where our verdict agrees with the reference (both passes and
failures), so a broken converter or harness shows up as a disagreement. The data is the subset
vendored in ``tests/data`` (same file names and formats as the full data the benchmarks read).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import SandboxPool

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "accuracy"
DATA = Path(os.environ["MICROCODER_TEST_DATA"])

# (model, question_id): official verdicts, reproduced by our grader on these.
LEETCODE = [
    ("o1-mini", "2727"),  # pass (2 tests, v0.2.0)
    ("o1-preview", "2727"),  # pass
    ("o1-mini", "3228"),  # pass (49 tests, v0.3.x)
    ("o1-mini", "2730"),  # fail
    ("o1-mini", "3244"),  # fail (50 tests)
]
ATCODER = [
    ("o1-mini", "abc301_a"),  # pass
    ("o1-mini", "abc301_b"),  # pass
    ("o1-mini", "abc302_a"),  # pass
    ("o1-mini", "abc301_f"),  # fail
    ("o1-mini", "abc303_e"),  # fail ('2 2' for '2 2 2': the lenient judge's set rule accepts it)
]
MBPP_MODEL = "meta-llama--Meta-Llama-3-8B-Instruct"
MBPP = ["Mbpp/2", "Mbpp/3", "Mbpp/4", "Mbpp/6", "Mbpp/7"]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"accuracy_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # The benchmarks take their data paths from MICROCODER_SHARED_DATA when imported.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MICROCODER_SHARED_DATA", str(DATA))
        spec.loader.exec_module(module)
    assert module.DATA.startswith(str(DATA)), module.DATA  # never the full data
    return module


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared


def _records(lcb, wanted):
    by_key = {}
    for model in lcb.MODELS:
        for record in lcb.load_records(model):
            by_key[(model, record["question_id"])] = record
    return [(key, by_key[key]) for key in wanted]


def test_lcb_o1_leetcode_and_atcoder_slices(pool):
    lcb = _load("lcb_o1")
    lcd = lcb.load_leetcodedataset()
    items, official = [], []
    for (model, qid), record in _records(lcb, LEETCODE):
        items.append((lcb.leetcode_problem(record, lcd), record["code_list"][0]))
        official.append(((model, qid), record["graded_list"][0]))
    for (model, qid), record in _records(lcb, ATCODER):
        items.append((lcb.atcoder_problem(record, "lines"), record["code_list"][0]))
        official.append(((model, qid), record["graded_list"][0]))
    assert {o for _, o in official} == {True, False}  # both directions are covered
    grader = Grader(GradeOptions(time_limit=6, early_exit=True), pool=pool)
    results = grader.grade_many(items)
    got = {key: result.passed for (key, _), result in zip(official, results, strict=True)}
    assert got == dict(official), [r.message for r in results]


def test_lcb_conversions():
    lcb = _load("lcb_o1")
    assert lcb.convert_input("a = [1,2], K = 3", ["a", "K"]) == "[1, 2]\n3"
    assert lcb.convert_input("k = 3, a = [1,2]", ["a", "K"]) == "[1, 2]\n3"  # order, case
    assert lcb.convert_output("[1, 2]", "List[int]") == "[1, 2]"
    assert lcb.convert_output("abc", "str") == '"abc"'  # bare strings of v0.3.x
    assert lcb.convert_output("True", "bool") == "true"
    with pytest.raises(lcb.BadTest):
        lcb.convert_output("Error: list index out of range", "int")
    content = (
        "Sample Input 1\n\n3\n1 2 3\n\nSample Output 1\n\n6\n\nThe sum is 6.\n\n"
        "Sample Input 2\n\n1\n5\n\nSample Output 2\n\n5\n"
    )
    tests = lcb.atcoder_tests(content)
    assert [(t.input, t.output) for t in tests] == [("3\n1 2 3\n", "6\n"), ("1\n5\n", "5\n")]
    spec = lcb.tolerance("correct if the absolute or relative error is at most 10^{-6}.")
    assert spec == {"type": "float", "abs_tol": 1e-6, "rel_tol": 1e-6}


def test_evalplus_mbpp_slice(pool):
    mbpp = _load("evalplus_mbpp")
    tasks = mbpp.load_tasks()
    path = next(
        p
        for p in sorted((DATA / "evalplus").glob("inferenced_output_mbpp_*"))
        if mbpp.model_name(str(p)) == MBPP_MODEL
    )
    evaluated = json.loads(path.read_text())["eval"]
    expected = mbpp.expected_outputs(pool, tasks, MBPP, 5.0)
    items, reference = [], []
    for task_id in MBPP:
        entry = evaluated[task_id][0]
        problem = mbpp.build_problem(tasks[task_id], expected[task_id])
        assert problem.tests and all(value is not None for _, value in expected[task_id])
        items.append(
            (problem, mbpp.with_oracle(entry["solution"], tasks[task_id]["entry_point"])[0])
        )
        reference.append(entry["base_status"] == "pass")
    grader = Grader(GradeOptions(time_limit=5), pool=pool)
    results = grader.grade_many(items)
    assert [r.passed for r in results] == reference, [r.message for r in results]


def test_set_equal_oracle_wraps_both_sides():
    mbpp = _load("evalplus_mbpp")
    code, func = mbpp.with_oracle(
        "def similar_elements(a, b):\n    return set(a) & set(b)\n", "similar_elements"
    )
    assert func == mbpp.WRAPPER and "sorted(set(result)" in code
    assert mbpp.with_oracle("def f(): pass", "f") == ("def f(): pass", "f")
    assert os.path.basename(mbpp.MBPP_PLUS).startswith("MbppPlus")


def test_threaded_stdin_program_is_waited_for(pool):
    """``threading.Thread(target=main).start()`` (a common contest idiom, 150+ of the O1
    AtCoder programs) must behave as under ``python prog.py``: the interpreter waits for the
    thread before exiting. Found by ``benchmarks/accuracy/lcb_o1.py``."""
    from evaluator.problem import Harness, Problem, TestCase

    code = (
        "import threading, time\n"
        "def main():\n"
        "    time.sleep(0.05)\n"
        "    print(int(input()) * 2)\n"
        "threading.Thread(target=main).start()\n"
    )
    problem = Problem("thread", Harness.STDIN, [TestCase("21\n", "42\n")])
    assert Grader(pool=pool).grade(problem, code).passed


def test_lcb_judge_mode_on_atcoder_samples(pool):
    """The ``lcb`` judge mode of ``lcb_o1.py``: official verdicts reproduced on a pass and a
    fail, and LiveCodeBench's Decimal rule (``1.0`` for ``1``) on a synthetic problem."""
    lcb = _load("lcb_o1")
    items, official = [], []
    for (_, _), record in _records(lcb, ATCODER[:2] + ATCODER[3:4]):
        problem = lcb.atcoder_problem(record, "lcb")
        assert problem.judge == "lcb"
        items.append((problem, record["code_list"][0]))
        official.append(record["graded_list"][0])
    results = Grader(GradeOptions(time_limit=6, early_exit=True), pool=pool).grade_many(items)
    assert [r.passed for r in results] == official, [r.message for r in results]


def test_evalplus_plus_rows():
    mbpp = _load("evalplus_mbpp")
    from evaluator.problem import Harness, Problem, TestCase

    class Result:
        def __init__(self, passed):
            self.passed, self.verdict, self.message = passed, "AC" if passed else "WA", ""

    problems = {
        "T/1": Problem("T/1+", Harness.FUNCTIONAL, [TestCase("1", "1")], func_name="f"),
        "T/2": Problem("T/2+", Harness.FUNCTIONAL, [], func_name="f"),
    }
    samples = [
        ("m", "T/1", "", True, True),  # base and plus pass
        ("m", "T/1", "", True, False),  # plus fails there, passes here: we pass / they fail
        ("m", "T/1", "", False, False),  # base fails here: plus fails whatever the plus tests say
        ("m", "T/2", "", True, True),  # no plus tests: base alone
    ]
    rows = mbpp.plus_rows(samples, [True, True, False, True], [Result(True)] * 4, problems)
    assert [r["ours"] for r in rows] == ["pass", "pass", "fail", "pass"]
    assert [r["agree"] for r in rows] == [True, False, True, True]
    summary = mbpp.plus_summary(rows)
    assert summary["false_accepts"] == 1 and summary["plus_only_false_accepts"] == 1
    assert mbpp.plus_inputs({"plus_input": [[1], [2], [3]]}, 2) == [[1], [2]]


def test_debugbench_slice():
    db = _load("debugbench")
    assert db.classify_oracle("NameError: name 'List' is not defined", "RE").endswith("List")
    assert db.classify_oracle("line 1: expected '1', got '2'", "WA").startswith("test data")
    message = "unserialisable result: return value contains a generator, which is not plain data"
    assert db.classify_oracle(message, "WA").startswith("result is not plain data")
