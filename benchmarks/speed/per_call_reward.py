"""verl's per-sample reward path, ours beside its default ``prime_code``: same batches, one run.

verl's ``PrimeRewardManager`` scores a batch with ``run_reward_scoring``: a fresh fork
``ProcessPoolExecutor`` of ``num_processes`` (64 in verl) per batch, ``compute_score`` called
once per sample in it, the workers terminated after the batch. A reward that keeps a pool in
its process therefore starts it cold in every worker of every batch: this measures what that
costs, with verl 0.9.1's own ``run_reward_scoring`` (installed with the ``verl`` extra).

Workload: issue 24's RL reward (``rl_reward.py``): a stdin sum and a call-based ``evens``,
10 tests each, completions half right, half wrong (a wrong answer or a crash on one test);
for each ``--samples`` size (default 8, 64, 512) the samples in ``--batches`` batches
(default 2), as consecutive training steps send them.

Strategies:

``prime_code``  verl's ``default_compute_score`` with ``data_source="codecontests"``: its
    ``prime_code`` (APPS' ``testing_util``, a ``multiprocessing.Process`` per check; a failing
    answer is checked again test by test). Its score is the share of tests passed.
``ours``  :func:`evaluator.reward.verl_compute_score` (binary), the same executor, grading in
    the user's pool daemon (the default: ``evaluator.sandbox.shared_pool``), which every worker
    of every batch shares.
``ours-own``  the same with ``MICROCODER_SHARED_POOL=0``: each worker starts fork servers of
    its own (the shared reward before the daemon).
``ours-batch``  :func:`evaluator.reward.verl_compute_score_batch` in this process, warm (what
    verl's ``BatchRewardManager`` gets): the floor the per-call path can approach.

Every score of ours is checked against what the completion is; a mismatch voids the run
(exit 1). prime_code's misses are counted, not voided: on its per-test path (a failing answer)
it drops ``fn_name``, so a call-based answer that fails one test scores 0, not its share.
``--repeat K`` rounds, the order rotated, medians; ratios are prime_code's time over ours
(> 1: ours faster). The first batch of the first round also pays whatever a strategy starts
once per machine (a shared pool), as a training run's first step does. CPU is the whole
machine's (the daemon is no process's child), less the background measured before the run.

Usage: ``python benchmarks/speed/per_call_reward.py [--samples 8,64,512] [--batches 2]
[--processes 64] [--repeat 3] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from rl_reward import TESTS, ground_truth, make_completions, make_tests  # noqa: E402
from sandbox_overhead import (  # noqa: E402
    background_load,
    cpu_between,
    snapshot_end,
    snapshot_start,
)
from vs_lcb import stray_output  # noqa: E402

STRATEGIES = ["prime_code", "ours", "ours-own", "ours-batch"]


def run_batches(name: str, batches, truths, processes: int) -> list[float]:
    """Every batch scored as verl scores it; the scores, in order."""
    from verl.utils.reward_score import default_compute_score
    from verl.workers.reward_manager.prime import run_reward_scoring

    from evaluator.reward import shared_reward, verl_compute_score, verl_compute_score_batch
    from evaluator.reward.shared import SHARED_POOL_ENV

    os.environ[SHARED_POOL_ENV] = "0" if name == "ours-own" else "1"  # the workers inherit it
    if name != "ours-batch":  # the workers fork from here: none inherits a reward made before
        shared_reward().close()
    scores: list[float] = []
    for batch in batches:
        texts = [c.text for c in batch]
        references = [truths[c.problem] for c in batch]
        sources = ["codecontests"] * len(batch)
        if name == "ours-batch":
            scores += verl_compute_score_batch(sources, texts, references)
            continue
        function = default_compute_score if name == "prime_code" else verl_compute_score
        scores += run_reward_scoring(function, texts, references, sources, None, processes)
    return scores


def expected(name: str, completion) -> float:
    if name == "prime_code":
        return completion.passes / TESTS
    return 1.0 if completion.passes == TESTS else 0.0


def measure(name: str, batches, truths, processes: int, background: float) -> dict[str, Any]:
    with stray_output():  # verl's "[Shutdown] ..." lines, the wrong programs' tracebacks
        start = snapshot_start()
        got = run_batches(name, batches, truths, processes)
        end = snapshot_end()
    flat = [c for batch in batches for c in batch]
    wrong = [
        (i, c.problem, g, expected(name, c))
        for i, (c, g) in enumerate(zip(flat, got, strict=True))
        if abs(g - expected(name, c)) > 1e-9
    ]
    return {
        "wall_s": end.wall - start.wall,
        "cpu_s": cpu_between(start, end)["machine"] - background * (end.wall - start.wall),
        "wrong": wrong,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", default="8,64,512", help="sample counts, comma-separated")
    parser.add_argument("--batches", type=int, default=2, help="batches each count is split in")
    parser.add_argument("--processes", type=int, default=64, help="verl's num_processes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--json", help="write every figure here")
    args = parser.parse_args(argv)
    strategies = args.strategies.split(",")
    tests = make_tests(random.Random(args.seed))
    truths = {name: ground_truth(tests, name) for name in ("sum", "evens")}
    background = background_load(2.0)
    print(f"background load: {background:.2f} cores")
    table: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for count in (int(s) for s in args.samples.split(",")):
        completions = make_completions((count + 1) // 2, tests, args.seed)[:count]
        size = -(-count // args.batches)
        batches = [completions[i : i + size] for i in range(0, count, size)]
        rows: dict[str, list[dict[str, Any]]] = {name: [] for name in strategies}
        for r in range(args.repeat):
            for name in strategies[r % len(strategies) :] + strategies[: r % len(strategies)]:
                rows[name].append(measure(name, batches, truths, args.processes, background))
        table[count] = rows
        report_one(count, len(batches), rows)
    if args.json:
        out = {"argv": sys.argv, "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
        Path(args.json).write_text(json.dumps({**out, "args": vars(args), "rows": table}, indent=1))
    for n, rows in table.items():  # prime_code's own misses: reported, not a void run
        misses = max((len(r["wrong"]) for r in rows.get("prime_code", [])), default=0)
        if misses:
            print(f"prime_code scores {misses} of {n} samples off their share of tests passed")
    void = {(n, name): r["wrong"][:3] for n, rows in table.items() for name, rs in rows.items()
            for r in rs if r["wrong"] and name != "prime_code"}  # fmt: skip
    if void:
        print(f"VOID: scores that do not match their completions: {void}")
        return 1
    return 0


def report_one(count: int, batches: int, rows) -> None:
    walls = {n: statistics.median(r["wall_s"] for r in rs) for n, rs in rows.items()}
    cpus = {n: statistics.median(r["cpu_s"] for r in rs) for n, rs in rows.items()}
    base = walls.get("prime_code")
    print(f"{count} samples in {batches} batches (medians of {len(next(iter(rows.values())))})")
    for name in rows:
        ratio = f"{base / walls[name]:6.2f}x prime_code" if base else ""
        print(f"  {name:12s} wall {walls[name]:7.3f} s  CPU {cpus[name]:7.3f} s  {ratio}")


if __name__ == "__main__":
    sys.exit(main())
