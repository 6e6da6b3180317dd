"""A source that says its problems' language (PrimeIntellect's ``verification_info.language``):
a program in a language graded here runs as that language, one in a language not graded here
(Rust, JavaScript) is ``UNSUPPORTED`` naming it, per sample, never an ERROR of the problem."""

from __future__ import annotations

import json

from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import read_problems
from evaluator.reward import CodeReward

SUM_RUST = (
    "use std::io;\nfn main() { let mut s = String::new(); io::stdin().read_line(&mut s).unwrap(); }"
)
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


def test_a_rust_problem_reads_and_its_samples_are_unsupported(tmp_path):
    problems = tmp_path / "pi.jsonl"
    problems.write_text("".join(json.dumps(_row(lang)) + "\n" for lang in ("rust", "cpp")))
    [rust, cpp] = read_problems(problems)
    assert (rust.metadata["language"], cpp.metadata["language"]) == ("rust", "cpp")
    samples = tmp_path / "s.jsonl"
    samples.write_text(
        json.dumps({"question_id": "sum_rust", "code_list": [SUM_RUST]})
        + "\n"
        + json.dumps({"question_id": "sum_cpp", "code_list": [SUM_CPP]})
        + "\n"
    )
    out = tmp_path / "r.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
    assert result.exit_code == 0, result.output
    rows = {row["question_id"]: row for row in json.loads(out.read_text())}
    [rust_detail] = rows["sum_rust"]["details"]
    assert rust_detail["verdict"] == "UNSUPPORTED"
    assert rust_detail["message"].startswith("rust programs are not graded here")
    assert rows["sum_cpp"]["graded_list"] == [True]  # unfenced code, run as the problem's C++


def test_the_reward_gives_an_unsupported_sample_no_reward(pool):
    columns = {key: [value] * 2 for key, value in _row("rust").items() if key != "prompt"}
    with CodeReward(pool=pool) as reward:
        rewards = reward(None, [f"```rust\n{SUM_RUST}\n```", "no code"], **columns)
    assert rewards == [None, 0.0]
    assert reward.last_verdicts == ["UNSUPPORTED", "NO_CODE"]
    assert "rust programs are not graded here" in reward.last_reasons[0]
