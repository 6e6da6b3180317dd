"""Accuracy of the assertion harness against EvalPlus's official HumanEval base verdicts.

Data (see /work/shared/data/evalplus/README.md): 6 models x 164 HumanEval tasks, each with a
sanitised whole-program ``solution`` and EvalPlus's ``base_status`` ("pass"/"fail"), judged by
HumanEval's own ``check(candidate)`` tests (``HumanEval.jsonl.gz``).

Joining (``--join``):

* ``helpers`` (default): the solution as it is, then the prompt's top-level functions other
  than the entry point (``encode_cyclic``, ``encode_shift``, ``poly``...), then the tests.
  EvalPlus runs the stored ``solution`` alone and compares with expected outputs, so it needs
  nothing from the prompt; HumanEval's ``check`` however calls some prompt helpers itself
  (``check`` of HumanEval/38 calls ``encode_cyclic``). Appending them after the solution
  gives the tests what they need without lending the solution the prompt's imports.
* ``prompt`` (default): ``prompt + "\\n\\n" + solution``, then the tests. A HumanEval prompt
  ends with a function signature and docstring, which is a complete function, so the prompt is
  a valid module on its own; the solution's definitions come after it and win, while the
  prompt's imports (``from typing import List``...) and helper functions (``is_palindrome``,
  ``poly``, ``encode_cyclic``...) that the sanitiser dropped stay available. This is what
  ``continues_prompt=True`` gives a completion, applied to a whole program.
* ``solution``: the solution alone (``continues_prompt=False``), for comparison.

Plus verdicts (``--plus``): EvalPlus's ``plus_status`` is the verdict on base AND plus inputs.
Our plus verdict is our base verdict AND a pass on the ``plus_input`` of
``HumanEvalPlus-Mini.jsonl``, graded as a call-based problem whose expected outputs come from
running ``prompt + canonical_solution`` on each input in our sandbox (as ``evalplus_mbpp.py``
does), floats within ``abs_tol = atol or 1e-6``, ``rel_tol = 1e-7``. Only the **Mini** plus
inputs are available here (about 7 a task, against the hundreds of the full HumanEval+ that
produced ``plus_status``), so our plus test set is WEAKER: "we pass / they fail"
disagreements are expected and say nothing about the grader.

Usage: ``python benchmarks/accuracy/evalplus_humaneval.py [--join prompt|solution]
[--time-limit 5] [--workers 2] [--limit N] [--plus]``. Writes
``benchmarks/accuracy/results/evalplus_humaneval[_<join>][_plus].json``.
"""

from __future__ import annotations

import argparse
import ast
import glob
import gzip
import json
import os
import re
import sys
import time
from collections import Counter

from evaluator.formats.sources.humaneval import problem_from_humaneval
from evaluator.harness.assertion import program
from evaluator.runner import GradeOptions, Grader

DATA = os.environ.get("MICROCODER_SHARED_DATA", "/work/shared/data")
HUMANEVAL = f"{DATA}/human_eval/HumanEval.jsonl.gz"
HUMANEVAL_PLUS_MINI = f"{DATA}/evalplus/HumanEvalPlus-Mini.jsonl"
RESULTS = f"{DATA}/evalplus/inferenced_output_humaneval_*eval_results.json"
HERE = os.path.dirname(os.path.abspath(__file__))


def model_name(path: str) -> str:
    name = os.path.basename(path)
    name = re.sub(r"^inferenced_output_humaneval_", "", name)
    return re.sub(r"_vllm_temp_0\.0-sanitized_eval_results\.json$", "", name)


def load_problems() -> dict:
    with gzip.open(HUMANEVAL, "rt") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return {r["task_id"]: problem_from_humaneval(r) for r in records}


def load_plus_tasks() -> dict[str, dict]:
    """HumanEvalPlus-Mini tasks, ``canonical_solution`` made a whole program (prompt + body)."""
    with open(HUMANEVAL_PLUS_MINI) as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return {
        r["task_id"]: {**r, "canonical_solution": r["prompt"] + r["canonical_solution"]}
        for r in records
    }


def load_plus_status(limit: int | None) -> list[bool]:
    """EvalPlus's ``plus_status == "pass"``, in :func:`load_samples` order."""
    status = []
    for path in sorted(glob.glob(RESULTS)):
        with open(path) as handle:
            evaluated = json.load(handle)["eval"]
        for task_id in sorted(evaluated, key=lambda t: int(t.split("/")[1])):
            status.append(evaluated[task_id][0].get("plus_status") == "pass")
    return status[:limit] if limit else status


def load_samples(limit: int | None) -> list[tuple[str, str, str, bool]]:
    """(model, task_id, solution, reference pass) for every sample."""
    samples = []
    for path in sorted(glob.glob(RESULTS)):
        with open(path) as handle:
            evaluated = json.load(handle)["eval"]
        for task_id in sorted(evaluated, key=lambda t: int(t.split("/")[1])):
            entry = evaluated[task_id][0]
            status = entry["base_status"]
            assert status in ("pass", "fail"), (path, task_id, status)
            samples.append((model_name(path), task_id, entry["solution"], status == "pass"))
    return samples[:limit] if limit else samples


def prompt_helpers(problem) -> str:
    """The prompt's top-level functions other than the entry point (``encode_cyclic``,
    ``poly``...), which HumanEval's ``check`` may call itself. Imports are not included."""
    tree = ast.parse(problem.prompt)
    parts = [
        ast.get_source_segment(problem.prompt, node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name != problem.entry_point
    ]
    return "\n\n".join(p for p in parts if p)


def build(problem, solution: str, join: str) -> str:
    if join == "helpers":
        helpers = prompt_helpers(problem)
        code = solution + ("\n\n\n" + helpers if helpers else "")
        return program(problem, code, continues_prompt=False)
    if join == "prompt":
        return program(problem, problem.prompt + "\n\n" + solution, continues_prompt=False)
    return program(problem, solution, continues_prompt=False)


def _mbpp_module():
    """``evalplus_mbpp.py`` (expected outputs from the canonical solution, plus rows)."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import evalplus_mbpp

    return evalplus_mbpp


WEAKER = "our plus tests are weaker: HumanEvalPlus-Mini inputs only"


def classify_plus(row: dict) -> str:
    if row["ours_base"] != row["reference_base"]:
        return "base disagreement (see the base run)"
    if row["ours"] == "pass":
        return WEAKER
    if row["ours_plus_tests"] == "TLE":
        return "time limit: our 5 s CPU vs EvalPlus's per-input limit"
    return "unclassified"


def run_plus(args, samples, base_results) -> dict:
    """Plus verdicts: our base pass AND the Mini plus inputs, against ``plus_status``."""
    mbpp = _mbpp_module()
    from evaluator.sandbox import SandboxPool

    tasks = load_plus_tasks()
    problems = load_problems()
    task_ids = sorted({t for _, t, _, _ in samples}, key=lambda t: int(t.split("/")[1]))
    status = load_plus_status(args.limit)
    samples_plus = [(*s, p) for s, p in zip(samples, status, strict=True)]
    with SandboxPool(workers=args.workers) as pool:
        expected = mbpp.expected_outputs(pool, tasks, task_ids, args.time_limit, "plus_input")
        plus_problems = {
            t: mbpp.plus_problem(tasks[t], expected[t], tasks[t]["entry_point"]) for t in task_ids
        }
        grader = Grader(GradeOptions(time_limit=args.time_limit), pool=pool)
        plus_items = [
            (plus_problems[t], build_call_program(problems[t], s)) for _, t, s, _ in samples
        ]
        plus_results = grader.grade_many(plus_items)
    rows = mbpp.plus_rows(
        samples_plus, [r.passed for r in base_results], plus_results, plus_problems
    )
    for row in rows:
        if not row["agree"]:
            row["why"] = classify_plus(row)
    return {
        "plus_source": os.path.basename(HUMANEVAL_PLUS_MINI),
        "plus_tests": sum(len(p.tests) for p in plus_problems.values()),
        "canonical_failed_plus_tests": sum(
            value is None for t in task_ids for _, value in expected[t]
        ),
        "summary": mbpp.plus_summary(rows),
        "disagreement_causes": dict(
            Counter(r["why"].split(":")[0] for r in rows if not r["agree"]).most_common()
        ),
        "disagreements": [r for r in rows if not r["agree"]],
        "rows": rows,
    }


def build_call_program(problem, solution: str) -> str:
    """The solution as stored plus the prompt's helper functions (as ``--join helpers``)."""
    helpers = prompt_helpers(problem)
    return solution + ("\n\n\n" + helpers if helpers else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--join", choices=("helpers", "prompt", "solution"), default="helpers")
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--plus", action="store_true", help="also compare with plus_status")
    args = parser.parse_args(argv)

    problems = load_problems()
    samples = load_samples(args.limit)
    items = [(problems[t], build(problems[t], s, args.join)) for _, t, s, _ in samples]
    start = time.monotonic()
    with Grader(GradeOptions(time_limit=args.time_limit), workers=args.workers) as grader:
        results = grader.grade_many(items)
        plus_report = run_plus(args, samples, results) if args.plus else None
    elapsed = time.monotonic() - start

    rows, disagreements = [], []
    false_accepts = false_rejects = 0
    for (model, task_id, _, ref_pass), result in zip(samples, results, strict=True):
        ours = result.passed
        row = {
            "model": model,
            "task_id": task_id,
            "reference": "pass" if ref_pass else "fail",
            "ours": str(result.verdict),
            "message": result.message,
            "agree": ours == ref_pass,
        }
        rows.append(row)
        if ours != ref_pass:
            disagreements.append(row)
            false_accepts += ours and not ref_pass
            false_rejects += ref_pass and not ours
    n = len(rows)
    summary = {
        "join": args.join,
        "time_limit": args.time_limit,
        "workers": args.workers,
        "n": n,
        "agree": n - len(disagreements),
        "agreement": round((n - len(disagreements)) / n, 6) if n else None,
        "false_accepts": false_accepts,
        "false_rejects": false_rejects,
        "reference_pass": sum(s[3] for s in samples),
        "our_pass": sum(r.passed for r in results),
        "seconds": round(elapsed, 1),
    }
    suffix = "" if args.join == "helpers" else f"_{args.join}"
    suffix += "_plus" if args.plus else ""
    out = args.out or os.path.join(HERE, "results", f"evalplus_humaneval{suffix}.json")
    _mbpp_module().publish(summary, disagreements, rows, plus_report, out, width=14, message=150)
    return 0


if __name__ == "__main__":
    sys.exit(main())
