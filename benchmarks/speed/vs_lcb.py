"""LiveCodeBench's evaluator and this project's grader side by side: same workers, one run.

Workloads (``--workloads``, default all four; ``--limit N`` programs of each, for a quick run):

``calls``   LeetCodeDataset v0.3.1 reference solutions with all their tests, call-based
            (``speed.py``'s ``leetcode`` cases). A correctness pass runs every strategy once on
            every problem; only the problems that every strategy passes are timed, so that each
            strategy does the same work (a grader that rejects a problem skips its other tests).
``stdin``   the o1-mini and o1-preview AtCoder and Codeforces programs of ``lcb_submissions``
            whose official verdict passes (``--stdin-official any``: all of them), on their
            statements' sample tests (``plain_vs_sandbox.contest_problem``: ``lcb_o1``'s AtCoder
            parser, judged ``float`` where the statement allows an error, else ``lines``, and a
            Codeforces parser, which ``lcb_o1`` lacks), the samples repeated to 30 tests. A
            correctness pass (the ``lcb`` strategy, and ours, adaptive with early exit) keeps the
            programs both pass whose every test takes under 50 ms of CPU (our per-test
            ``cpu_time``), so that the figure is the graders' overhead, not a few heavy
            programs. No floors here.
``reward``  left to ``benchmarks/reward_throughput.py``, run as a subprocess with ``--workers``
            (with ``--limit N``: ``--completions N``); its report is included in the JSON.
``wrong``   a realistic mix of right and wrong programs with their official verdicts: every o1
            program (both models) on the LeetCode problems that ``lcb_o1.leetcode_problem`` joins
            to LeetCodeDataset (all their tests) and on the AtCoder/Codeforces samples.
            LiveCodeBench stops a program at its first failing test, so a program that times out
            costs it one time limit, while our grader by default runs every test. The first round
            finds the programs that time out under any strategy; every round also times each
            strategy without them: their share of the wall time is ``1 - without / all``.
            Pass/fail per program is compared with the ``lcb`` strategy's. No floors (the
            programs are untrusted and the floors have no time limit).

Strategies (``--strategies``), all with ``--workers`` parallel workers (default 2) and the
time limit ``--time-limit`` (default 6 s, LiveCodeBench's default):

``lcb``           LiveCodeBench's own ``evaluate_generations`` (``--lcb-runner DIR``, a folder
                  holding its ``lcb_runner`` package): its ProcessPoolExecutor of ``--workers``,
                  per program a Manager and a Process, ``reliability_guard``, ``mock.patch`` of
                  stdin, the module executed once, stops at the first failing test. It makes its
                  executor inside the call, so that start-up is inside the timed section.
``lcb-pattern``   without ``--lcb-runner``: ``baselines.lcb_check``, the same pattern
                  re-implemented (no ``reliability_guard``/``mock.patch``: a bit cheaper).
``floor-once``    call-based only, trusted programs: ``baselines.floor_once_check`` in a fork
                  ProcessPoolExecutor: the module executed once, per test a fresh ``Solution()``
                  (or the function looked up again), JSON arguments decoded, the call, the
                  comparison; stops at the first failure.
``floor``         the same with the module executed again for every test
                  (``baselines.floor_check``).
``ours-adaptive`` / ``ours-submission``  ``Grader(GradeOptions(isolation=...))``, all tests (no
                  early exit: our default); ``ours-adaptive-early``: adaptive with early exit.

Method: ``--repeat K`` rounds, the order of the strategies rotated each round so that drift
on a shared machine hits each alike; each figure is the median over the rounds (every run is in
the JSON). CPU is the whole system's (caller, helpers, everything they forked and reaped),
counted with ``sandbox_overhead.py``'s snapshots. Ratios (wall and CPU) are against ``lcb`` (or
``lcb-pattern``) and ``floor-once`` measured in the same run. During each run, file descriptors
1 and 2 go to a temporary file (``stray_output`` in the JSON: what test processes print outside
their capture, LiveCodeBench's progress bar). The fork-based strategies fork this process,
which holds the workloads (and NumPy, which ``lcb_runner`` imports); our fork servers are fresh
interpreters. No timing is asserted: the script reports.

Data: ``speed.py``'s ``EVALUATOR_SHARED_DATA`` (default ``<repo>/../shared/data``; when that is
missing, ``lcb_o1.py``'s ``MICROCODER_SHARED_DATA``, default ``/work/shared/data``).

Usage: ``python benchmarks/speed/vs_lcb.py [--lcb-runner DIR] [--workloads calls,stdin,reward,
wrong] [--strategies ...] [--workers 2] [--time-limit 6] [--limit N] [--repeat K]
[--stdin-official pass|any] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _path in (HERE.parents[1], HERE.parent / "accuracy", HERE.parent, HERE):
    sys.path.insert(0, str(_path))

import baselines  # noqa: E402
import lcb_o1  # noqa: E402
import speed  # noqa: E402
from plain_vs_sandbox import contest_problem, machine  # noqa: E402
from sandbox_overhead import background_load, cpu_between, snapshot_end, snapshot_start  # noqa: E402

from evaluator.problem import Harness, Problem, TestCase, Verdict  # noqa: E402
from evaluator.runner.grading import GradeOptions  # noqa: E402
from evaluator.sandbox import Isolation  # noqa: E402

WORKLOADS = ["calls", "stdin", "reward", "wrong"]
STRATEGIES = [
    "lcb",
    "floor-once",
    "floor",
    "ours-adaptive",
    "ours-submission",
    "ours-adaptive-early",
]
FLOORS = {"floor-once": baselines.floor_once_check, "floor": baselines.floor_check}
OURS = {
    "ours-adaptive": (Isolation.ADAPTIVE, False),
    "ours-submission": (Isolation.SUBMISSION, False),
    "ours-adaptive-early": (Isolation.ADAPTIVE, True),
}
STDIN_TESTS = 30
MAX_TEST_CPU_S = 0.050
REWARD_SCRIPT = HERE / "rl_reward.py"


# -- items ---------------------------------------------------------------------------------------


def call_payload(problem: Problem, code: str) -> dict[str, Any]:
    """A call-based program as ``baselines`` takes it (python arguments and expected values)."""
    return {
        "code": code,
        "func_name": problem.func_name,
        "inputs_text": [t.input for t in problem.tests],
        "inputs": [
            [json.loads(a) for a in t.input.split("\n")] if t.input else [] for t in problem.tests
        ],
        "expected": [json.loads(t.output) for t in problem.tests],
    }


@dataclass
class Item:
    """One program on one problem, in the forms every strategy takes."""

    id: str
    problem: Problem
    code: str
    official: bool | None = None  # LiveCodeBench's official verdict (the o1 programs)
    bare_cpu: float | None = None  # the calls' own CPU in a bare loop (trusted programs)
    floor: dict[str, Any] | None = field(default=None, repr=False)  # the floors' payload

    @property
    def tests(self) -> int:
        return len(self.problem.tests)

    @property
    def call_based(self) -> bool:
        return self.problem.harness is Harness.FUNCTIONAL

    def lcb_sample(self) -> dict[str, str]:
        """The sample LiveCodeBench's ``evaluate_generations`` takes."""
        tests = self.problem.tests
        spec = {"inputs": [t.input for t in tests], "outputs": [t.output for t in tests]}
        if self.call_based:
            spec["fn_name"] = self.problem.func_name
        return {"input_output": json.dumps(spec)}

    def lcb_pattern(self) -> tuple[str, dict[str, Any]]:
        """(kind, payload) for ``baselines.lcb_check``."""
        if self.call_based:
            return "call", self.floor or call_payload(self.problem, self.code)
        tests = self.problem.tests
        return "stdin", {
            "code": self.code,
            "inputs": [t.input for t in tests],
            "outputs": [t.output for t in tests],
        }


ECHO = Item(
    "warm-up", Problem("warm-up", Harness.STDIN, [TestCase("1\n", "1\n")]), "print(input())"
)


def round_robin(groups: list[list[Item]]) -> list[Item]:
    """Items taken from each group in turn (so that ``--limit`` keeps the mix)."""
    return [i for row in itertools.zip_longest(*groups) for i in row if i is not None]


def calls_items(limit: int | None) -> list[Item]:
    cases = speed.leetcode_cases(limit or 10**9)
    return [
        Item(c.id, c.problem, c.ours_code, bare_cpu=c.bare_cpu, floor=c.lcb_payload) for c in cases
    ]


def o1_items(platforms: tuple[str, ...], only_official_pass: bool) -> tuple[list[Item], Counter]:
    """The o1 programs (both models, round robin) on ``platforms``; skip reasons counted."""
    lcd = lcb_o1.load_leetcodedataset() if "leetcode" in platforms else {}
    groups, skipped = [], Counter()
    for model in lcb_o1.MODELS:
        group = []
        for record in lcb_o1.load_records(model):
            official = bool(record["graded_list"][0])
            code = record["code_list"][0] if record["code_list"] else None
            if record["platform"] not in platforms or (only_official_pass and not official):
                continue
            if not code:
                skipped[f"{record['platform']}: no code"] += 1
                continue
            try:
                if record["platform"] == "leetcode":
                    problem = lcb_o1.leetcode_problem(record, lcd)
                else:
                    problem = contest_problem(record)
            except lcb_o1.Skip as exc:
                skipped[f"{record['platform']}: {exc}"] += 1
                continue
            name = f"{model}/{record['platform']}/{record['question_id']}"
            group.append(Item(name, problem, code, official=official))
        groups.append(group)
    return round_robin(groups), skipped


def stdin_items(limit: int | None, only_official_pass: bool) -> tuple[list[Item], Counter]:
    items, skipped = o1_items(("atcoder", "codeforces"), only_official_pass)
    for item in items:
        samples = item.problem.tests
        item.problem = replace(item.problem, tests=(samples * STDIN_TESTS)[:STDIN_TESTS])
    return items[:limit], skipped


def wrong_items(limit: int | None) -> tuple[list[Item], Counter]:
    leetcode, skipped = o1_items(("leetcode",), False)
    contest, more = o1_items(("atcoder", "codeforces"), False)
    return round_robin([leetcode, contest])[:limit], skipped + more


# -- strategies ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    passed: bool
    detail: str
    tests_run: int | None = None  # None: not known
    timed_out: bool = False
    max_test_cpu: float | None = None


@dataclass
class Context:
    workers: int
    time_limit: float
    lcb: str  # "lcb" or "lcb-pattern"
    evaluate: Any = None  # LiveCodeBench's evaluate_generations
    warm: list[Item] = field(default_factory=list)

    @property
    def alarm(self) -> int:  # signal.alarm takes whole seconds
        return max(1, round(self.time_limit))


def lcb_outcome(grades: list, meta: dict) -> Outcome:
    """One result of ``evaluate_generations``: True per passed test, then False or -2 (WA),
    -3 (TLE), -4 (RE), or -1 per test for the global timeout; stops at the first failure."""
    detail = " ".join(str(meta.get(k, "")) for k in ("error_message", "error")).strip()
    return Outcome(
        all(g > 0 for g in grades),  # LiveCodeBench's own rule (extract_instance_results)
        detail[:160],
        tests_run=None if -1 in grades else len(grades),
        timed_out=-3 in grades or -1 in grades,
    )


def run_lcb(items: list[Item], ctx: Context):
    samples = [i.lcb_sample() for i in items]
    generations = [[i.code] for i in items]
    start = snapshot_start()
    results, metadata = ctx.evaluate(
        samples, generations, num_process_evaluate=ctx.workers, timeout=ctx.alarm
    )
    end = snapshot_end()
    return start, end, [lcb_outcome(results[n][0], metadata[n][0]) for n in range(len(items))]


def run_lcb_pattern(items: list[Item], ctx: Context):
    args = [(*i.lcb_pattern(), ctx.alarm) for i in items]
    warm = [(*i.lcb_pattern(), ctx.alarm) for i in ctx.warm]
    start, end, out = speed._executor_run(baselines.lcb_check, args, warm, ctx.workers)
    timeouts = ("timed out", "global timeout / no result")
    return start, end, [Outcome(bool(v), m, timed_out=m in timeouts) for v, m in out]


def run_floor(name: str, items: list[Item], ctx: Context):
    if any(i.floor is None for i in items + ctx.warm):
        raise ValueError("the in-process floors run trusted call-based programs only")
    payloads = [i.floor for i in items]
    warm = [i.floor for i in ctx.warm]
    start, end, out = speed._executor_run(FLOORS[name], payloads, warm, ctx.workers)
    return start, end, [Outcome(v, m) for v, m in out]


def ours_outcome(result) -> Outcome:
    ran = [t for t in result.tests if t.verdict is not Verdict.SKIPPED]
    return Outcome(
        result.passed,
        f"{result.verdict}: {result.message[:120]}",
        tests_run=len(ran),
        timed_out=any(t.verdict is Verdict.TLE for t in ran),
        max_test_cpu=max((t.cpu_time for t in ran), default=0.0),
    )


def run_ours(name: str, items: list[Item], ctx: Context):
    isolation, early = OURS[name]
    options = GradeOptions(isolation=isolation, time_limit=ctx.time_limit, early_exit=early)
    pairs = [(i.problem, i.code) for i in items]
    warm = [(i.problem, i.code) for i in ctx.warm]
    start, end, results = speed.grade_timed(options, ctx.workers, pairs, warm)
    return start, end, [ours_outcome(r) for r in results]


@contextlib.contextmanager
def stray_output():
    """File descriptors 1 and 2 sent to a temporary file, whose lines are counted: what test
    processes write outside their capture (LiveCodeBench's: threads that print after it read
    the output, its "timeout occured" line, faulthandler dumps; its tqdm bar). Descriptors,
    not ``sys.stderr``: its forked test processes call ``faulthandler.enable()``, which needs
    a real file behind ``sys.stderr``."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    found: dict[str, Any] = {}
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield found
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
            sink.seek(0)
            lines = sink.read().decode(errors="replace").splitlines()
            found["lines"] = len(lines)
            found["head"] = lines[:5]


def measure(name: str, items: list[Item], ctx: Context) -> tuple[dict[str, Any], list[Outcome]]:
    """One timed run of strategy ``name`` on ``items``: its row and its outcomes."""
    with stray_output() as stray:
        if name == "lcb":
            start, end, outcomes = run_lcb(items, ctx)
        elif name == "lcb-pattern":
            start, end, outcomes = run_lcb_pattern(items, ctx)
        elif name in FLOORS:
            start, end, outcomes = run_floor(name, items, ctx)
        else:
            start, end, outcomes = run_ours(name, items, ctx)
    run = [o.tests_run for o in outcomes]
    row = {
        "strategy": name,
        "items": len(items),
        "tests": sum(i.tests for i in items),
        "wall_s": end.wall - start.wall,
        "cpu_s": cpu_between(start, end),
        "passed": sum(o.passed for o in outcomes),
        "timed_out": sum(o.timed_out for o in outcomes),
        "tests_run": None if None in run else sum(run),
        "stray_output": stray,
    }
    return row, outcomes


# -- rounds, medians, ratios ---------------------------------------------------------------------


def rounds(strategies: list[str], items: list[Item], ctx: Context, repeat: int, label: str):
    """``repeat`` rounds of every strategy (order rotated each round): runs and first outcomes."""
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in strategies}
    outcomes: dict[str, list[Outcome]] = {}
    for r in range(repeat):
        for name in strategies[r % len(strategies) :] + strategies[: r % len(strategies)]:
            row, got = measure(name, items, ctx)
            runs[name].append(row)
            outcomes.setdefault(name, got)
            print(
                f"  [{label} {r + 1}/{repeat}] {name:20s} wall {row['wall_s']:8.2f} s  "
                f"CPU {row['cpu_s']['total']:8.2f} s  passed {row['passed']}/{row['items']}",
                flush=True,
            )
    return runs, outcomes


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    row = dict(runs[0])
    row["wall_s"] = statistics.median(r["wall_s"] for r in runs)
    row["cpu_s"] = {k: statistics.median(r["cpu_s"][k] for r in runs) for k in runs[0]["cpu_s"]}
    row["runs"] = len(runs)
    return row


def with_ratios(runs: dict[str, list[dict[str, Any]]], ctx: Context) -> list[dict[str, Any]]:
    """Median rows with rates and ratios against ``lcb``/``lcb-pattern`` and ``floor-once``."""
    rows = {name: median_row(r) for name, r in runs.items() if r}
    for row in rows.values():
        row["tests_per_s"] = row["tests"] / row["wall_s"]
        row["items_per_s"] = row["items"] / row["wall_s"]
        row["cpu_ms_per_test"] = 1000 * row["cpu_s"]["total"] / max(row["tests"], 1)
        for base in (ctx.lcb, "floor-once"):
            if base in rows:
                row[f"wall_x_{base}"] = row["wall_s"] / rows[base]["wall_s"]
                row[f"cpu_x_{base}"] = row["cpu_s"]["total"] / rows[base]["cpu_s"]["total"]
    return list(rows.values())


def agreement(items: list[Item], outcomes: dict[str, list[Outcome]], reference: str) -> dict:
    """Pass/fail per program of every strategy against ``reference``."""
    ref = outcomes[reference]
    out = {}
    for name, got in outcomes.items():
        diffs = [
            {"id": item.id, "official": item.official, name: g.detail, reference: r.detail}
            for item, g, r in zip(items, got, ref, strict=True)
            if g.passed != r.passed
        ]
        out[name] = {"agree": len(items) - len(diffs), "of": len(items), "disagreements": diffs}
    return out


def ratio(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.2f}x" if key in row else "-"


def print_table(rows: list[dict[str, Any]], ctx: Context) -> None:
    print(
        f"  {'strategy':20s} {'wall s':>8s} {'tests/s':>8s} {'CPU s':>8s} {'CPU ms/test':>11s} "
        f"{'wall x ' + ctx.lcb:>18s} {'CPU x ' + ctx.lcb:>17s} {'wall x floor-once':>17s} "
        f"{'CPU x floor-once':>16s} {'passed':>10s}"
    )
    for r in rows:
        print(
            f"  {r['strategy']:20s} {r['wall_s']:8.2f} {r['tests_per_s']:8.0f} "
            f"{r['cpu_s']['total']:8.2f} {r['cpu_ms_per_test']:11.3f} "
            f"{ratio(r, 'wall_x_' + ctx.lcb):>18s} {ratio(r, 'cpu_x_' + ctx.lcb):>17s} "
            f"{ratio(r, 'wall_x_floor-once'):>17s} {ratio(r, 'cpu_x_floor-once'):>16s} "
            f"{r['passed']:>5d}/{r['items']:<4d}",
            flush=True,
        )


# -- workloads -----------------------------------------------------------------------------------


def passed_by_all(items: list[Item], outcomes: dict[str, list[Outcome]]) -> list[Item]:
    return [i for n, i in enumerate(items) if all(got[n].passed for got in outcomes.values())]


def failures(items: list[Item], outcomes: dict[str, list[Outcome]]) -> dict[str, dict[str, str]]:
    """Per strategy, the programs it failed and why."""
    return {
        name: {i.id: o.detail for i, o in zip(items, got, strict=True) if not o.passed}
        for name, got in outcomes.items()
    }


def print_dropped(items: list[Item], outcomes: dict[str, list[Outcome]], shown: int = 10) -> None:
    """The programs left out of the timed set, by the strategy that failed them and why (the
    first ``shown`` of each), so that a figure says which work it is not over."""
    for name, failed in failures(items, outcomes).items():
        if failed:
            listed = ", ".join(f"{key} ({why[:60]})" for key, why in list(failed.items())[:shown])
            more = f" and {len(failed) - shown} more" if len(failed) > shown else ""
            print(f"  dropped, {name} fails {len(failed)}: {listed}{more}", flush=True)


def bench_calls(strategies: list[str], ctx: Context, args) -> dict[str, Any]:
    items = calls_items(args.limit)
    print(f"\n== calls: {len(items)} problems, {sum(i.tests for i in items)} tests", flush=True)
    ctx.warm = items[: ctx.workers]
    screen, screened = rounds(strategies, items, ctx, 1, "correctness")
    common = passed_by_all(items, screened)
    tests = sum(i.tests for i in common)
    print(f"  timed: the {len(common)} problems ({tests} tests) every strategy passes", flush=True)
    print_dropped(items, screened)
    ctx.warm = common[: ctx.workers]
    runs, timed = rounds(strategies, common, ctx, args.repeat, "calls") if common else ({}, {})
    rows = with_ratios(runs, ctx)
    print_table(rows, ctx)
    light = bench_light_calls(strategies, ctx, args, items, common, screened)
    bare = sum(i.bare_cpu or 0.0 for i in common)
    return {
        "light": light,
        "problems": len(items),
        "tests": sum(i.tests for i in items),
        "common_problems": len(common),
        "common_tests": tests,
        "bare_cpu_s": bare,
        "correctness_pass": {n: r[0] for n, r in screen.items()},
        "failed_by": failures(items, screened),
        "failed_when_timed": failures(common, timed),  # first timed round: flaky verdicts
        "rows": rows,
        "runs": runs,
    }


def bench_light_calls(strategies, ctx: Context, args, items, common, screened) -> dict:
    """The same, on the problems whose every test takes under ``MAX_TEST_CPU_S`` of CPU (as
    the stdin suite keeps them): a few references that compute for seconds per test make
    the whole set's figure their own run time, the same for every grader; this one is what
    graders add."""
    if "ours-adaptive" not in screened:
        return {}
    cpu = {i.id: o.max_test_cpu for i, o in zip(items, screened["ours-adaptive"], strict=True)}
    light = [i for i in common if cpu[i.id] < MAX_TEST_CPU_S]
    tests = sum(i.tests for i in light)
    print(
        f"  light: the {len(light)} of them ({tests} tests) whose every test takes under "
        f"{1000 * MAX_TEST_CPU_S:.0f} ms of CPU",
        flush=True,
    )
    ctx.warm = light[: ctx.workers]
    runs, _ = rounds(strategies, light, ctx, args.repeat, "light calls") if light else ({}, {})
    rows = with_ratios(runs, ctx)
    print_table(rows, ctx)
    return {"problems": len(light), "tests": tests, "rows": rows, "runs": runs}


def bench_stdin(strategies: list[str], ctx: Context, args) -> dict[str, Any]:
    items, skipped = stdin_items(args.limit, args.stdin_official == "pass")
    strategies = [s for s in strategies if s not in FLOORS]
    print(f"\n== stdin: {len(items)} programs x {STDIN_TESTS} tests (skipped {dict(skipped)})")
    ctx.warm = [ECHO] * ctx.workers
    # Early exit: the same per-test CPU for a program that passes, less work for the others.
    screen, screened = rounds([ctx.lcb, "ours-adaptive-early"], items, ctx, 1, "correctness")
    passing = passed_by_all(items, screened)
    cpu = {
        i.id: o.max_test_cpu for i, o in zip(items, screened["ours-adaptive-early"], strict=True)
    }
    kept = [i for i in passing if cpu[i.id] < MAX_TEST_CPU_S]
    print_dropped(items, screened)
    print(
        f"  both pass: {len(passing)}; every test under {1000 * MAX_TEST_CPU_S:.0f} ms CPU: "
        f"{len(kept)} programs ({len(kept) * STDIN_TESTS} tests)",
        flush=True,
    )
    ctx.warm = kept[: ctx.workers]
    runs, timed = rounds(strategies, kept, ctx, args.repeat, "stdin") if kept else ({}, {})
    rows = with_ratios(runs, ctx)
    print_table(rows, ctx)
    return {
        "official_filter": args.stdin_official,
        "candidates": len(items),
        "skipped": dict(skipped),
        "passed_by_both": len(passing),
        "programs": len(kept),
        "tests": len(kept) * STDIN_TESTS,
        "dropped_heavy": {i.id: cpu[i.id] for i in passing if cpu[i.id] >= MAX_TEST_CPU_S},
        "correctness_pass": {n: r[0] for n, r in screen.items()},
        "agreement": agreement(items, screened, ctx.lcb),
        "failed_when_timed": failures(kept, timed),  # first timed round: flaky verdicts
        "rows": rows,
        "runs": runs,
    }


def print_wrong(rows: list[dict[str, Any]], agree: dict, ctx: Context) -> None:
    print(
        f"  {'strategy':20s} {'wall s':>8s} {'w/o t/o s':>9s} {'t/o share':>9s} {'prog/s':>7s} "
        f"{'CPU s':>8s} {'tests run':>9s} {'wall x ' + ctx.lcb:>18s} {'CPU x ' + ctx.lcb:>17s} "
        f"{'passed':>10s} {'agree w/ ' + ctx.lcb:>20s}"
    )
    for r in rows:
        a = agree[r["strategy"]]
        print(
            f"  {r['strategy']:20s} {r['wall_s']:8.2f} {r['wall_s_without_timeouts']:9.2f} "
            f"{r['timeouts_share_of_wall']:9.1%} {r['items_per_s']:7.1f} {r['cpu_s']['total']:8.2f} "
            f"{r['tests_run'] if r['tests_run'] is not None else '-':>9} "
            f"{ratio(r, 'wall_x_' + ctx.lcb):>18s} {ratio(r, 'cpu_x_' + ctx.lcb):>17s} "
            f"{r['passed']:>5d}/{r['items']:<4d} {a['agree']:>14d}/{a['of']:<5d}",
            flush=True,
        )


def bench_wrong(strategies: list[str], ctx: Context, args) -> dict[str, Any]:
    items, skipped = wrong_items(args.limit)
    strategies = [s for s in strategies if s not in FLOORS]
    official = sum(bool(i.official) for i in items)
    print(
        f"\n== wrong: {len(items)} programs ({sum(i.call_based for i in items)} LeetCode), "
        f"{sum(i.tests for i in items)} tests, {official} pass officially (skipped {dict(skipped)})",
        flush=True,
    )
    ctx.warm = [ECHO] * ctx.workers
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in strategies}
    rest_runs: dict[str, list[dict[str, Any]]] = {s: [] for s in strategies}
    outcomes: dict[str, list[Outcome]] = {}
    rest: list[Item] = items
    for r in range(args.repeat):
        order = strategies[r % len(strategies) :] + strategies[: r % len(strategies)]
        one, got = rounds(order, items, ctx, 1, f"all {r + 1}")
        for name in strategies:
            runs[name] += one[name]
        if r == 0:
            outcomes = got
            rest = [i for n, i in enumerate(items) if not any(o[n].timed_out for o in got.values())]
            print(f"  {len(items) - len(rest)} programs time out under some strategy", flush=True)
        if 0 < len(rest) < len(items):
            one, _ = rounds(order, rest, ctx, 1, f"without them {r + 1}")
            for name in strategies:
                rest_runs[name] += one[name]
    rows = with_ratios(runs, ctx)
    rest_rows = {row["strategy"]: row for row in with_ratios(rest_runs, ctx)}
    for row in rows:
        if len(rest) == len(items):  # nothing timed out
            wall = row["wall_s"]
        else:
            wall = rest_rows[row["strategy"]]["wall_s"] if rest else 0.0
        row["wall_s_without_timeouts"] = wall
        row["timeouts_share_of_wall"] = 1 - wall / row["wall_s"]
    agree = agreement(items, outcomes, ctx.lcb) if ctx.lcb in outcomes else {}
    if agree:
        print_wrong(rows, agree, ctx)
    else:
        print_table(rows, ctx)
    kept = {i.id for i in rest}
    timing_out = [i.id for i in items if i.id not in kept]
    return {
        "programs": len(items),
        "leetcode_programs": sum(i.call_based for i in items),
        "tests": sum(i.tests for i in items),
        "official_pass": official,
        "skipped": dict(skipped),
        "timing_out": timing_out,
        "timed_out_by": {
            n: [i.id for i, o in zip(items, got, strict=True) if o.timed_out]
            for n, got in outcomes.items()
        },
        "agreement": agree,
        "rows": rows,
        "rows_without_timeouts": list(rest_rows.values()),
        "runs": runs,
        "runs_without_timeouts": rest_runs,
    }


def bench_reward(args) -> dict[str, Any]:
    """``rl_reward.py`` (the RL reward: two problems, TRL's call, LiveCodeBench's evaluator
    and its pattern) with this run's workers, LiveCodeBench checkout and repeats."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "reward.json"
        command = [sys.executable, str(REWARD_SCRIPT), "--workers", str(args.workers)]
        command += ["--json", str(out), "--repeat", str(max(args.repeat, 3))]
        if args.lcb_runner:
            command += ["--lcb-runner", args.lcb_runner]
        if args.limit:
            command += ["--completions", str(args.limit)]
        print(f"\n== reward: {' '.join(command[1:])}", flush=True)
        done = subprocess.run(command, capture_output=True, text=True)
        print("\n".join("  " + line for line in done.stdout.splitlines()), flush=True)
        if done.returncode:
            print(f"  rl_reward.py exited {done.returncode}: {done.stderr[-2000:]}")
        report = json.loads(out.read_text()) if out.exists() else None
    return {"command": command[1:], "returncode": done.returncode, "report": report}


# -- main ----------------------------------------------------------------------------------------


def load_lcb(folder: str | None):
    """LiveCodeBench's ``evaluate_generations`` from ``folder``, or None (the pattern)."""
    if folder is None:
        return None
    sys.path.insert(0, str(Path(folder).resolve()))
    from lcb_runner.evaluation.compute_code_generation_metrics import (  # noqa: PLC0415
        evaluate_generations,
    )

    return evaluate_generations


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lcb-runner", help="a folder holding LiveCodeBench's lcb_runner package")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=6.0, help="seconds per test")
    parser.add_argument("--limit", type=int, default=None, help="programs per workload")
    parser.add_argument("--repeat", type=int, default=1, help="rounds; figures are medians")
    parser.add_argument("--stdin-official", choices=("pass", "any"), default="pass")
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    unknown = set(args.workloads.split(",")) - set(WORKLOADS)
    unknown |= set(args.strategies.split(",")) - set(STRATEGIES) - {"lcb-pattern"}
    if unknown:
        parser.error(f"unknown workloads/strategies: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (speed.DATA / "leetcodedataset").exists():
        speed.DATA = Path(lcb_o1.DATA)
    evaluate = load_lcb(args.lcb_runner)
    lcb = "lcb" if evaluate else "lcb-pattern"
    ctx = Context(args.workers, args.time_limit, lcb, evaluate)
    # "lcb" is the real evaluator when --lcb-runner gives it, else the pattern
    strategies = [lcb if s == "lcb" else s for s in args.strategies.split(",")]
    info = machine() | {
        "loadavg_start": os.getloadavg(),
        "background_cores_busy": background_load(1.0),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    print(f"machine: {info}\nstrategies: {strategies} (baseline {lcb})", flush=True)
    report: dict[str, Any] = {"machine": info, "args": vars(args), "workloads": {}}
    benches = {"calls": bench_calls, "stdin": bench_stdin, "wrong": bench_wrong}
    for workload in args.workloads.split(","):
        if workload == "reward":
            report["workloads"][workload] = bench_reward(args)
        else:
            report["workloads"][workload] = benches[workload](strategies, ctx, args)
    info["loadavg_end"] = os.getloadavg()
    info["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1, default=vars) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
