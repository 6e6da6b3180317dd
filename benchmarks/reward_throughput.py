"""Reward throughput: CodeReward against two common reward patterns, measured in one run.

Workload: ``--completions`` model answers (fenced Python) to stdin problems of ``--tests``
tests each (sum of a line of integers), a realistic mix: 50% correct, 25% wrong (fail at a
random test), 15% crashing (an exception at a random test), 10% looping forever. Binary
reward with early exit for every strategy (stop at the first failing test), per-test time
limit ``--time-limit`` (default 1 s), ``--workers`` parallel workers for every strategy.

Strategies:

``codereward-adaptive`` / ``codereward-submission`` / ``codereward-test``
    :class:`evaluator.CodeReward` with isolation ``adaptive`` (the default), ``submission`` or
    ``test``;
    its pool is warm before timing starts (as between the calls of a training run).
``subprocess-per-test`` (baseline a)
    a fresh ``python -I -c CODE`` per test (``subprocess.run`` with the test on stdin and a
    wall-clock timeout), a ThreadPoolExecutor of ``--workers`` threads over completions.
``process-manager`` (baseline b, LiveCodeBench's pattern)
    a ProcessPoolExecutor of ``--workers`` processes; per completion a
    ``multiprocessing.Manager()`` and one ``multiprocessing.Process`` running the tests
    in-process (``sys.stdin``/``sys.stdout`` swapped for ``io.StringIO``, ``exec`` of the
    program as ``__main__``, a ``signal.alarm`` timeout per test), joined with LiveCodeBench's
    global timeout, then the Manager is shut down. No ``reliability_guard``/``mock.patch``:
    if anything cheaper than the real thing.

Looping programs cost every strategy the same time limit, so each strategy is timed in two
batches, the non-looping completions and the looping ones; the table gives rates over the
whole mix and over the non-looping part. Baselines run ``--baseline-completions`` (same mix)
to keep the default run under ~3 minutes on 2 cores, and at most ``--max-loops`` looping
completions are timed per strategy, their time scaled to the mix's count; all numbers are
per-unit rates. ``--ballast-mb`` makes the caller trainer-sized (forks copy its page tables). Every
reward is checked against the completion's category; a mismatch voids the run (exit 1).

``--soak N``: N reward calls of 8 completions in a loop, printing processes, fds, threads,
temp entries and RSS at the start and the end.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from evaluator import CodeReward, GradeOptions, Isolation
from evaluator.formats import extract_code

CORRECT = [
    "print(sum(map(int, input().split())))",
    "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))",
    "def main():\n    nums = list(map(int, input().split()))\n    total = 0\n    for n in nums:\n"
    "        total += n\n    print(total)\n\nmain()",
]


def make_mix(count: int, tests: int, seed: int = 7) -> tuple[list[dict], list[tuple[str, str]]]:
    """Tests of one problem family and ``count`` (category, answer) pairs in a fixed mix."""
    rng = random.Random(seed)
    cases = []
    for _ in range(tests):
        nums = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 30))]
        cases.append({"input": " ".join(map(str, nums)) + "\n", "output": f"{sum(nums)}\n"})
    kinds = ["correct"] * 50 + ["wrong"] * 25 + ["crash"] * 15 + ["loop"] * 10
    answers = []
    for i in range(count):
        kind = kinds[i * len(kinds) // count] if count >= len(kinds) else kinds[(i * 37) % 100]
        at = rng.randrange(tests)  # the test at which a wrong/crashing program goes wrong
        if kind == "correct":
            code = CORRECT[i % len(CORRECT)]
        elif kind == "wrong":
            bad = cases[at]["input"]
            code = (
                f"s = input()\nprint(sum(map(int, s.split())) + (1 if s + '\\n' == {bad!r} else 0))"
            )
        elif kind == "crash":
            bad = cases[at]["input"]
            code = f"s = input()\nif s + '\\n' == {bad!r}:\n    raise ValueError('boom')\nprint(sum(map(int, s.split())))"
        else:
            code = "n = 0\nwhile True:\n    n += 1"
        answers.append((kind, f"Reasoning...\n```python\n{code}\n```\n"))
    return cases, answers


def lines_equal(got: str, want: str) -> bool:
    def norm(text: str) -> list[str]:
        rows = [row.rstrip() for row in text.split("\n")]
        while rows and not rows[-1]:
            rows.pop()
        return rows

    return norm(got) == norm(want)


# --- baseline a: a subprocess per test --------------------------------------------------------


def subprocess_reward(code: str | None, tests: list[dict], limit: float) -> tuple[float, int]:
    if code is None:
        return 0.0, 0
    run = 0
    for test in tests:
        run += 1
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", code],
                input=test["input"],
                capture_output=True,
                text=True,
                timeout=limit,
            )
        except subprocess.TimeoutExpired:
            return 0.0, run
        if done.returncode != 0 or not lines_equal(done.stdout, test["output"]):
            return 0.0, run
    return 1.0, run


# --- baseline b: multiprocessing.Process + Manager per completion (LiveCodeBench) --------------


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def _run_in_process(code: str, tests: list[dict], limit: float, results) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    for test in tests:
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = io.StringIO(test["input"]), io.StringIO()
        signal.alarm(max(1, int(limit)))
        try:
            exec(compile(code, "<solution>", "exec"), {"__name__": "__main__"})
            got, ok = sys.stdout.getvalue(), True
        except BaseException:  # noqa: BLE001 - the baseline's own crash handling
            got, ok = "", False
        finally:
            signal.alarm(0)
            sys.stdin, sys.stdout = stdin, stdout
        passed = ok and lines_equal(got, test["output"])
        results.append(passed)
        if not passed:
            return


def manager_reward(code: str | None, tests: list[dict], limit: float) -> tuple[float, int]:
    if code is None:
        return 0.0, 0
    manager = multiprocessing.Manager()
    try:
        results = manager.list()
        process = multiprocessing.Process(
            target=_run_in_process, args=(code, tests, limit, results)
        )
        process.start()
        process.join(timeout=(limit + 1) * len(tests) + 5)
        if process.is_alive():
            process.kill()
            process.join()
        outcome = list(results)
    finally:
        manager.shutdown()
    passed = len(outcome) == len(tests) and all(outcome)
    return (1.0 if passed else 0.0), len(outcome)


def _baseline_task(args: tuple[str, str, list[dict], float]) -> tuple[float, int]:
    kind, answer, tests, limit = args
    code = extract_code(answer)
    if kind == "subprocess":
        return subprocess_reward(code, tests, limit)
    return manager_reward(code, tests, limit)


# --- measuring ----------------------------------------------------------------------------------


def time_codereward(reward: CodeReward, answers, tests) -> tuple[float, list[float], int]:
    started = time.perf_counter()
    rewards = reward(None, [a for _, a in answers], tests=[tests] * len(answers))
    elapsed = time.perf_counter() - started
    run = sum(
        sum(t.verdict != "SKIPPED" for t in r.tests) for r in reward.last_results if r is not None
    )
    return elapsed, rewards, run


def time_baseline(kind: str, answers, tests, limit: float, workers: int):
    jobs = [(kind, answer, tests, limit) for _, answer in answers]
    if kind == "subprocess":
        executor = ThreadPoolExecutor(workers)
    else:
        executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    with executor:
        list(executor.map(_baseline_task, jobs[:workers]))  # warm the executor's workers
        started = time.perf_counter()
        outcomes = list(executor.map(_baseline_task, jobs))
        elapsed = time.perf_counter() - started
    return elapsed, [r for r, _ in outcomes], sum(n for _, n in outcomes)


def measure(name: str, answers, tests, run, max_loops: int) -> dict:
    """Time ``run`` on the non-looping and the looping answers; check every reward. At most
    ``max_loops`` looping answers run; their time and tests are scaled to the mix's count."""
    row: dict = {"strategy": name, "completions": len(answers)}
    mismatches = 0
    loops = [a for a in answers if a[0] == "loop"]
    for part, chosen in (
        ("noloop", [a for a in answers if a[0] != "loop"]),
        ("loop", loops[: max(1, max_loops)]),
    ):
        if not chosen:
            row[part] = {"completions": 0, "seconds": 0.0, "tests_run": 0}
            continue
        elapsed, rewards, tests_run = run(chosen)
        expected = [1.0 if kind == "correct" else 0.0 for kind, _ in chosen]
        mismatches += sum(r != e for r, e in zip(rewards, expected, strict=True))
        scale = len(loops) / len(chosen) if part == "loop" else 1.0
        row[part] = {
            "completions": len(loops) if part == "loop" else len(chosen),
            "measured": len(chosen),
            "seconds": elapsed * scale,
            "tests_run": round(tests_run * scale),
        }
    total_s = row["noloop"]["seconds"] + row["loop"]["seconds"]
    total_tests = row["noloop"]["tests_run"] + row["loop"]["tests_run"]
    row["seconds"] = total_s
    row["completions_per_s"] = len(answers) / total_s
    row["tests_per_s"] = total_tests / total_s
    row["noloop_completions_per_s"] = row["noloop"]["completions"] / row["noloop"]["seconds"]
    row["noloop_tests_per_s"] = row["noloop"]["tests_run"] / row["noloop"]["seconds"]
    row["mismatches"] = mismatches
    return row


def benchmark(args) -> int:
    ballast = bytearray(args.ballast_mb << 20)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    tests, answers = make_mix(args.completions, args.tests)
    _, base_answers = make_mix(args.baseline_completions, args.tests)
    rows = []
    for isolation in (Isolation.ADAPTIVE, Isolation.SUBMISSION, Isolation.TEST):
        options = GradeOptions(time_limit=args.time_limit, isolation=isolation, early_exit=True)
        with CodeReward(options=options, workers=args.workers) as reward:
            reward(None, [answers[0][1]] * args.workers, tests=[tests] * args.workers)  # warm
            rows.append(
                measure(
                    f"codereward-{isolation.value}",
                    answers,
                    tests,
                    lambda chosen, reward=reward: time_codereward(reward, chosen, tests),
                    args.max_loops,
                )
            )
        print(_row_text(rows[-1]), flush=True)
    for kind, name in (("subprocess", "subprocess-per-test"), ("manager", "process-manager")):
        rows.append(
            measure(
                name,
                base_answers,
                tests,
                lambda chosen, kind=kind: time_baseline(
                    kind, chosen, tests, args.time_limit, args.workers
                ),
                args.max_loops,
            )
        )
        print(_row_text(rows[-1]), flush=True)
    by_name = {row["strategy"]: row for row in rows}
    ratios = {}
    for ours in ("codereward-adaptive", "codereward-submission", "codereward-test"):
        for base in ("subprocess-per-test", "process-manager"):
            ratios[f"{ours} / {base}"] = {
                "mix": by_name[ours]["completions_per_s"] / by_name[base]["completions_per_s"],
                "noloop": by_name[ours]["noloop_completions_per_s"]
                / by_name[base]["noloop_completions_per_s"],
            }
    print()
    print(f"{'ratio (completions/s)':52} {'mix':>8} {'no-loop':>8}")
    for name, value in ratios.items():
        print(f"{name:52} {value['mix']:7.1f}x {value['noloop']:7.1f}x")
    void = any(row["mismatches"] for row in rows)
    report = {
        "workload": {
            "completions": args.completions,
            "baseline_completions": args.baseline_completions,
            "tests": args.tests,
            "workers": args.workers,
            "time_limit": args.time_limit,
            "max_loops_timed": args.max_loops,
            "ballast_mb": args.ballast_mb,
            "loadavg_after": os.getloadavg(),
            "mix": "50% correct, 25% wrong, 15% crash, 10% loop; binary reward, early exit",
            "cpus": os.cpu_count(),
        },
        "rows": rows,
        "ratios": ratios,
        "void": void,
    }
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=2) + "\n")
    if void:
        print("VOID: some strategy gave a wrong reward", file=sys.stderr)
        return 1
    return 0


def _row_text(row: dict) -> str:
    return (
        f"{row['strategy']:24} n={row['completions']:4} {row['seconds']:7.2f} s  "
        f"{row['completions_per_s']:8.1f} compl/s {row['tests_per_s']:8.1f} tests/s | no-loop "
        f"{row['noloop_completions_per_s']:8.1f} compl/s {row['noloop_tests_per_s']:8.1f} tests/s"
        f"  (loop part {row['loop']['seconds']:.2f} s){'  MISMATCH' if row['mismatches'] else ''}"
    )


# --- soak -----------------------------------------------------------------------------------------


def soak(args) -> int:
    import psutil

    tests, answers = make_mix(100, 5)
    batch = [a for a in answers if a[0] != "loop"][:8]
    expected = [1.0 if kind == "correct" else 0.0 for kind, _ in batch]
    me = psutil.Process()

    def counts(reward: CodeReward) -> dict[str, int]:
        servers = me.children()
        return {
            "processes": len(me.children(recursive=True)),
            "fds": len(os.listdir("/proc/self/fd")),
            "threads": me.num_threads(),
            "temp_entries": sum(len(d) + len(f) for s in servers for _, d, f in os.walk(s.cwd())),
            "rss_kb": me.memory_info().rss // 1024,
        }

    with CodeReward(workers=args.workers) as reward:
        assert reward(None, [a for _, a in batch], tests=[tests] * 8) == expected
        start = counts(reward)
        print("start", start, flush=True)
        began = time.perf_counter()
        for i in range(args.soak):
            rows = [[dict(t) for t in tests] for _ in batch]
            if reward(None, [a for _, a in batch], tests=rows) != expected:
                print(f"wrong rewards at call {i}", file=sys.stderr)
                return 1
        end = counts(reward)
        print("end  ", end, f"({args.soak} calls in {time.perf_counter() - began:.1f} s)")
        restarts = reward.grader.pool.restarts
    report = {
        "calls": args.soak,
        "completions_per_call": 8,
        "start": start,
        "end": end,
        "restarts": restarts,
    }
    if args.output:
        Path(args.output).write_text(json.dumps(report, indent=2) + "\n")
    grew = [k for k in ("processes", "fds", "threads", "temp_entries") if end[k] != start[k]]
    print("growth:", grew or "none", f"rss +{end['rss_kb'] - start['rss_kb']} KiB")
    return 1 if grew else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--completions", type=int, default=512)
    parser.add_argument("--baseline-completions", type=int, default=64)
    parser.add_argument(
        "--max-loops",
        type=int,
        default=12,
        help="time at most this many looping completions per strategy, scaled to the mix",
    )
    parser.add_argument(
        "--ballast-mb",
        type=int,
        default=0,
        help="touch this much memory in the caller first (a trainer-sized process: forks cost more)",
    )
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--time-limit", type=float, default=1.0)
    parser.add_argument("--soak", type=int, default=0, help="run N reward calls instead")
    parser.add_argument("--output", help="write the JSON report here")
    args = parser.parse_args()
    return soak(args) if args.soak else benchmark(args)


if __name__ == "__main__":
    sys.exit(main())
