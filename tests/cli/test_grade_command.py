"""`mcevaluate grade` end to end: real files, real sandbox, through click and as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.provenance import grader_source


def _tests(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"input": i, "output": o, "testtype": "stdin"} for i, o in pairs])


def _problem(qid: str, **extra) -> dict:
    record = {
        "question_id": qid,
        "public_test_cases": _tests(("1 2\n", "3\n")),
        "private_test_cases": _tests(("5 5\n", "10\n"), ("0 0\n", "0\n")),
        "metadata": "{}",
        "platform": "atcoder",
        "difficulty": "easy",
    }
    record.update(extra)
    return record


@pytest.fixture
def files(tmp_path):
    problems = tmp_path / "problems.jsonl"
    problems.write_text("\n".join(json.dumps(_problem(q)) for q in ("a", "b")) + "\n")
    samples = tmp_path / "samples.jsonl"
    rows = [
        {"question_id": "a", "code_list": ["print(sum(map(int, input().split())))", "print(3)"]},
        {
            "question_id": "b",
            "code_list": [
                "import sys\nprint(sum(map(int, sys.stdin.read().split())))",
                "raise SystemExit(1)",
            ],
        },
    ]
    samples.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return tmp_path, problems, samples


def test_grade_writes_lcb_results(files):
    tmp_path, problems, samples = files
    out = tmp_path / "results.json"
    result = CliRunner().invoke(
        main,
        [
            "grade",
            "--problems",
            str(problems),
            "--samples",
            str(samples),
            "-o",
            str(out),
            "--quiet",
            "--workers",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())
    assert [r["question_id"] for r in rows] == ["a", "b"]
    assert rows[0]["graded_list"] == [True, False] and rows[0]["pass@1"] == 0.5
    assert rows[1]["details"][1]["verdict"] == "RE"
    # early exit by default: the tests after a program's first failure are not run
    assert [t["verdict"] for t in rows[0]["details"][1]["tests"]] == ["AC", "WA", "SKIPPED"]
    assert "50.0%" in result.output and "AC 2" in result.output


def test_all_tests_runs_every_test_of_a_failing_program(files):
    tmp_path, problems, samples = files
    out = tmp_path / "results.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "--quiet", "--all-tests"])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())
    assert rows[0]["graded_list"] == [True, False]  # pass@k is the same either way
    assert [t["verdict"] for t in rows[0]["details"][1]["tests"]] == ["AC", "WA", "WA"]


def test_grade_json_summary_as_subprocess(files):
    _, problems, samples = files
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator.cli",
            "grade",
            "--problems",
            str(problems),
            "--samples",
            str(samples),
            "--json",
            "--k",
            "1,2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["pass@1"] == 50.0 and summary["pass@2"] == 100.0
    assert summary["verdicts"] == {"AC": 2, "WA": 1, "RE": 1}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"question_id": "a", "public_test_cases": "[{bad"}\n',
            "problems.jsonl:1: field 'public_test_cases'",
        ),
        (json.dumps(_problem("a")) + "\n{not json\n", "problems.jsonl:2"),
        (json.dumps({"public_test_cases": "[]"}) + "\n", "question_id"),
    ],
    ids=["bad-field", "bad-line", "missing-field"],
)
def test_bad_input_names_file_line_and_field(files, content, expected):
    _, problems, samples = files
    problems.write_text(content)
    result = CliRunner().invoke(
        main, ["grade", "--problems", str(problems), "--samples", str(samples)]
    )
    assert result.exit_code != 0
    assert expected in result.output
    assert "Traceback" not in result.output


def test_unknown_sample_ids_are_reported(files):
    _, problems, samples = files
    with samples.open("a") as handle:
        handle.write(json.dumps({"question_id": "zzz", "code_list": ["print(1)"]}) + "\n")
    result = CliRunner().invoke(
        main, ["grade", "--problems", str(problems), "--samples", str(samples), "-q"]
    )
    assert result.exit_code == 0
    assert "unknown problem" in result.output and "'zzz'" in result.output


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_summary_says_where_the_run_comes_from(files, monkeypatch):
    """--label, the date, the command line, the inputs with their hashes, the versions."""
    import datetime
    import platform

    from evaluator.languages import get_language

    tmp_path, problems, samples = files
    summary = tmp_path / "summary.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "--summary", str(summary), "-q", "--label", "model x"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["/usr/bin/mcevaluate", *args])
    before = datetime.datetime.now(datetime.UTC)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    provenance = json.loads(summary.read_text())["provenance"]
    date = datetime.datetime.fromisoformat(provenance.pop("date"))
    assert before.replace(microsecond=0) <= date <= datetime.datetime.now(datetime.UTC)
    assert provenance == {
        "label": "model x",
        "command": f"mcevaluate grade --problems {problems} --samples {samples} --summary {summary} -q --label 'model x'",
        "cwd": os.getcwd(),
        "problems": [{"path": str(problems), "absolute": str(problems), "bytes": problems.stat().st_size, "sha256": _sha256(problems)}],
        "samples": {"path": str(samples), "absolute": str(samples), "bytes": samples.stat().st_size, "sha256": _sha256(samples)},
        "grader": json.loads(summary.read_text())["grader_version"],
        **grader_source(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "toolchains": {"python": {"version": get_language("python").version()}},
    }  # fmt: skip


def test_rows_carry_each_problems_limits_and_failing_tests(tmp_path):
    """A problem's own limits, else the options'; the test each sample first failed, whether
    public (our format's metadata says how many tests are), its input and expected output."""
    tests = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 5\n", "output": "10\n"}]
    records = [
        {"id": "own", "harness": "stdin", "tests": tests, "time_limit": 2.0, "memory_limit": 128,
         "metadata": {"public_tests": 1}},
        {"id": "default", "harness": "stdin", "tests": tests},
    ]  # fmt: skip
    problems = tmp_path / "p.jsonl"
    problems.write_text("".join(json.dumps(r) + "\n" for r in records))
    samples = tmp_path / "s.jsonl"
    codes = ["print(3)", "print(sum(map(int, input().split())))", "print(1)"]
    samples.write_text("".join(json.dumps({"question_id": q, "code_list": codes}) + "\n" for q in ("own", "default")))  # fmt: skip
    out = tmp_path / "r.json"
    args = ["grade", "--problems", problems, "--samples", samples, "-o", out, "-q", "--time-limit", "3", "--memory-limit", "512"]  # fmt: skip
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    own, default = json.loads(out.read_text())
    assert (own["time_limit"], own["memory_limit"]) == (2.0, 128)
    assert (default["time_limit"], default["memory_limit"]) == (3.0, 512)
    # sample 1 fails test 2 (private), sample 3 test 1 (public); sample 2 passes
    assert own["failing_tests"] == [
        {"test": 1, "public": True, "input": "1 2\n", "input_chars": 4, "output": "3\n", "output_chars": 2},
        {"test": 2, "public": False, "input": "5 5\n", "input_chars": 4, "output": "10\n", "output_chars": 3},
    ]  # fmt: skip
    assert [t["public"] for t in default["failing_tests"]] == [None, None]  # not recorded


def test_k_beyond_the_samples_warns(files):
    tmp_path, problems, samples = files
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-q", "--k", "1,3"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    warning = "warning: --k 3: no problem has 3 samples (the most is 2): pass@3 is not computed"
    assert warning in result.stderr.splitlines()
