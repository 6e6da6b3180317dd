"""The one rule from an answer to a program (evaluator/runner/answers.py): the code every entry
point runs for an answer, and the language it is graded as."""

from __future__ import annotations

import orjson
import pytest

from evaluator.languages import get_language
from evaluator.problem import Harness, Problem, TestCase
from evaluator.runner.answers import (
    completion_text,
    problem_language,
    resolve_program,
    stated_language,
    unsupported_message,
)

CPP_ANSWER = "Here:\n```cpp\nint main() { return 0; }\n```\n"
PY_ANSWER = "<think>```cpp\nint x;\n```</think>\n```python\nprint(1)\n```"


def test_a_completions_last_fence_is_the_code_and_its_tag_the_language():
    program = resolve_program(CPP_ANSWER)
    assert program.code == "int main() { return 0; }"
    assert program.fence == "cpp" and program.language is get_language("cpp")
    assert program.stated is None


def test_reasoning_is_never_the_program():
    program = resolve_program(PY_ANSWER)
    assert program.code == "print(1)" and program.language is get_language("python")


@pytest.mark.parametrize(
    "answer",
    [
        [{"role": "user", "content": "solve"}, {"role": "assistant", "content": CPP_ANSWER}],
        {"role": "assistant", "content": CPP_ANSWER},
        [{"role": "assistant", "content": [{"type": "text", "text": CPP_ANSWER}]}],
    ],
    ids=["messages", "one message", "content parts"],
)
def test_chat_messages_are_answers(answer):
    program = resolve_program(answer)
    assert program.code == "int main() { return 0; }" and program.language.name == "cpp"


@pytest.mark.parametrize("answer", ["no fence here", None, 42, [{"role": "user", "content": "x"}]])
def test_an_answer_without_code_has_none_and_python(answer):
    program = resolve_program(answer)
    assert program.code is None and program.language is get_language("python")


def test_the_first_stated_language_wins_over_the_fence():
    program = resolve_program(CPP_ANSWER, None, "", "python", "cpp")
    assert program.stated == "python" and program.language.name == "python"
    assert program.code == "int main() { return 0; }"


def test_a_language_object_may_be_stated():
    java = get_language("java")
    assert resolve_program(CPP_ANSWER, java).language is java


def test_a_stated_language_not_graded_here_resolves_to_none():
    program = resolve_program(CPP_ANSWER, "Brainfuck", "python")
    assert program.language is None and program.stated == "Brainfuck"
    assert program.code is not None
    assert unsupported_message("Brainfuck").startswith("Brainfuck programs are not graded here")
    assert "python" in unsupported_message("Brainfuck")


def test_code_given_as_code_is_taken_whole():
    program = resolve_program("print(2)\n", "python", extract=False)
    assert program.code == "print(2)\n" and program.fence is None
    assert resolve_program(CPP_ANSWER, extract=False).code == CPP_ANSWER


def test_completion_text_takes_the_last_assistant_message():
    messages = [
        {"role": "assistant", "content": "first"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "second"},
    ]
    assert completion_text(messages) == "second"
    assert completion_text([{"role": "user", "content": "x"}]) is None
    assert completion_text({"content": [{"text": "a"}, {"image": 1}, {"text": "b"}]}) == "ab"


@pytest.mark.parametrize(
    ("row", "extra", "expected"),
    [
        ({"language": "cpp", "tests": []}, None, "cpp"),
        (orjson.dumps({"language": "java"}).decode(), None, "java"),
        ('{"tests": []}', None, None),
        ('{"language": ', None, None),  # not JSON: no language stated
        ({"language": 3}, None, None),
        ({"language": "cpp"}, {"language": "rust"}, "rust"),  # extra_info wins
        ([{"input": "1", "output": "1"}], None, None),
    ],
)
def test_a_rows_stated_language(row, extra, expected):
    assert stated_language(row, extra) == expected


def test_a_problems_own_language():
    problem = Problem("p", Harness.STDIN, [TestCase("", "")], metadata={"language": "cpp"})
    assert problem_language(problem) == "cpp"
    blank = Problem("q", Harness.STDIN, [TestCase("", "")], metadata={"language": " "})
    assert problem_language(blank) is None
