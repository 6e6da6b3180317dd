"""The README's "Use it in your RL code" snippets, read from README.md, so that the framework
tests run exactly what the README shows."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Use it in your RL code"


def readme_snippet(first_line: str, section_title: str = SECTION) -> str:
    """The fenced code block of README's section ``section_title`` (default: "Use it in your
    RL code") whose first line is ``first_line`` (a comment naming the snippet), without its
    fences."""
    text = README.read_text(encoding="utf-8")
    start = text.index(section_title)
    end = text.find("\n## ", start + len(section_title))
    section = text[start : end if end != -1 else len(text)]
    for block in re.findall(r"```[a-z]*\n(.*?)```", section, flags=re.S):
        if block.splitlines()[0].strip() == first_line:
            return block
    raise AssertionError(
        f"README.md has no snippet starting with {first_line!r} in {section_title!r}"
    )


def overrides(snippet: str) -> list[str]:
    """The ``key=value`` command-line overrides of a shell snippet (continuation lines joined,
    comments and the command itself dropped)."""
    lines = [line.split("#", 1)[0] for line in snippet.replace("\\\n", " ").splitlines()]
    return [word for line in lines for word in line.split() if "=" in word]
