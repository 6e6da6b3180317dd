"""``mcevaluate generate``: a tiny random Qwen2 model writes samples that ``grade`` reads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import encode_private_tests, problem_from_lcb, read_problems
from evaluator.generate import SYSTEM_MESSAGE, build_messages, problem_statements, render_prompt

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

STARTER = "class Solution:\n    def addTwo(self, a: int, b: int) -> int:\n        "


def _tests(cases: list[dict[str, str]]) -> dict[str, str]:
    return {
        "public_test_cases": json.dumps(cases[:1]),
        "private_test_cases": encode_private_tests(cases[1:]),
    }


STDIN_RECORD = {
    "question_id": "double",
    "question_title": "Double",
    "question_content": "Read an integer N and print 2N.",
    "platform": "atcoder",
    "contest_date": "2024-01-01T00:00:00",
    "difficulty": "easy",
    "starter_code": "",
    "metadata": "{}",
    **_tests(
        [
            {"input": "3\n", "output": "6\n", "testtype": "stdin"},
            {"input": "10\n", "output": "20\n", "testtype": "stdin"},
        ]
    ),
}
FUNCTIONAL_RECORD = {
    "question_id": "add-two",
    "question_title": "Add two",
    "question_content": "Return the sum of a and b.",
    "platform": "leetcode",
    "contest_date": "2024-01-02T00:00:00",
    "difficulty": "easy",
    "starter_code": STARTER,
    "metadata": json.dumps({"func_name": "addTwo"}),
    **_tests(
        [
            {"input": "1\n2", "output": "3", "testtype": "functional"},
            {"input": "5\n7", "output": "12", "testtype": "functional"},
        ]
    ),
}


@pytest.fixture
def problems_file(tmp_path: Path) -> Path:
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (STDIN_RECORD, FUNCTIONAL_RECORD)))
    return path


def _generate(problems: Path, model: Path | str, output: Path, *extra: str):
    args = ["generate", "--problems", str(problems), "--model", str(model)]
    args += ["--output", str(output), "--n", "2", "--max-tokens", "16", "--quiet", *extra]
    return CliRunner().invoke(main, args)


def test_generate_then_grade(tiny_model_dir: Path, problems_file: Path, tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    result = _generate(problems_file, tiny_model_dir, samples, "--temperature", "0.8")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    assert [r["question_id"] for r in records] == ["double", "add-two"]
    for record in records:
        assert len(record["output_list"]) == len(record["code_list"]) == 2
        assert all(isinstance(t, str) for t in record["output_list"] + record["code_list"])

    again = tmp_path / "again.jsonl"
    assert _generate(problems_file, tiny_model_dir, again, "--temperature", "0.8").exit_code == 0
    assert again.read_text() == samples.read_text()  # seeded sampling

    graded = CliRunner().invoke(
        main,
        ["grade", "--problems", str(problems_file), "--samples", str(samples), "--json"],
    )
    assert graded.exit_code == 0, graded.output
    summary = json.loads(graded.output[graded.output.index("{") :])
    assert summary["samples"] == 4
    assert summary["problems"] == 2


def test_generate_greedy_without_chat(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path
) -> None:
    samples = tmp_path / "samples.jsonl"
    result = _generate(
        problems_file, tiny_model_dir, samples, "--temperature", "0", "--no-chat", "--engine",
        "transformers",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for line in samples.read_text().splitlines():
        record = json.loads(line)
        assert len(record["output_list"]) == 2
        assert record["output_list"][0] == record["output_list"][1]  # greedy


def test_missing_model_path_is_a_clear_error(problems_file: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    result = _generate(problems_file, missing, tmp_path / "s.jsonl")
    assert result.exit_code != 0
    assert "model not found" in result.output and str(missing) in result.output
    gguf = tmp_path / "model.Q8_0.gguf"
    result = _generate(problems_file, gguf, tmp_path / "s.jsonl")
    assert result.exit_code != 0 and str(gguf) in result.output
    assert not (tmp_path / "s.jsonl").exists()


def test_prompt_builder(problems_file: Path) -> None:
    problems = {p.id: p for p in read_problems(problems_file)}
    statements = problem_statements(problems_file)
    assert statements == {
        "double": "Read an integer N and print 2N.",
        "add-two": "Return the sum of a and b.",
    }

    system, user = build_messages(problems["double"], statements["double"])
    assert system == {"role": "system", "content": SYSTEM_MESSAGE}
    assert "expert Python programmer" in SYSTEM_MESSAGE
    assert user["role"] == "user"
    assert "Read an integer N and print 2N." in user["content"]
    assert "read the inputs from stdin, solve the problem and write the answer to stdout" in (
        user["content"].lower()
    )
    assert "```python" in user["content"]

    _, user = build_messages(problems["add-two"], statements["add-two"])
    assert "Return the sum of a and b." in user["content"]
    assert STARTER.rstrip() in user["content"]
    assert "starter code" in user["content"]
    assert "stdin" not in user["content"]

    # a functional problem without starter code names the method to write
    bare = problem_from_lcb({**FUNCTIONAL_RECORD, "starter_code": ""})
    _, user = build_messages(bare, "Add.")
    assert "Solution" in user["content"] and "addTwo" in user["content"]


def test_render_prompt_chat_and_plain() -> None:
    class Plain:
        chat_template = None

    class Chat:
        chat_template = "x"

        def apply_chat_template(self, messages, tokenize, add_generation_prompt):
            assert tokenize is False and add_generation_prompt is True
            return "CHAT:" + "|".join(m["role"] for m in messages)

    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]
    assert render_prompt(Plain(), messages, None) == "S\n\nU\n\n"
    assert render_prompt(Chat(), messages, None) == "CHAT:system|user"
    assert render_prompt(Chat(), messages, False) == "S\n\nU\n\n"
