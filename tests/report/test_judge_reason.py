"""What a statement said of its judge (issue 53), through a real run: ``mcevaluate grade`` on
LiveCodeBench rows whose statements allow a tolerance and many answers; the results carry
``judge_reason``, ``needs_checker`` and ``unchecked``, and the report in Chromium shows why
each problem is judged as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browser import By, open_page
from report_cli import invoke

from evaluator.report import load_run

TOLERANCE = "Print a / b. Answers within an absolute or relative error of 10^{-4} are accepted."
MANY = (
    "Print two positive integers whose sum is n. If there are multiple answers, print any of them."
)


def _row(qid: str, statement: str, tests: list[tuple[str, str]]) -> dict:
    cases = json.dumps([{"input": i, "output": o, "testtype": "stdin"} for i, o in tests])
    return {
        "question_id": qid,
        "question_content": statement,
        "public_test_cases": cases,
        "private_test_cases": "[]",
        "metadata": "{}",
        "platform": "atcoder",
        "difficulty": "easy",
    }


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judge_reason")
    problems = _jsonl(
        folder / "problems.jsonl",
        [
            _row("ratio", TOLERANCE, [("1 3\n", "0.333333\n")]),
            _row("pair", MANY, [("5\n", "1 4\n")]),
        ],
    )
    samples = _jsonl(
        folder / "samples.jsonl",
        [
            {
                "question_id": "ratio",
                "code_list": ["a, b = map(int, input().split())\nprint(round(a / b, 4))\n"],
            },
            {"question_id": "pair", "code_list": ["n = int(input())\nprint(2, n - 2)\n"]},
        ],
    )
    results, report = folder / "r.json", folder / "r.html"
    done = invoke(
        "grade", "--problems", problems, "--samples", samples, "-o", results,
        "--report", report, "--workers", "1", "-q",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return results, report, {row["question_id"]: row for row in json.loads(results.read_text())}


def test_the_results_say_why_each_problem_is_judged_as_it_is(graded):
    results, _, rows = graded
    ratio, pair = rows["ratio"], rows["pair"]
    assert ratio["graded_list"] == [True]  # 0.3333: within the statement's 1e-4
    assert ratio["judge_reason"].startswith("reals within 0.0001 absolute or relative")
    assert "needs_checker" not in ratio
    assert pair["graded_list"] == [False] and pair["needs_checker"] is True
    assert pair["details"][0]["unchecked"] is True
    assert "no checker" in pair["details"][0]["message"]
    problems = {p.id: p for p in load_run(str(results)).problems}
    assert problems["pair"].needs_checker and "many answers" in problems["pair"].judge_reason


def test_the_report_shows_the_judges_reason(graded, driver):
    _, report, _ = graded
    open_page(driver, report)
    shown = {}
    for key in ("ratio", "pair"):
        driver.find_element(By.CSS_SELECTOR, f"#problems tr[data-key='{key}'] .toggle").click()
        line = driver.find_element(By.CSS_SELECTOR, "#problems tr.detail p.judge-reason")
        shown[key] = line.text
        driver.find_element(By.CSS_SELECTOR, f"#problems tr[data-key='{key}'] .toggle").click()
    assert shown["ratio"].startswith("Judge, as its statement says: reals within 0.0001")
    assert "a WA may be right" in shown["pair"] and "many answers" in shown["pair"]
