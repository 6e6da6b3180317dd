"""Programs as the report shows them: highlighted, never run.

A program is tokenized with the standard library's :mod:`tokenize` (which reads text and
runs nothing) into *runs*: ``[gap, length, class]`` triples, flattened, where ``gap`` is the
number of plain characters since the previous run and ``class`` an index into
:data:`CLASSES`. The page's script cuts the program's text at those offsets into ``<span>``
elements written with ``textContent``, so no part of a program is ever parsed as markup or
script. Offsets count UTF-16 code units, as JavaScript strings do.

Text that does not tokenize (a syntax error, an answer that is not Python) is highlighted up
to the error and shown plain after it.
"""

from __future__ import annotations

import builtins
import io
import keyword
import tokenize
from collections.abc import Iterator

__all__ = ["CLASSES", "PROGRAM_CAP", "highlight_runs", "shown_program"]

# What each class index means; the page styles them as .tk-k, .tk-s... (page.css).
CLASSES = ("k", "s", "c", "n", "b", "f")
_KEYWORD, _STRING, _COMMENT, _NUMBER, _BUILTIN, _DEFINED = range(len(CLASSES))
_KEYWORDS = frozenset(keyword.kwlist)
_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
# f-strings are one STRING token before Python 3.12, and from it on their start, parts and
# end (t-strings, 3.14, likewise)
_OPENS = frozenset(
    getattr(tokenize, name)
    for name in ("FSTRING_START", "TSTRING_START")
    if hasattr(tokenize, name)
)
_CLOSES = frozenset(
    getattr(tokenize, name) for name in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, name)
)
PROGRAM_CAP = 16_000  # characters of a program shown (contest solutions are a few kB)


def shown_program(code: str) -> str:
    """The part of ``code`` the page shows: at most :data:`PROGRAM_CAP` characters."""
    return code[:PROGRAM_CAP]


def highlight_runs(code: str) -> list[int]:
    """The highlighted runs of ``code`` (see the module docstring), flattened."""
    units = _utf16_offsets(code)
    runs: list[int] = []
    end = 0
    for start, stop, cls in _classified(code):
        a, b = (start, stop) if units is None else (units[start], units[stop])
        if a < end or b <= a:  # tokens never overlap; an empty one (a NEWLINE at EOF) is skipped
            continue
        runs += [a - end, b - a, cls]
        end = b
    return runs


def _classified(code: str) -> Iterator[tuple[int, int, int]]:
    """``(start, stop, class)`` character offsets of the tokens worth a colour; an f-string
    is one string whatever the Python version (3.12 on tokenizes its parts)."""
    starts = [0]  # offset of each line tokenize has read
    lines = io.StringIO(code)

    def readline() -> str:
        line = lines.readline()
        starts.append(starts[-1] + len(line))
        return line

    def offset(row: int, col: int) -> int:
        return starts[row - 1] + col

    previous, depth, opened = "", 0, 0
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type in _OPENS or token.type in _CLOSES:
                if depth == 0:
                    opened = offset(*token.start)
                depth += 1 if token.type in _OPENS else -1
                if depth == 0:
                    yield opened, offset(*token.end), _STRING
                continue
            if depth:
                continue  # inside an f-string: coloured as a whole at its end
            cls = _class_of(token, previous)
            if token.type not in (tokenize.NL, tokenize.COMMENT):  # `def` may end a line
                previous = token.string if token.type == tokenize.NAME else ""
            if cls is None:
                continue
            start, stop = offset(*token.start), offset(*token.end)
            if code[start:stop] != token.string:  # the tokenizer split lines otherwise
                return  # (a lone \r, say): better plain than misplaced colours
            yield start, stop, cls
    except (tokenize.TokenError, SyntaxError):
        return  # not Python from here on: the rest is shown plain


def _class_of(token: tokenize.TokenInfo, previous: str) -> int | None:
    if token.type == tokenize.STRING:
        return _STRING
    if token.type == tokenize.COMMENT:
        return _COMMENT
    if token.type == tokenize.NUMBER:
        return _NUMBER
    if token.type != tokenize.NAME:
        return None
    if previous in ("def", "class"):
        return _DEFINED
    if token.string in _KEYWORDS:
        return _KEYWORD
    return _BUILTIN if token.string in _BUILTINS else None


def _utf16_offsets(text: str) -> list[int] | None:
    """UTF-16 offset of each character offset of ``text`` (and of its end); None when the
    two agree (no character beyond the Basic Multilingual Plane)."""
    if text.isascii() or max(map(ord, text)) <= 0xFFFF:
        return None
    offsets = [0]
    for char in text:
        offsets.append(offsets[-1] + (2 if ord(char) > 0xFFFF else 1))
    return offsets
