"""Plain pytest as KodCode's authors run it, the reference of the pytest-file tests
(``test_pytest_real.py``, ``tests/formats/test_kodcode.py``): ``solution.py`` and
``test_solution.py`` (``"from solution import *\\n\\n"`` + the tests) in a scratch directory,
``pytest --rootdir=.`` there.

The ``pytest`` script of this environment, as the authors ran it (``python -m pytest`` puts
runpy's frames on the stack: a test may recurse three calls less deep), with plugins not
autoloaded, as in the sandbox: the verdicts under test are the sandbox's, not those of
whatever plugins a machine has installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from evaluator.harness import pytest_file


def plain_pytest(program: str, tests: str, where: Path) -> bool:
    """Whether plain pytest passes ``tests`` on ``program`` (exit status 0), run in
    ``where`` (made if missing)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "solution.py").write_text(program, encoding="utf-8")
    (where / "test_solution.py").write_text(pytest_file.TESTS_PREFIX + tests, encoding="utf-8")
    script = Path(sys.executable).with_name("pytest")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pytest"]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environment.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [*command, "--rootdir=."],
        cwd=where,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    return done.returncode == 0
