"""``mcevaluate`` run in the test's process, for the report tests (a module of its own: several
test folders have a ``conftest`` module, so tests cannot import one by name)."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner

from evaluator.cli import main


def invoke(*args: object) -> Any:
    """``mcevaluate ARGS`` in this process; the click result."""
    return CliRunner().invoke(main, [str(a) for a in args])
