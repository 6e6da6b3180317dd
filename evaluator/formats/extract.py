"""Extracting the program from a model's raw answer.

The rule follows LiveCodeBench (``lcb_runner/utils/extraction_utils.py``): the program is the
**last** non-empty fenced code block of the answer, whatever its language tag (```` ```python ````,
```` ```py ````, ```` ```Python3 ```` or a bare ```` ``` ````). Before looking for fences,
reasoning is removed:

* every ``<think> ... </think>`` section;
* a ``</think>`` without an opening tag (chat templates that put ``<think>`` in the prompt):
  everything up to and including the last ``</think>``;
* an opening ``<think>`` that is never closed (the model ran out of tokens while reasoning):
  everything from it to the end, since drafts inside reasoning are not the answer.

Fallbacks, where we knowingly differ from or extend LiveCodeBench:

* no fence at all -> ``None`` ("no code"; LiveCodeBench returns ``""``, the same verdict);
* an unterminated final fence -> the text after it (LiveCodeBench would instead take the
  text between the last two fence lines, i.e. the previous *prose*, or nothing);
* an empty or whitespace-only last block -> the last block before it that holds code, as
  verl's ``prime_code`` takes it (LiveCodeBench takes the empty one: no code); none -> ``None``;
* a fence indented inside a list item -> its indentation is removed from the block's lines,
  so the program does not fail with ``IndentationError``;
* a fence line with a language tag inside an open block starts a new block (models sometimes
  forget to close one before opening the next).

:func:`extract_code` never raises.
"""

from __future__ import annotations

import re

__all__ = ["extract_code", "extract_program", "strip_reasoning"]

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)
# A fence line: optional indentation, three or more backticks, optional info string.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>.*)$")


def strip_reasoning(text: str) -> str:
    """Remove ``<think>`` reasoning sections as described in the module docstring.

    Linear in the text: each ``<think>`` pairs with the first ``</think>`` after it, in one
    pass over the tags (what ``re.sub(r"<think>.*?</think>", "", text)`` removes; that regex
    took quadratic time on an answer of many unclosed ``<think>`` tags)."""
    kept: list[str] = []  # the text outside the removed pairs
    start, opened = 0, None
    for tag in _THINK_TAG.finditer(text):
        closing = bool(tag.group(1))
        if opened is None and not closing:
            opened = tag
        elif opened is not None and closing:  # the pair from `opened` to here goes
            kept.append(text[start : opened.start()])
            start, opened = tag.end(), None
    kept.append(text[start:])
    text = "".join(kept)
    last_close = None
    for tag in _THINK_TAG.finditer(text):
        if tag.group(1):
            last_close = tag
    if last_close is not None:
        text = text[last_close.end() :]
    opening = _THINK_TAG.search(text)  # only <think> tags remain after the last </think>
    if opening is not None:
        text = text[: opening.start()]
    return text


def _dedent(lines: list[str], indent: str) -> list[str]:
    """Remove the fence's own indentation from each line that carries it."""
    if not indent:
        return lines
    return [
        line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t") for line in lines
    ]


def _fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """All fenced blocks in order, each with its fence's info string; an unterminated last
    block is included."""
    blocks: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    indent = opened_with = ""
    for line in text.split("\n"):
        fence = _FENCE.match(line.rstrip("\r"))
        if fence is None:
            if current is not None:
                current.append(line.rstrip("\r"))
            continue
        info = fence.group("info").strip()
        if current is not None:
            blocks.append((opened_with, _dedent(current, indent)))
            current = None
            if not info:
                continue  # a plain closing fence
            # A tagged fence inside an open block: treat it as the start of a new block.
        # Info strings with backticks are inline code (```x``` on one line), not a fence.
        if "`" in info:
            continue
        current = []
        indent, opened_with = fence.group("indent"), info
    if current is not None:
        blocks.append((opened_with, _dedent(current, indent)))
    return blocks


def extract_code(text: str) -> str | None:
    """The program in a raw model answer, or ``None`` when it contains no code.

    See the module docstring for the exact rule and its fallbacks. Never raises.
    """
    return extract_program(text)[0]


def extract_program(text: str) -> tuple[str | None, str | None]:
    """``(code, tag)``: :func:`extract_code`'s program and its fence's language tag, lower
    case (``"python"``, ``"cpp"``, ``"c++"``; None for a bare fence or no code). The tag is
    what a caller maps to a language (:func:`evaluator.languages.language_for_fence`).
    Never raises."""
    try:
        if not isinstance(text, str):
            return None, None
        for info, lines in reversed(_fenced_blocks(strip_reasoning(text))):
            code = "\n".join(lines)
            if code.strip():
                words = info.split()
                return code, (words[0].lower() if words else None)
        return None, None
    except Exception:  # pragma: no cover - defensive: extraction must never break grading
        return None, None
