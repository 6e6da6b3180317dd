"""Code extraction from raw model answers."""

from __future__ import annotations

import pytest

from evaluator.formats import extract_code

FENCE = "```"


def block(code: str, lang: str = "python") -> str:
    return f"{FENCE}{lang}\n{code}\n{FENCE}"


def test_single_block() -> None:
    assert extract_code(f"Here you go:\n{block('print(1)')}\nDone.") == "print(1)"


def test_last_block_wins() -> None:
    text = f"First try:\n{block('print(1)')}\nBetter:\n{block('print(2)')}\n"
    assert extract_code(text) == "print(2)"


def test_last_block_wins_whatever_its_tag() -> None:
    # LiveCodeBench's rule: the last fenced block, even if it is sample output.
    text = f"{block('print(3)')}\nOutput:\n{block('3', lang='')}"
    assert extract_code(text) == "3"


@pytest.mark.parametrize("lang", ["python", "py", "Python3", "python3", "", "Python"])
def test_language_tag_variants(lang: str) -> None:
    assert extract_code(block("x = 1\nprint(x)", lang=lang)) == "x = 1\nprint(x)"


def test_think_section_is_stripped() -> None:
    text = f"<think>\nMaybe {block('print(0)')} ?\n</think>\nAnswer: no code here"
    assert extract_code(text) is None
    text = f"<think>draft {block('print(0)')}</think>\n{block('print(1)')}"
    assert extract_code(text) == "print(1)"


def test_unopened_think_close_drops_everything_before() -> None:
    # Chat templates that put <think> in the prompt leave only the closing tag in the answer.
    text = f"reasoning {block('print(0)')}\n</think>\n{block('print(1)')}"
    assert extract_code(text) == "print(1)"


def test_unclosed_think_drops_the_rest() -> None:
    text = f"<think>I will write {block('print(0)')} and then"
    assert extract_code(text) is None


def test_no_code() -> None:
    assert extract_code("I cannot solve this.") is None
    assert extract_code("") is None
    assert extract_code(block("   ")) is None
    assert extract_code(None) is None  # type: ignore[arg-type]


def test_an_empty_last_block_gives_way_to_the_code_before_it() -> None:
    """Issue 55: an answer whose last fence is empty (a doubled closing fence, an empty
    block after the program) is graded on the program before it, not NO_CODE."""
    assert extract_code(f"{block('print(1)')}\n{block('')}") == "print(1)"
    assert extract_code(f"{block('print(1)')}\n{FENCE}\n{FENCE}\n") == "print(1)"
    assert extract_code(f"{block('print(1)')}\n{block('  ', lang='')}\n{block('')}") == "print(1)"
    assert extract_code(f"{block('')}\n{block('')}") is None


def test_unterminated_final_fence_takes_the_rest() -> None:
    text = f"{block('print(1)')}\nRevised:\n{FENCE}python\nprint(2)\n"
    assert extract_code(text) == "print(2)\n"


def test_indented_fence_is_dedented() -> None:
    text = "1. Code:\n   ```python\n   def f():\n       return 1\n   ```\n"
    assert extract_code(text) == "def f():\n    return 1"


def test_windows_line_endings() -> None:
    assert extract_code("```python\r\nprint(1)\r\n```\r\n") == "print(1)"


def test_tagged_fence_inside_open_block_starts_a_new_one() -> None:
    text = "```python\nprint(1)\n```python\nprint(2)\n```"
    assert extract_code(text) == "print(2)"


def test_inline_triple_backticks_are_not_fences() -> None:
    text = f"Use ```x``` like this:\n{block('print(1)')}"
    assert extract_code(text) == "print(1)"


def test_extract_program_gives_the_last_fences_language_tag() -> None:
    from evaluator.formats import extract_program

    answer = "First:\n```python\nprint(1)\n```\nThen:\n```C++ (g++17)\nint main() {}\n```\n"
    assert extract_program(answer) == ("int main() {}", "c++")
    assert extract_program("```\nprint(2)\n```") == ("print(2)", None)
    assert extract_program("no code here") == (None, None)
    assert extract_program("```cpp\n   \n```") == (None, None)
    # extract_code is the program alone, by the same rule
    assert extract_code(answer) == "int main() {}"
