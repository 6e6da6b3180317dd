"""The reference run of a call-based program: as its judge runs it (LeetCode; LiveCodeBench and
EvalPlus alike): one plain ``python3`` process, the module executed once as ``__main__``, then
for each test a fresh ``Solution()`` (or the top-level function looked up again) called with
the test's arguments (NumPy values in what it returns compare as their ``tolist()``, the
documented rule; an in-place problem's answer is its ``output_arg`` argument after the call,
as LeetCode judges "modify nums in-place"). ``module_once=False`` runs each test in a process
of its own instead: the reference of ``--isolation test``."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from evaluator.sandbox.reference import child_environment

CASES_FILE = Path(__file__).with_name("call_cases.toml")

_DRIVER = r"""
import json, sys

case = json.loads(sys.stdin.readline())
namespace = None


def plain(value):
    # the documented rule: NumPy values compare as their plain values (tolist())
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(type(value).__name__)


def load():
    module = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(case["source"], "solution.py", "exec"), module)
    return module


for text in case["inputs"]:
    try:
        if namespace is None or not case["module_once"]:
            namespace = None
            namespace = load()
        solution = namespace.get("Solution")
        name = case["func_name"]
        target = getattr(solution(), name) if isinstance(solution, type) and hasattr(solution, name) else namespace[name]
        args = [json.loads(line) for line in text.split("\n") if line.strip()]
        value = target(*args)
        if case["output_arg"] is not None:  # an in-place problem: the argument is the answer
            value = args[case["output_arg"]]
        outcome = {"status": "ok", "value": value}
    except Exception as exc:
        outcome = {"status": "exception", "exception": type(exc).__name__}
    sys.__stderr__.write(json.dumps(outcome, default=plain) + "\n")
"""


@dataclass(frozen=True)
class CallCase:
    name: str
    source: str
    func_name: str
    inputs: list[str]
    deviation: str | None = None
    output_arg: int | None = None  # in-place problems: the argument judged after the call


def load_call_cases() -> list[CallCase]:
    with CASES_FILE.open("rb") as file:
        table = tomllib.load(file)
    return [
        CallCase(
            name,
            f["source"].lstrip("\n"),
            f["func_name"],
            f["inputs"],
            f.get("deviation"),
            f.get("output_arg"),
        )
        for name, f in table.items()
    ]


def run_judge(case: CallCase, module_once: bool = True, tmp_dir: str = ".") -> list[dict]:
    """Each test's outcome: ``{"status": "ok", "value": ...}`` or ``{"status": "exception",
    "exception": name}`` (outcomes travel on stderr: the program owns stdout). With
    ``module_once`` False each test runs in a process of its own, as ``--isolation test``
    runs it: nothing of one test (module, interpreter settings) reaches the next."""
    if not module_once:
        return [
            outcome for text in case.inputs for outcome in _judge_process(case, [text], tmp_dir)
        ]
    return _judge_process(case, case.inputs, tmp_dir)


def _judge_process(case: CallCase, inputs: list[str], tmp_dir: str) -> list[dict]:
    """The outcomes of ``inputs`` run one after another in one judge process."""
    payload = {"source": case.source, "func_name": case.func_name, "inputs": inputs}
    payload["output_arg"] = case.output_arg
    payload["module_once"] = True
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps(payload) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_dir,
        env=child_environment(tmp_dir),
        timeout=60,
    )
    return [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
