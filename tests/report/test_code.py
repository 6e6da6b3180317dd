"""Programs as the report shows them: highlighted by the standard library's tokenizer (never
run), with offsets the page's script can cut JavaScript strings at."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.report.code import CLASSES, PROGRAM_CAP, highlight_runs, shown_program


def _pieces(code: str) -> list[tuple[str, str]]:
    """``(class, text)`` of each highlighted run, cut as table.js cuts (UTF-16 units)."""
    units = code.encode("utf-16-le", "surrogatepass")
    runs, at, pieces = highlight_runs(code), 0, []
    for gap, length, cls in zip(runs[::3], runs[1::3], runs[2::3], strict=True):
        at += gap
        text = units[2 * at : 2 * (at + length)].decode("utf-16-le", "surrogatepass")
        pieces.append((CLASSES[cls], text))
        at += length
    return pieces


def test_each_kind_of_token_gets_its_class():
    code = (
        "import sys\n"
        "def solve(n):  # the answer\n"
        "    return len(str(n)) + 0x1F\n"
        "class Box:\n"
        "    label = f'{sys.argv}' 'b'\n"
    )
    assert _pieces(code) == [
        ("k", "import"),
        ("k", "def"),
        ("f", "solve"),
        ("c", "# the answer"),
        ("k", "return"),
        ("b", "len"),
        ("b", "str"),
        ("n", "0x1F"),
        ("k", "class"),
        ("f", "Box"),
        ("s", "f'{sys.argv}'"),
        ("s", "'b'"),
    ]


def test_offsets_count_utf16_units():
    """An astral character is two units in JavaScript: the runs after it still land."""
    code = 'x = "😀é"  # 😀\nprint(1)\n'
    assert _pieces(code) == [("s", '"😀é"'), ("c", "# 😀"), ("b", "print"), ("n", "1")]


def test_text_that_is_not_python_is_shown_plain_after_the_error():
    assert _pieces("if x:\n        a = 1\n    b = 2\nprint(3)\n") == [("k", "if"), ("n", "1")]
    assert highlight_runs('s = """never closed\nprint(1)\n') == []
    assert highlight_runs("") == []


def test_long_programs_are_cut():
    code = "x = 1\n" * (PROGRAM_CAP // 6 + 10)
    assert shown_program(code) == code[:PROGRAM_CAP] and len(code) > PROGRAM_CAP
    assert shown_program("short") == "short"


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_categories=()), max_size=60))
def test_runs_stay_inside_any_text(code):
    """Whatever the text (surrogates, markup, control characters), the runs are in order,
    never overlap and end inside it."""
    runs = highlight_runs(code)
    assert len(runs) % 3 == 0 and all(cls in range(len(CLASSES)) for cls in runs[2::3])
    assert all(length > 0 for length in runs[1::3]) and min(runs, default=0) >= 0
    units = len(code.encode("utf-16-le", "surrogatepass")) // 2
    assert sum(runs[0::3]) + sum(runs[1::3]) <= units
