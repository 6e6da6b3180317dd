"""``mcevaluate dataset check --checkers`` (issue 53): which problems need a special judge and
why (the statement says many answers are right; the references a source ships disagree on a
test; none prints a test's expected output), how many have one, and ``--unchecked`` keeping,
flagging or dropping those without one in the cleaned set. Real references in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from evaluator.cli import main
from evaluator.datasets.check import check_entries
from evaluator.datasets.entries import read_entries
from evaluator.formats import read_problems

SOURCES = Path(__file__).resolve().parents[1] / "data" / "sources"


def taco(statement: str, inputs, outputs, solutions, **extra) -> dict:
    """A TACO row as it ships: question, input_output and solutions as JSON text."""
    return {
        "question": statement,
        "input_output": json.dumps({"inputs": inputs, "outputs": outputs}),
        "solutions": json.dumps(solutions),
        **extra,
    }


PAIR_LOW = "n = int(input())\nprint(1, n - 1)\n"
PAIR_HIGH = "n = int(input())\nprint(n - 1, 1)\n"
ROWS = [
    # two references that print different right answers; the statement is silent
    taco("Print two positive integers whose sum is n.", ["5\n"], ["1 4\n"], [PAIR_LOW, PAIR_HIGH]),
    # the statement says so, one reference (which prints the expected answer)
    taco(
        "Print two positive integers whose sum is n. If there are multiple answers, print any "
        "of them.",
        ["7\n"],
        ["1 6\n"],
        [PAIR_LOW],
    ),
    # a plain problem: not flagged
    taco("Print n + 1.", ["1\n", "2\n"], ["2\n", "3\n"], ["print(int(input()) + 1)\n"]),
    # the statement says so, and the row has its checker
    taco(
        "Print two positive integers whose sum is n. Print any of them.",
        ["9\n"],
        ["1 8\n"],
        [PAIR_HIGH],
        judge={
            "type": "python",
            "code": "def check(input, output, expected):\n"
            "    a, b = map(int, output.split())\n"
            "    return a > 0 and b > 0 and a + b == int(input)\n",
        },
    ),
]


def write_rows(tmp_path):
    path = tmp_path / "taco.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_each_problems_need_for_a_checker_is_found_with_its_reason(tmp_path, pool):
    checks = check_entries(read_entries(write_rows(tmp_path)), pool)
    disagree, stated, plain, checked = checks
    assert disagree.needs_checker == "references print different answers on test 1"
    assert stated.needs_checker.startswith("the statement says so: many answers")
    assert plain.needs_checker is None and not plain.unchecked
    assert checked.needs_checker.startswith("the statement says so") and checked.has_checker
    assert [c.unchecked for c in checks] == [True, True, False, False]
    # the checker judged its references: both orders of a pair pass it
    assert checked.references_passed == checked.references == 1


def test_the_command_reports_and_flags_or_drops_what_has_no_checker(tmp_path):
    rows = write_rows(tmp_path)
    report, flagged, dropped = (tmp_path / name for name in ("r.json", "f.jsonl", "d.jsonl"))
    run = CliRunner().invoke(
        main,
        ["dataset", "check", str(rows), "--report", str(report), "--checkers",
         "--clean", str(flagged), "--unchecked", "flag", "--workers", "1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "3 of 4 problems need a checker; 1 have one; 2 need one and have none" in run.output
    assert "references print different answers on test 1" in run.output
    summary = json.loads(report.read_text())["summary"]
    assert summary["checkers"] == {
        "need": 3,
        "have": 1,
        "unchecked": 2,
        "generated": 0,
        "generated_valid": 0,
    }
    problems = read_problems(flagged)
    assert [p.needs_checker for p in problems] == [True, True, False, False]  # 4: its own
    # the flagged set, graded: a different right answer is a WA that says it was unchecked
    assert problems[0].judge_reason == ""  # flagged by its references, not by words
    run = CliRunner().invoke(
        main,
        ["dataset", "check", str(rows), "--report", str(report),
         "--clean", str(dropped), "--unchecked", "drop", "--workers", "1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    # the rows of problems 3 and 4 are left (TACO rows name no id: told by their tests)
    assert [p.tests[0].input for p in read_problems(dropped)] == ["1\n", "9\n"]


# checkers made elsewhere for rows 1 and 2 (ids as the grader names TACO rows: taco-<row>)
GOOD_CHECK = (
    "def check(input, output, expected):\n"
    "    parts = output.split()\n"
    "    return len(parts) == 2 and all(p.isdigit() and int(p) > 0 for p in parts) and "
    "sum(map(int, parts)) == int(input)\n"
)
LAX_CHECK = "def check(input, output, expected):\n    return True\n"  # takes an empty output


def test_a_checker_file_is_validated_as_scalebox_validates_its_generated_judges(tmp_path):
    rows = write_rows(tmp_path)
    side = tmp_path / "checkers.jsonl"
    side.write_text(
        json.dumps({"id": "taco-0", "check": GOOD_CHECK})
        + "\n"
        + json.dumps({"id": "taco-1", "check": LAX_CHECK})
        + "\n"
    )
    report = tmp_path / "r.json"
    run = CliRunner().invoke(
        main,
        ["dataset", "check", str(rows), "--report", str(report), "--checkers",
         "--checker-file", str(side), "--workers", "1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    by_id = {p["id"]: p for p in json.loads(report.read_text())["problems"]}
    assert by_id["taco-0"]["generated_checker"] == "valid"
    assert by_id["taco-0"]["references_passed"] == 2  # both orders of the pair: accepted
    assert by_id["taco-1"]["generated_checker"] == "invalid: on test 1 an empty output is AC"
    assert "generated_checker" not in by_id["taco-2"]
    assert "1 of 2 generated checkers valid" in run.output
    # both now have a checker: the references of row 0 no longer disagree (it judged them)
    assert "2 of 4 problems need a checker; 3 have one; 0 need one and have none" in run.output


def test_the_vendored_sources_checked_for_checkers(tmp_path):
    """The vendored open-r1/codeforces rows: four ship their checker; none of the others'
    statements or references says it needs one (the summary line a user reads)."""
    report = tmp_path / "r.json"
    run = CliRunner().invoke(
        main,
        ["dataset", "check", str(SOURCES / "codeforces" / "problems.jsonl"),
         "--report", str(report), "--checkers", "--workers", "1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "0 of 7 problems need a checker; 4 have one; 0 need one and have none" in run.output
    assert json.loads(report.read_text())["summary"]["checkers"]["have"] == 4
