"""Module boundaries from the brief: the evaluator never imports the training add-on, and
importing it (library, CLI, reward) never imports torch or trl."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

EVALUATOR = Path(__file__).resolve().parents[1] / "evaluator"


def test_evaluator_imports_nothing_from_trainer_addon():
    offenders = []
    for path in EVALUATOR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path}:{node.lineno}" for n in names if n.split(".")[0] == "trainer_addon"
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
