"""The RL reward, side by side with LiveCodeBench's pattern: same workers, one run.

Workload (issue 24's): two problems of 10 small tests each, a stdin one (print the sum of a
line of integers) and a call-based list function (``evens(nums)``: the even numbers, in
order); ``--completions`` short fenced answers to each (default 128), a fixed mix of right
ones (several styles) and wrong ones (a wrong answer on some tests, or a crash). One call
grades them all, as a GRPO step does.

Strategies (``--strategies``), all with ``--workers`` (default 2):

``ours-binary`` / ``ours-fraction``  a warm :class:`evaluator.CodeReward` (its defaults:
    adaptive isolation; binary mode stops at a program's first failing test, fraction mode
    runs them all), called as TRL calls a reward function (``prompts=``, ``completions=``,
    ``completion_ids=`` and the dataset's columns as keywords) after one warm-up call.
``ours-submission``  the same in binary mode with isolation ``submission``.
``lcb-pattern``  LiveCodeBench's pattern (``baselines.lcb_check``): per completion a
    ``multiprocessing.Manager`` and one ``Process`` running the tests in-process, in a warm
    fork ``ProcessPoolExecutor``; stops at the first failing test. Cheaper than the real
    evaluator (no ``mock.patch``, no ``reliability_guard``, a warm executor).
``lcb``  LiveCodeBench's own ``evaluate_generations`` (``--lcb-runner DIR``), which makes its
    executor inside each call.

Every reward is checked against what the completion is (right or wrong, and for fractions how
many tests it passes); a mismatch voids the run (exit 1). ``--repeat K`` timed calls per
strategy (order rotated), medians reported; CPU is the whole system's, as in
``sandbox_overhead.py``. Ratios are LiveCodeBench's time over each strategy's (x faster).

Usage: ``python benchmarks/speed/rl_reward.py [--lcb-runner DIR] [--completions 128]
[--workers 2] [--repeat 5] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import baselines  # noqa: E402
from sandbox_overhead import cpu_between, snapshot_end, snapshot_start  # noqa: E402
from vs_lcb import load_lcb, stray_output  # noqa: E402

from evaluator import CodeReward  # noqa: E402

TESTS = 10
STRATEGIES = ["lcb-pattern", "lcb", "ours-binary", "ours-fraction", "ours-submission"]

SUM_RIGHT = [
    "print(sum(map(int, input().split())))",
    "import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))",
    "def main():\n    total = 0\n    for x in input().split():\n        total += int(x)\n"
    "    print(total)\n\nmain()",
]
EVENS_RIGHT = [
    "def evens(nums):\n    return [x for x in nums if x % 2 == 0]",
    "class Solution:\n    def evens(self, nums: List[int]) -> List[int]:\n"
    "        return list(filter(lambda x: x % 2 == 0, nums))",
    "def evens(nums):\n    out = []\n    for x in nums:\n        if not x & 1:\n"
    "            out.append(x)\n    return out",
]


@dataclass(frozen=True)
class Completion:
    problem: str  # "sum" or "evens"
    text: str  # the model's answer (a fenced block)
    code: str
    passes: int  # tests it passes


def make_tests(rng: random.Random) -> dict[str, list[tuple[str, str]]]:
    """10 tests per problem: (input, output) texts, our schema's."""
    sums, evens = [], []
    for index in range(TESTS):
        nums = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 20))]
        sums.append((" ".join(map(str, nums)) + "\n", f"{sum(nums)}\n"))
        nums = [] if index == 0 else [rng.randint(-50, 50) for _ in range(rng.randint(1, 20))]
        evens.append((json.dumps(nums), json.dumps([x for x in nums if x % 2 == 0])))
    return {"sum": sums, "evens": evens}


def _wrong_sum(rng: random.Random, tests) -> tuple[str, int]:
    """A program wrong (or crashing) on one test's input, right on the others; and how many
    tests it passes."""
    k = rng.randrange(TESTS)
    bad = tests[k][0].strip()
    crash = rng.random() < 0.25
    fail = "raise ValueError('boom')" if crash else "print(sum(map(int, s.split())) + 1)"
    code = (
        f"s = input().strip()\nif s == {bad!r}:\n    {fail}\nelse:\n"
        "    print(sum(map(int, s.split())))"
    )
    return code, sum(1 for t in tests if t[0].strip() != bad)


def _wrong_evens(rng: random.Random, tests) -> tuple[str, int]:
    k = rng.randrange(1, TESTS)  # test 0 is the empty list, where odds and evens agree
    bad = json.loads(tests[k][0])
    crash = rng.random() < 0.25
    fail = "raise IndexError('boom')" if crash else "return [x for x in nums if x % 2]"
    code = (
        f"def evens(nums):\n    if nums == {bad!r}:\n        {fail}\n"
        "    return [x for x in nums if x % 2 == 0]"
    )
    return code, sum(1 for t in tests if json.loads(t[0]) != bad)


def make_completions(count: int, tests, seed: int) -> list[Completion]:
    """``count`` answers per problem, interleaved: half right, half wrong."""
    rng = random.Random(seed)
    made = []
    for index in range(count):
        for problem, right, wrong in (
            ("sum", SUM_RIGHT, _wrong_sum),
            ("evens", EVENS_RIGHT, _wrong_evens),
        ):
            if index % 2 == 0:
                code, passes = right[index // 2 % len(right)], TESTS
            else:
                code, passes = wrong(rng, tests[problem])
            text = f"Let me solve it.\n```python\n{code}\n```\n"
            made.append(Completion(problem, text, code, passes))
    return made


def columns(completions: list[Completion], tests) -> dict[str, list[Any]]:
    """The dataset's columns for TRL: each sample's tests and, for call-based ones, the
    function's name."""
    rows = {name: [{"input": i, "output": o} for i, o in tests[name]] for name in ("sum", "evens")}
    return {
        "tests": [rows[c.problem] for c in completions],
        "func_name": ["evens" if c.problem == "evens" else None for c in completions],
    }


def ground_truth(tests, problem: str) -> str:
    """verl's prime_code ground truth of a problem: inputs and outputs, and fn_name for the
    call-based one."""
    truth: dict[str, Any] = {
        "inputs": [i for i, _ in tests[problem]],
        "outputs": [o for _, o in tests[problem]],
    }
    if problem == "evens":
        truth["fn_name"] = "evens"
    return json.dumps(truth)


# -- strategies ----------------------------------------------------------------------------------


def call_ours(reward: CodeReward, completions, cols) -> list[float | None]:
    return reward(
        prompts=["Solve the problem."] * len(completions),
        completions=[c.text for c in completions],
        completion_ids=[[] for _ in completions],
        **cols,
    )


def lcb_payloads(completions: list[Completion], tests) -> list[tuple]:
    args = []
    for c in completions:
        pairs = tests[c.problem]
        if c.problem == "sum":
            payload = {"code": c.code, "inputs": [i for i, _ in pairs]}
            payload["outputs"] = [o for _, o in pairs]
            args.append(("stdin", payload, 1))
        else:
            payload = {"code": c.code, "func_name": "evens"}
            payload["inputs"] = [[json.loads(i)] for i, _ in pairs]
            payload["expected"] = [json.loads(o) for _, o in pairs]
            args.append(("call", payload, 1))
    return args


def lcb_samples(completions: list[Completion], tests) -> list[dict[str, str]]:
    samples = []
    for c in completions:
        pairs = tests[c.problem]
        spec: dict[str, Any] = {"inputs": [i for i, _ in pairs], "outputs": [o for _, o in pairs]}
        if c.problem == "evens":
            spec["fn_name"] = "evens"
        samples.append({"input_output": json.dumps(spec)})
    return samples


@dataclass
class Setup:
    completions: list[Completion]
    tests: dict[str, list[tuple[str, str]]]
    workers: int
    rewards: dict[str, CodeReward]
    executor: ProcessPoolExecutor
    evaluate: Any


def run(name: str, setup: Setup) -> list[float]:
    """One timed call of strategy ``name``: the rewards, in order."""
    completions, tests = setup.completions, setup.tests
    if name.startswith("ours"):
        return call_ours(setup.rewards[name], completions, columns(completions, tests))
    if name == "lcb-pattern":
        done = setup.executor.map(baselines.lcb_check, lcb_payloads(completions, tests))
        return [1.0 if passed else 0.0 for passed, _ in done]
    results, _ = setup.evaluate(
        lcb_samples(completions, tests),
        [[c.code] for c in completions],
        num_process_evaluate=setup.workers,
        timeout=1,
    )
    return [1.0 if all(r is True for r in results[i][0]) else 0.0 for i in range(len(results))]


def expected(name: str, completion: Completion) -> float:
    if name == "ours-fraction":
        return completion.passes / TESTS
    return 1.0 if completion.passes == TESTS else 0.0


def measure(name: str, setup: Setup) -> dict[str, Any]:
    with stray_output():  # LiveCodeBench's progress bars and its programs' tracebacks
        start = snapshot_start()
        got = run(name, setup)
        end = snapshot_end()
    wrong = [
        (i, c.problem, g, expected(name, c))
        for i, (c, g) in enumerate(zip(setup.completions, got, strict=True))
        if g is None or abs(g - expected(name, c)) > 1e-9
    ]
    cpu = cpu_between(start, end)
    return {"wall_s": end.wall - start.wall, "cpu_s": cpu["total"], "cpu": cpu, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lcb-runner", help="a folder holding LiveCodeBench's lcb_runner package")
    parser.add_argument("--completions", type=int, default=128, help="per problem")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    evaluate = load_lcb(args.lcb_runner)
    strategies = [s for s in args.strategies.split(",") if s != "lcb" or evaluate]
    tests = make_tests(random.Random(args.seed))
    completions = make_completions(args.completions, tests, args.seed)
    rewards = {
        "ours-binary": CodeReward(mode="binary", workers=args.workers),
        "ours-fraction": CodeReward(mode="fraction", workers=args.workers),
    }
    from evaluator import GradeOptions, Isolation  # noqa: PLC0415

    rewards["ours-submission"] = CodeReward(
        mode="binary",
        workers=args.workers,
        options=GradeOptions(
            isolation=Isolation.SUBMISSION, early_exit=True, wall_factor=1.0, wall_slack=0.5
        ),
    )
    with ProcessPoolExecutor(args.workers) as executor:
        setup = Setup(completions, tests, args.workers, rewards, executor, evaluate)
        for name in strategies:  # warm-up: the pools start, the executor forks its workers
            if name != "lcb":
                with stray_output():
                    run(name, setup)
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in strategies}
        for r in range(args.repeat):
            for name in strategies[r % len(strategies) :] + strategies[: r % len(strategies)]:
                rows[name].append(measure(name, setup))
    for reward in rewards.values():
        reward.close()
    return report(rows, strategies, completions, args)


def report(rows, strategies, completions, args) -> int:
    base = "lcb-pattern" if "lcb-pattern" in rows else strategies[0]
    medians = {n: statistics.median(r["wall_s"] for r in rs) for n, rs in rows.items()}
    cpus = {n: statistics.median(r["cpu_s"] for r in rs) for n, rs in rows.items()}
    print(
        f"{len(completions)} completions ({args.completions} per problem, {TESTS} tests each), "
        f"{args.workers} workers, {args.repeat} calls per strategy (medians)"
    )
    print(f"{'strategy':18s} {'wall s':>8s} {'CPU s':>8s} {'compl/s':>8s} {'x ' + base:>16s}")
    for name in strategies:
        print(
            f"{name:18s} {medians[name]:8.3f} {cpus[name]:8.3f} "
            f"{len(completions) / medians[name]:8.0f} {medians[base] / medians[name]:15.1f}x"
        )
    void = {n: r["wrong"][:5] for n, rs in rows.items() for r in rs if r["wrong"]}
    if args.json:
        out = {
            "machine": {"argv": sys.argv, "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")},
            "args": vars(args),
            "rows": rows,
            "median_wall_s": medians,
            "median_cpu_s": cpus,
        }
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    if void:
        print(f"VOID: rewards that do not match their completions: {void}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
