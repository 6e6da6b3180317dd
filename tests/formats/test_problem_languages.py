"""A source that says its problems' language (PrimeIntellect's ``verification_info.language``):
a program in a language graded here runs as that language (PrimeIntellect's Rust and
JavaScript rows; Lua), one in a language not graded here (Swift: no module for it) is
``UNSUPPORTED`` naming it, per sample, never an ERROR of the problem."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import read_problems
from evaluator.reward import CodeReward

SUM_RUST = (
    "use std::io;\nfn main() { let mut s = String::new(); io::stdin().read_line(&mut s).unwrap();\n"
    "let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
    'println!("{}", v[0] + v[1]); }'
)
SUM_JS = 'const [a, b] = require("fs").readFileSync(0, "utf8").split(" ").map(Number);\nconsole.log(a + b);'
SUM_LUA = 'local a, b = io.read("n", "n")\nprint(a + b)'
SUM_SWIFT = 'let p = readLine()!.split(separator: " ").map { Int($0)! }\nprint(p[0] + p[1])'
SOURCES = {"rust": SUM_RUST, "javascript": SUM_JS, "lua": SUM_LUA, "swift": SUM_SWIFT}
SUM_CPP = (
    "#include <iostream>\nint main() { long long a, b; std::cin >> a >> b; "
    "std::cout << a + b << std::endl; }"
)


def _row(language: str) -> dict:
    cases = [{"type": "stdin_stdout", "input": "2 3\n", "output": "5\n"}]
    return {
        "problem_id": f"sum_{language}",
        "source": "code_contests",
        "task_type": "verifiable_code",
        "prompt": "Read a and b, print a + b.",
        "gold_standard_solution": f"```{language}\n...\n```",
        "verification_info": repr({"language": language, "test_cases": cases}),
        "metadata": "{}",
    }


def test_rust_javascript_and_lua_rows_are_graded_and_a_swift_row_unsupported(tmp_path):
    problems = tmp_path / "pi.jsonl"
    languages = ("rust", "javascript", "lua", "swift", "cpp")
    problems.write_text("".join(json.dumps(_row(lang)) + "\n" for lang in languages))
    read = read_problems(problems)
    assert [problem.metadata["language"] for problem in read] == list(languages)
    samples = tmp_path / "s.jsonl"
    rows = [{"question_id": f"sum_{lang}", "code_list": [code]} for lang, code in SOURCES.items()]
    rows.append({"question_id": "sum_cpp", "code_list": [SUM_CPP]})
    rows.append({"question_id": "sum_rust", "code_list": [SUM_RUST.replace("v[0] + v[1]", "v[0]")]})
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "r.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
    assert result.exit_code == 0, result.output
    graded = {row["question_id"]: row for row in json.loads(out.read_text())}
    # unfenced code, each run as its problem's language; the second Rust sample is wrong
    assert [d["verdict"] for d in graded["sum_rust"]["details"]] == ["AC", "WA"]
    assert graded["sum_javascript"]["graded_list"] == [True]
    assert graded["sum_cpp"]["graded_list"] == [True]
    assert graded["sum_lua"]["graded_list"] == [True]
    [swift_detail] = graded["sum_swift"]["details"]
    assert swift_detail["verdict"] == "UNSUPPORTED"
    assert swift_detail["message"].startswith("swift programs are not graded here")


def test_the_reward_grades_a_rust_row_and_gives_an_unsupported_one_no_reward(pool):
    rust = {key: [value] * 2 for key, value in _row("rust").items() if key != "prompt"}
    swift = {key: [value] for key, value in _row("swift").items() if key != "prompt"}
    with CodeReward(pool=pool) as reward:
        assert reward(None, [f"```rust\n{SUM_RUST}\n```", "no code"], **rust) == [1.0, 0.0]
        assert reward(None, [f"```swift\n{SUM_SWIFT}\n```"], **swift) == [None]
        assert reward.last_verdicts == ["UNSUPPORTED"]
        assert "swift programs are not graded here" in reward.last_reasons[0]


def test_verl_grades_rust_and_javascript_rows_by_their_verification_info():
    """verl's path (``compute_score(data_source, solution_str, ground_truth)``) with a
    PrimeIntellect ``verification_info`` as the ground truth: the row's language is the
    program's, right and wrong answers scored 1 and 0."""
    from evaluator.reward import verl_compute_score

    for language, right in (("rust", SUM_RUST), ("javascript", SUM_JS)):
        cases = [{"type": "stdin_stdout", "input": "2 3\n", "output": "5\n"}]
        truth = {"language": language, "test_cases": cases}
        wrong = right.replace("a + b", "a * b").replace("v[0] + v[1]", "v[0] * v[1]")
        assert wrong != right
        assert verl_compute_score("primeintellect", f"```{language}\n{right}\n```", truth) == 1.0
        assert verl_compute_score("primeintellect", f"```{language}\n{wrong}\n```", truth) == 0.0
