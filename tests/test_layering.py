"""Module boundaries from the brief: the evaluator never imports the training add-on, importing
it (library, CLI, reward) never imports torch or trl, and the layers import one way."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

EVALUATOR = Path(__file__).resolve().parents[1] / "evaluator"


def _imports(folder: Path):
    """(path:line, imported module) for every import in ``folder``, lazy ones included."""
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                yield f"{path.relative_to(EVALUATOR.parent)}:{node.lineno}", name


def test_evaluator_imports_nothing_from_trainer_addon():
    offenders = [
        where for where, name in _imports(EVALUATOR) if name.split(".")[0] == "trainer_addon"
    ]
    assert offenders == []


def test_the_sandbox_imports_nothing_above_it():
    """The sandbox (how a process runs, the code inside the child included) knows nothing of
    harnesses, judges or grading: it imports only itself and the standard library."""
    offenders = [
        f"{where} imports {name}"
        for where, name in _imports(EVALUATOR / "sandbox")
        if name.split(".")[0] == "evaluator"
        and not name.startswith("evaluator.sandbox")
        and name != "evaluator"
    ]
    assert offenders == []


def test_importing_the_evaluator_does_not_import_torch():
    code = (
        "import sys, evaluator, evaluator.cli, evaluator.reward, evaluator.runner; "
        "from evaluator import CodeReward, Grader; "
        "heavy = sorted(m for m in ('torch', 'trl', 'transformers', 'ray') if m in sys.modules); "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
