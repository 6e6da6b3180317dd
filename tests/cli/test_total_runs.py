"""A run is total (issue 16), end to end through `mcevaluate`, real sandbox: what one sample
returns or one problem holds costs that sample (a verdict or ERROR with the reason), never the
run; paths are checked before any work, in one line; the summary prints each row once."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from lcb_data import DATASET, GOOD, write_jsonl

from evaluator.cli import main

DEEP = (
    "import sys\nsys.setrecursionlimit(10**6)\n"
    "def f():\n    x = []\n    for _ in range(300000):\n        x = [x]\n    return x\n"
)
DEEP_NO_LIMIT = "def f():\n    x = []\n    for _ in range(300000):\n        x = [x]\n    return x\n"


def _functional(qid: str, expected: str) -> dict:
    tests = [{"input": "", "output": expected, "testtype": "functional"}]
    return {
        "question_id": qid,
        "public_test_cases": json.dumps(tests),
        "metadata": '{"func_name": "f"}',
    }


def _stdin(qid: str, **extra) -> dict:
    tests = [{"input": "2 3\n", "output": "5\n", "testtype": "stdin"}]
    return {"question_id": qid, "public_test_cases": json.dumps(tests), "metadata": "{}", **extra}


def _grade(tmp_path: Path, problems: list[dict], samples: list[dict], *extra: str):
    p = write_jsonl(tmp_path / "p.jsonl", problems)
    s = write_jsonl(tmp_path / "s.jsonl", samples)
    out = tmp_path / "r.json"
    args = ["grade", "--problems", str(p), "--samples", str(s), "-o", str(out), "-q", *extra]
    return CliRunner().invoke(main, args), out


def _details(out: Path) -> dict[str, list[dict]]:
    return {row["question_id"]: row["details"] for row in json.loads(out.read_text())}


def test_a_deeply_nested_return_value_costs_only_its_sample(tmp_path):
    """The issue's first case: a list nested 300,000 deep once raised RecursionError out of
    the grader and no results file was written for any sample."""
    problems = [_functional("deep", "[[[]]]"), _stdin("plain")]
    samples = [
        {"question_id": "deep", "code_list": [DEEP, DEEP_NO_LIMIT, "def f():\n    return [[[]]]"]},
        {"question_id": "plain", "code_list": [GOOD.replace("split()", "split()")]},
    ]
    result, out = _grade(tmp_path, problems, samples, "--json")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    details = _details(out)
    for deep in details["deep"][:2]:
        assert deep["verdict"] == "WA"  # judged: it is not the expected [[[]]]
        assert len(deep["tests"][0].get("message", "")) <= 300
    assert details["deep"][2]["verdict"] == "AC"
    assert details["plain"][0]["verdict"] == "AC"
    assert json.loads(result.stdout)["samples"] == 4


def test_missing_output_directory_is_one_line_before_any_work(tmp_path):
    """The issue's second case: --output in a directory that does not exist. The problems
    file is broken too: the path is refused before it is even read."""
    problems = tmp_path / "p.jsonl"
    problems.write_text("{not json\n")
    samples = write_jsonl(tmp_path / "s.jsonl", [{"question_id": "q", "code_list": [GOOD]}])
    for option, target in (
        ("--output", "/no/such/dir/r.json"),
        ("--summary", "/no/such/dir/summary.json"),
        ("--output", str(problems) + "/r.json"),  # the "directory" is a file
    ):
        result = CliRunner().invoke(
            main, ["grade", "--problems", str(problems), "--samples", str(samples), option, target]
        )
        assert result.exit_code == 1
        assert result.exception is None or isinstance(result.exception, SystemExit)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "not valid JSON" not in lines[0], result.output
        assert lines[0].startswith(f"Error: {target} ({option}")
    directory = CliRunner().invoke(
        main, ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(tmp_path)]
    )
    assert directory.exit_code == 2 and "is a directory" in directory.output


def test_a_journal_location_that_is_not_a_file_is_refused_first(tmp_path):
    out = tmp_path / "r.json"
    (tmp_path / "r.json.partial.jsonl").mkdir()
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin("q")])
    samples = write_jsonl(tmp_path / "s.jsonl", [{"question_id": "q", "code_list": [GOOD]}])
    result = CliRunner().invoke(
        main, ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    )
    assert result.exit_code == 1 and "r.json.partial.jsonl" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_existing_output_is_replaced_only_with_force(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("precious")
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin("q")])
    samples = write_jsonl(tmp_path / "s.jsonl", [{"question_id": "q", "code_list": [GOOD]}])
    base = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out), "-q"]
    refused = CliRunner().invoke(main, base)
    assert refused.exit_code == 1 and "--force" in refused.output
    assert out.read_text() == "precious"  # nothing lost
    resumed = CliRunner().invoke(main, [*base, "--resume"])  # no journal: nothing to resume
    assert resumed.exit_code == 1 and "no unfinished run" in resumed.output
    assert out.read_text() == "precious"
    forced = CliRunner().invoke(main, [*base, "--force"])
    assert forced.exit_code == 0, forced.output
    assert json.loads(out.read_text())[0]["graded_list"] == [True]


def test_help_states_the_overwrite_rules():
    text = CliRunner().invoke(main, ["grade", "--help"]).output
    for phrase in ("--force", "--resume", "--skip-bad-problems", "never replaced"):
        assert phrase in text


class _Reduce:
    def __reduce__(self):
        return (print, ("ran",))


def _bad_problems() -> list[dict]:
    pickled = base64.b64encode(zlib.compress(pickle.dumps(_Reduce()))).decode()
    return [
        _stdin("good", platform="atcoder", difficulty="easy"),
        {"question_id": "evil", "public_test_cases": "[]", "private_test_cases": pickled},
        {"question_id": "broken", "public_test_cases": "[{", "difficulty": "hard"},
    ]


def test_bad_problems_stop_the_run_by_default_in_one_line(tmp_path):
    samples = [{"question_id": q, "code_list": [GOOD]} for q in ("good", "evil", "broken")]
    result, out = _grade(tmp_path, _bad_problems(), samples)
    assert result.exit_code == 1 and not out.exists()
    line = result.output.strip()
    assert len(line.splitlines()) == 1
    assert "p.jsonl:2: field 'private_test_cases'" in line and "plain-data pickle" in line


def test_skip_bad_problems_grades_the_rest_and_reports_them(tmp_path):
    samples = [
        {"question_id": q, "code_list": [GOOD, "print(4)"]} for q in ("good", "evil", "broken")
    ]
    result, out = _grade(
        tmp_path,
        _bad_problems(),
        samples,
        "--skip-bad-problems",
        "--summary",
        str(tmp_path / "s.json"),
    )
    assert result.exit_code == 0, result.output
    details = _details(out)
    assert [d["verdict"] for d in details["good"]] == ["AC", "WA"]
    for qid, field in (("evil", "private_test_cases"), ("broken", "public_test_cases")):
        assert [d["verdict"] for d in details[qid]] == ["ERROR", "ERROR"]
        assert f"field '{field}'" in details[qid][0]["message"]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verdicts"] == {"AC": 1, "WA": 1, "ERROR": 4}
    assert [b["id"] for b in summary["bad_problems"]] == ["evil", "broken"]
    assert summary["bad_problems"][0]["samples"] == 2
    assert "2 problem(s) could not be decoded" in result.output
    assert "hard" in result.output  # the bad problem's difficulty still groups its samples


def test_lcb_command_skips_bad_problems_too(tmp_path):
    records = [*DATASET[:2], {**DATASET[2], "private_test_cases": "not base64 at all!"}]
    dataset = write_jsonl(tmp_path / "lcb.jsonl", records)
    samples = write_jsonl(
        tmp_path / "s.jsonl",
        [{"question_id": r["question_id"], "code_list": [GOOD]} for r in records],
    )
    base = ["lcb", "--dataset", str(dataset), "--samples", str(samples), "-q", "--json"]
    stopped = CliRunner().invoke(main, base)
    assert stopped.exit_code == 1 and "lcb.jsonl:3: field 'private_test_cases'" in stopped.output
    skipped = CliRunner().invoke(main, [*base, "--skip-bad-problems"])
    assert skipped.exit_code == 0, skipped.output
    summary = json.loads(skipped.stdout)
    assert summary["verdicts"] == {"AC": 2, "ERROR": 1}
    assert summary["bad_problems"][0]["id"] == DATASET[2]["question_id"]


def test_summary_prints_no_row_twice_when_everything_is_unknown(tmp_path):
    samples = [{"question_id": "q", "code_list": [GOOD, "print(1)"]}]
    result, _ = _grade(tmp_path, [_stdin("q")], samples)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sum(line.strip().startswith("unknown") for line in lines) == 0
    assert any(line.startswith("all") and "50.0%" in line for line in lines)


def test_summary_sections_are_labelled(tmp_path):
    problems = [_stdin("a", platform="atcoder"), _stdin("b", difficulty="easy")]
    samples = [{"question_id": q, "code_list": [GOOD]} for q in ("a", "b")]
    result, _ = _grade(tmp_path, problems, samples)
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.output.splitlines()]
    difficulty, platform = lines.index("difficulty"), lines.index("platform")
    assert [line.split()[0] for line in lines[difficulty + 1 : platform]] == ["easy", "unknown"]
    assert lines[platform + 1].split()[0] == "atcoder"


def test_surrogates_and_nul_in_samples_and_ids_are_written(tmp_path):
    """orjson refuses lone surrogates: the writers fall back, nothing is lost."""
    problems = tmp_path / "p.jsonl"
    problems.write_text(json.dumps(_stdin("q\ud800", difficulty="e\x00asy")) + "\n")
    samples = tmp_path / "s.jsonl"
    codes = [GOOD + "\n# \ud800", "print('\\udcff\\x00')", GOOD]
    samples.write_text(json.dumps({"question_id": "q\ud800", "code_list": codes}) + "\n")
    out = tmp_path / "r.json"
    result = CliRunner().invoke(
        main,
        ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out), "-q"],
    )
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())[0]
    assert row["question_id"] == "q\ud800" and row["code_list"] == codes
    assert [d["verdict"] for d in row["details"]] == ["RE", "WA", "AC"]
    assert "not UTF-8 text" in row["details"][0]["message"]


@pytest.mark.parametrize("flag", ["--resume", "--force"])
def test_resume_and_force_need_what_they_name(tmp_path, flag):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin("q")])
    samples = write_jsonl(tmp_path / "s.jsonl", [{"question_id": "q", "code_list": [GOOD]}])
    result = CliRunner().invoke(
        main, ["grade", "--problems", str(problems), "--samples", str(samples), flag, "-q"]
    )
    if flag == "--resume":
        assert result.exit_code == 2 and "--resume needs --output" in result.output
    else:  # --force without --output replaces nothing: the run is as usual
        assert result.exit_code == 0


def test_generate_checks_its_output_before_loading_a_model(tmp_path):
    problems = write_jsonl(tmp_path / "p.jsonl", [_stdin("q")])
    result = CliRunner().invoke(
        main,
        ["generate", "--problems", str(problems), "--model", str(tmp_path / "no-model"),
         "-o", "/no/such/dir/samples.jsonl"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: /no/such/dir/samples.jsonl (--output): no such directory /no/such/dir"
    ]
