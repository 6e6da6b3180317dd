"""Python: the sandbox runs it itself (fork servers, a plain run rebuilt in each child;
``docs/plain-run.md``), so this module only describes it. There is no build step: a syntax
error is the program's runtime error, as in a plain run of ``python3 solution.py``."""

from __future__ import annotations

import platform
import sys

from .base import Language

__all__ = ["LANGUAGE", "Python"]


class Python(Language):
    name = "python"
    title = "Python 3"
    extensions = (".py",)
    fence_tags = ("python", "py", "python3", "py3")
    compiled = False

    def version(self) -> str:
        """The interpreter the fork servers run (this one)."""
        return f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"


LANGUAGE = Python()
