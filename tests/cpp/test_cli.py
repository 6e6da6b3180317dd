"""C++ through ``mcevaluate grade``: the language a sample states, ``--language``, a raw
answer's fence, ``--cpp-flags``, the journal, and what the results, summary and report say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator.cli import main

SUM_CPP = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'
WRONG_CPP = '#include <cstdio>\nint main(){puts("3");}\n'
SUM_PY = "print(sum(map(int, input().split())))"
# C++17 has no std::span: this builds only with -std=c++20
SPAN_CPP = (
    '#include <cstdio>\n#include <span>\nint main(){long a,b;scanf("%ld %ld",&a,&b);'
    'long v[]={a,b};std::span<long> s(v);printf("%ld\\n",s[0]+s[1]);}\n'
)


def _tests(*pairs: tuple[str, str]) -> str:
    return json.dumps([{"input": i, "output": o, "testtype": "stdin"} for i, o in pairs])


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    rows = [
        {
            "question_id": qid,
            "public_test_cases": _tests(("1 2\n", "3\n")),
            "private_test_cases": _tests(("5 5\n", "10\n")),
            "metadata": "{}",
            "platform": "atcoder",
            "difficulty": "easy",
        }
        for qid in ("a", "b")
    ]
    return _write_jsonl(tmp_path / "problems.jsonl", rows)


def _grade(problems: Path, samples: Path, out: Path, *extra: str):
    summary = out.with_suffix(".summary.json")
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "--output", str(out)]
    args += ["--summary", str(summary), "--workers", "2", "-q", *extra]
    result = CliRunner().invoke(main, args)
    return result, summary


def _verdicts(out: Path) -> dict[str, list[str]]:
    """Each problem's samples' verdicts."""
    rows = json.loads(out.read_text())
    return {row["question_id"]: [d["verdict"] for d in row["details"]] for row in rows}


def test_a_samples_language_field_and_a_raw_answers_fence_name_the_language(problems, tmp_path):
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"question_id": "a", "code_list": [SUM_CPP, WRONG_CPP], "language": "cpp"},
            {
                "question_id": "b",
                "output_list": [
                    f"Here:\n```cpp\n{SUM_CPP}```\n",
                    f"```python\n{SUM_PY}\n```",
                    f"```\n{SUM_CPP}```",  # a bare fence: Python, and C++ is not Python
                ],
            },
        ],
    )
    out = tmp_path / "results.json"
    result, summary = _grade(problems, samples, out, "--all-tests")
    assert result.exit_code == 0, result.output
    assert _verdicts(out) == {"a": ["AC", "WA"], "b": ["AC", "AC", "RE"]}
    rows = {row["question_id"]: row for row in json.loads(out.read_text())}
    assert rows["a"]["languages"] == ["cpp"]
    assert rows["b"]["languages"] == ["cpp", "python"]
    assert json.loads(summary.read_text())["languages"] == {"cpp": 3, "python": 2}


def test_language_option_is_the_default_a_samples_field_wins(problems, tmp_path):
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"question_id": "a", "code_list": [SUM_CPP]},
            {"question_id": "b", "code_list": [SUM_PY], "language": "python"},
        ],
    )
    out = tmp_path / "results.json"
    result, summary = _grade(problems, samples, out, "--language", "CPP")
    assert result.exit_code == 0, result.output
    assert _verdicts(out) == {"a": ["AC"], "b": ["AC"]}
    assert json.loads(summary.read_text())["options"]["language"] == "cpp"


def test_cpp_flags_replace_the_defaults_and_bad_flags_are_one_line(problems, tmp_path):
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [{"question_id": "a", "code_list": [SPAN_CPP], "language": "cpp"}],
    )
    out = tmp_path / "default.json"
    result, _ = _grade(problems, samples, out)
    assert result.exit_code == 0, result.output
    assert _verdicts(out)["a"] == ["CE"]  # -std=c++17 has no <span>
    assert "span" in json.loads(out.read_text())[0]["details"][0]["message"]

    out = tmp_path / "cpp20.json"
    result, summary = _grade(problems, samples, out, "--cpp-flags", "-std=c++20 -O2")
    assert result.exit_code == 0, result.output
    assert _verdicts(out)["a"] == ["AC"]
    assert json.loads(summary.read_text())["options"]["compile_flags"] == {"cpp": "-std=c++20 -O2"}

    result, _ = _grade(problems, samples, tmp_path / "bad.json", "--cpp-flags", "-O2 'unclosed")
    assert result.exit_code == 2
    assert "--cpp-flags" in result.output and "Traceback" not in result.output


def test_an_unknown_language_is_one_line_naming_the_file_line_and_field(problems, tmp_path):
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"question_id": "a", "code_list": [SUM_PY]},
            {"question_id": "b", "code_list": ["x"], "language": "cobol"},
        ],
    )
    result, _ = _grade(problems, samples, tmp_path / "r.json")
    assert result.exit_code == 1
    assert "samples.jsonl:2: field 'language': unknown language 'cobol'" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(
        main,
        ["grade", "--problems", str(problems), "--samples", str(samples), "--language", "cobol"],
    )
    assert result.exit_code == 2 and "'cobol' is not one of" in result.output


def test_a_journal_keeps_each_programs_language(problems, tmp_path):
    """The same text graded as C++ and as Python is two programs: a result is reused from the
    journal only for the language it was graded in."""
    from evaluator.formats import read_problems
    from evaluator.runner import GradeOptions
    from evaluator.runner.run import GradingRun

    samples = _write_jsonl(
        tmp_path / "samples.jsonl", [{"question_id": "a", "code_list": [SUM_CPP]}]
    )
    problem_list = read_problems(str(problems))
    as_cpp = GradingRun(
        problem_list, str(samples), GradeOptions(), language="cpp", say=lambda _: None
    )
    as_python = GradingRun(problem_list, str(samples), GradeOptions(), say=lambda _: None)
    assert [i.language.name for i in as_cpp.items] == ["cpp"]
    assert [i.language.name for i in as_python.items] == ["python"]
    assert as_cpp.items[0].key != as_python.items[0].key
    assert as_cpp.journal_options["language"] == "cpp"
    assert "language" not in as_python.journal_options  # a Python run's journal is as before


def test_the_reports_problem_table_names_the_language(problems, tmp_path):
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"question_id": "a", "code_list": [SUM_CPP], "language": "cpp"},
            {"question_id": "b", "code_list": [SUM_PY]},
        ],
    )
    report = tmp_path / "report.html"
    result, _ = _grade(problems, samples, tmp_path / "r.json", "--report", str(report))
    assert result.exit_code == 0, result.output
    page = report.read_text()
    assert '<th data-sort="3">language</th>' in page
    assert '<td class="c-language">cpp</td>' in page
    assert '<td class="c-language">python</td>' in page


def test_a_compile_error_names_no_failing_test_and_keeps_the_diagnostics(problems, tmp_path):
    """No test ran for a program that did not build: its row lists no failing test (it showed
    "failing test #1" with an input), the report's sample names none and plots no time for
    it, and the compiler's diagnostics are kept past a program's 200-character excerpt."""
    broken = "#include <cstdio>\n" + "\n".join(
        f"int f{i}() {{ return undefined_name_{i}; }}" for i in range(12)
    )
    samples = _write_jsonl(
        tmp_path / "samples.jsonl",
        [
            {"question_id": "a", "code_list": [broken], "language": "cpp"},
            {"question_id": "b", "code_list": [SUM_CPP], "language": "cpp"},
        ],
    )
    out = tmp_path / "r.json"
    result, _ = _grade(problems, samples, out)
    assert result.exit_code == 0, result.output
    rows = {row["question_id"]: row for row in json.loads(out.read_text())}
    detail = rows["a"]["details"][0]
    assert detail["verdict"] == "CE" and rows["a"]["failing_tests"] == []
    diagnostics = detail["tests"][0]["stderr"]
    # the first error whole, with its source line and caret (cut at 200 characters before)
    assert "undefined_name_0" in diagnostics and len(diagnostics) > 200
    assert not diagnostics.endswith("…") and diagnostics.rstrip().endswith("~")
    from evaluator.report import load_run

    run = load_run(str(out))
    sample = next(p for p in run.problems if p.id == "a").samples[0]
    assert sample.failed_test is None and "undefined_name_0" in sample.stderr
    assert len(run.cpu_times) == len(rows["b"]["details"][0]["tests"])  # b's tests only
