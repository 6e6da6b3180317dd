"""The code blocks the README's guides show (``docs/rl-frameworks.md``, ``docs/service.md``),
read from the guide, so that the framework and service tests run exactly what a reader is
told to run."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
RL_FRAMEWORKS = "rl-frameworks.md"


def guide(name: str) -> str:
    """The text of the guide ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def readme_snippet(first_line: str, guide_name: str = RL_FRAMEWORKS) -> str:
    """The one fenced code block of the guide ``docs/<guide_name>`` (default: the RL
    frameworks') whose first line is ``first_line`` (a comment naming the snippet), without
    its fences."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", guide(guide_name), flags=re.S)
    found = [block for block in blocks if block.splitlines()[0].strip() == first_line]
    if len(found) != 1:
        raise AssertionError(
            f"docs/{guide_name} has {len(found)} snippets starting with {first_line!r}, not 1"
        )
    return found[0]


def overrides(snippet: str) -> list[str]:
    """The ``key=value`` command-line overrides of a shell snippet (continuation lines joined,
    comments and the command itself dropped)."""
    lines = [line.split("#", 1)[0] for line in snippet.replace("\\\n", " ").splitlines()]
    return [word for line in lines for word in line.split() if "=" in word]
