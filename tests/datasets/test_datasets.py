"""Dataset tools on small real data (LeetCodeDataset, DebugBench) and hand-made sets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator.cli.dataset import dataset
from evaluator.datasets.check import calibrated_limit, check_entries, strength
from evaluator.datasets.convert import (
    Skipped,
    debugbench_pairs,
    leetcode_to_lcb,
    parse_call_input,
    python_literal_to_json,
    read_debugbench,
    read_leetcode,
)
from evaluator.datasets.entries import read_entries, write_records
from evaluator.datasets.filter import filter_entries, normalise_statement
from evaluator.formats import Samples, encode_private_tests, problem_from_lcb

DATA = Path(os.environ["MICROCODER_TEST_DATA"])  # vendored subsets
LCD = DATA / "leetcodedataset"


def lcb(qid, tests, func="f", ref=None, **fields):
    cases = [{"input": i, "output": o, "testtype": "functional"} for i, o in tests]
    record = {
        "question_id": qid,
        "question_content": fields.pop("content", f"statement of {qid}"),
        "public_test_cases": json.dumps(cases[:1]),
        "private_test_cases": encode_private_tests(cases[1:]),
        "metadata": json.dumps({"func_name": func}),
        **fields,
    }
    if ref is not None:
        record["reference_solution"] = ref
    return record


def entries_of(tmp_path, records, name="p.jsonl"):
    path = tmp_path / name
    write_records(path, records)
    return read_entries(path)


# --- conversion --------------------------------------------------------------------------------


def test_parse_inputs_and_outputs():
    assert parse_call_input('a = [1,2], s = "x, y = 3", k = -3') == ["[1,2]", '"x, y = 3"', "-3"]
    assert parse_call_input("grid = [[null,true]]") == ["[[null,true]]"]
    assert python_literal_to_json("(1, 2)") == "[1,2]"
    assert python_literal_to_json("None") == "null"
    with pytest.raises(Skipped):
        parse_call_input("nums = [i for i in range(3)]")
    with pytest.raises(Skipped):
        python_literal_to_json("{1, 2}")


def test_str_results_written_unquoted_are_strings():
    record = {
        "task_id": "t",
        "entry_point": "Solution().f",
        "completion": "class Solution:\n    def f(self, s: str) -> str:\n        return s\n",
        "input_output": [{"input": 's = "11"', "output": "11"}],
    }
    problem = problem_from_lcb(leetcode_to_lcb(record))
    assert problem.tests[0].output == '"11"'


def test_str_results_written_quoted_are_not_quoted_twice():
    """Older LeetCodeDataset files quote str results (found by the DebugBench accuracy run)."""
    record = {
        "task_id": "t",
        "entry_point": "Solution().f",
        "completion": "class Solution:\n    def f(self, n: int) -> str:\n        return 'A'\n",
        "input_output": [{"input": "n = 1", "output": '"A"'}, {"input": "n = 2", "output": "'B'"}],
    }
    problem = problem_from_lcb(leetcode_to_lcb(record))
    assert [t.output for t in problem.tests] == ['"A"', '"B"']


def test_tree_problems_are_skipped():
    record = {
        "task_id": "t",
        "entry_point": "Solution().f",
        "completion": "class Solution:\n    def f(self, root: Optional[TreeNode]) -> int:\n",
        "input_output": [{"input": "root = [1]", "output": "1"}],
    }
    with pytest.raises(Skipped, match="TreeNode"):
        leetcode_to_lcb(record)


def test_converted_leetcode_references_pass(pool, tmp_path):
    raw = read_leetcode(LCD / "v0.3.1-test.jsonl.gz")[:3]
    records = [leetcode_to_lcb(r) for r in raw]
    for record in records:  # tests capped to keep the run fast
        problem = problem_from_lcb(record)
        cases = [
            {"input": t.input, "output": t.output, "testtype": "functional"} for t in problem.tests
        ]
        record["public_test_cases"] = json.dumps(cases[:3])
        record["private_test_cases"] = encode_private_tests(cases[3:15])
    checks = check_entries(entries_of(tmp_path, records), pool, calibrate=True)
    assert [c.references_passed for c in checks] == [1, 1, 1]
    assert not any(c.removed for c in checks)
    assert all(c.ref_cpu_max is not None and c.time_limit == 1.0 for c in checks)


def test_debugbench_pairs_strength(pool, tmp_path):
    by_slug = {}
    for raw in read_leetcode(LCD / "v0.2.0-train.jsonl.gz"):
        try:
            record = leetcode_to_lcb(raw)
        except Skipped:
            continue
        by_slug[record["question_id"]] = record
    rows = read_debugbench(DATA / "debugbench")
    wanted = [
        "find-the-array-concatenation-value",
        "powerful-integers",
        "minimum-total-cost-to-make-arrays-unequal",
    ]
    pairs = [p for p in debugbench_pairs(rows, set(wanted))][:6]
    slugs = sorted({p.slug for p in pairs})
    entries = entries_of(tmp_path, [by_slug[s] for s in slugs])
    correct = {s: Samples(s, [p.oracle for p in pairs if p.slug == s]) for s in slugs}
    wrong = {s: Samples(s, [p.buggy for p in pairs if p.slug == s]) for s in slugs}
    data = strength(entries, pool, correct, wrong)
    assert data["accept_rate"]["micro"] == 1.0
    assert data["catch_rate"]["micro"] > 0.5
    assert data["correct"] == data["wrong"] == len(pairs)


# --- check -------------------------------------------------------------------------------------

GOOD = "def f(x):\n    return x * 2\n"


def test_check_finds_broken_problems(pool, tmp_path):
    records = [
        lcb("good", [("1", "2"), ("2", "4"), ("2", "4")], ref=GOOD),
        lcb("contra", [("1", "2"), ("1", "3")], ref=GOOD),
        lcb("empty", [], ref=GOOD),
        lcb("badref", [("1", "2"), ("3", "6")], ref="def f(x):\n    return 2\n"),
        lcb("weak", [("1", "2")], ref=GOOD),
        {"question_id": "garbled", "public_test_cases": "[{not json"},
    ]
    wrong = {
        "weak": Samples("weak", ["def f(x):\n    return x + 1\n"]),
        "good": Samples("good", ["def f(x):\n    return x + 1\n"]),
    }
    checks = {c.id: c for c in check_entries(entries_of(tmp_path, records), pool, wrong=wrong)}
    assert not checks["good"].removed and checks["good"].duplicates == 1
    assert checks["good"].wrong_rejected == 1
    assert "contradictory" in checks["contra"].reasons[0]
    assert checks["empty"].reasons == ["no tests"]
    assert checks["badref"].reasons[0].startswith("reference solution fails (test 1: WA")
    assert "weak tests" in checks["weak"].warnings[0]
    assert checks["garbled"].reasons[0].startswith("undecodable")


def test_check_cli_report_clean_and_calibration(tmp_path):
    slow = "def f(x):\n    s = 0\n    for i in range(300000):\n        s += i\n    return x * 2\n"
    write_records(tmp_path / "p.jsonl", [lcb("a", [("1", "2")], ref=slow), lcb("b", [], ref=GOOD)])
    args = [
        "check",
        str(tmp_path / "p.jsonl"),
        "--report",
        str(tmp_path / "r.json"),
        "--clean",
        str(tmp_path / "c.jsonl"),
        "--calibrate",
        "--floor",
        "0.5",
        "--multiplier",
        "3",
        "--workers",
        "1",
    ]
    result = CliRunner().invoke(dataset, args)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["removed_by_reason"] == {"no tests": 1}
    clean = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in clean] == ["a"]
    cpu = report["problems"][0]["ref_cpu_max"]
    assert clean[0]["time_limit"] == calibrated_limit(cpu, 0.5, 3) >= 0.5
    assert problem_from_lcb(clean[0]).time_limit == clean[0]["time_limit"]


def test_calibrated_limit():
    assert calibrated_limit(0.01, 1.0, 3.0) == 1.0
    assert calibrated_limit(0.5, 1.0, 3.0) == 1.5
    assert calibrated_limit(0.51, 1.0, 3.0) == 1.6


# --- filter ------------------------------------------------------------------------------------


def test_filter_pass_rate_date_platform(tmp_path):
    records = [
        lcb(
            "easy1", [("1", "2")], platform="leetcode", contest_date="2024-09-01", difficulty="easy"
        ),
        lcb(
            "mid1", [("1", "2")], platform="atcoder", contest_date="2024-10-01", difficulty="medium"
        ),
        lcb(
            "hard1", [("1", "2")], platform="leetcode", contest_date="2023-01-01", difficulty="hard"
        ),
        lcb(
            "mid2",
            [("1", "2")],
            platform="leetcode",
            contest_date="2024-11-01",
            difficulty="medium",
        ),
    ]
    entries = entries_of(tmp_path, records)
    results = [
        {"question_id": "easy1", "graded_list": [True, True]},
        {"question_id": "mid1", "graded_list": [True, False]},
        {"question_id": "hard1", "graded_list": [False, False]},
        {"question_id": "mid2", "graded_list": [False, True]},
    ]
    kept, dropped = filter_entries(entries, results=results)
    assert [e.id for e in kept] == ["mid1", "mid2"]
    assert dropped["easy1"].startswith("too easy") and dropped["hard1"].startswith("too hard")
    kept, dropped = filter_entries(entries, after="2024-09-15", platforms=["leetcode"])
    assert [e.id for e in kept] == ["mid2"]
    assert "platform" in dropped["mid1"] and "before" in dropped["easy1"]


def test_filter_mix_and_dedup_cli(tmp_path):
    records = [
        lcb(f"{d}{i}", [("1", "2")], difficulty=d, content=f"Problem {d} {i}")
        for d in ("easy", "medium", "hard")
        for i in range(4)
    ]
    records.append(
        lcb("copy", [("1", "2")], difficulty="hard", content="  PROBLEM <b>hard</b>  0!")
    )
    write_records(tmp_path / "p.jsonl", records)
    assert normalise_statement("  PROBLEM <b>hard</b>  0!") == "problem hard 0"
    args = [
        "filter",
        str(tmp_path / "p.jsonl"),
        str(tmp_path / "o.jsonl"),
        "--dedup",
        "--mix",
        "easy=1,medium=2,hard=1",
        "--seed",
        "3",
        "--to",
        "ours",
        "--dropped",
        str(tmp_path / "d.json"),
    ]
    result = CliRunner().invoke(dataset, args)
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    kinds = sorted(r["metadata"]["difficulty"] for r in out)
    assert kinds == ["easy", "easy", "hard", "hard", "medium", "medium", "medium", "medium"]
    assert all(r["harness"] == "functional" for r in out)
    dropped = json.loads((tmp_path / "d.json").read_text())
    assert dropped["copy"] == "duplicate statement of hard0"
    # Round trip back to LiveCodeBench keeps the tests.
    result = CliRunner().invoke(
        dataset, ["filter", str(tmp_path / "o.jsonl"), str(tmp_path / "b.jsonl"), "--to", "lcb"]
    )
    assert result.exit_code == 0, result.output
    back = read_entries(tmp_path / "b.jsonl")
    assert len(back) == 8 and back[0].problem.tests[0].output == "2"
