"""OpenRLHF's and slime's reward paths, side by side with the library, in one run.

Workload: issue 24's RL reward (``speed/rl_reward.py``): two problems of 10 small tests (a
stdin sum, a call-based ``evens``), ``--completions`` fenced answers to each (default 128:
256 in all), half right, half wrong; each labelled by a dataset row as the frameworks pass
it (the sum as a TACO row, ``evens`` as a LiveCodeBench row, both JSON text). Strategies,
all on ``--workers`` fork servers:

``openrlhf-url``  OpenRLHF 0.11.2's own client (``SingleTurnAgentExecutor.
    _fetch_rewards_via_http``: a new aiohttp session and one ``POST /get_reward`` per
    sample, OpenRLHF's query = prompt + response + ``<|im_end|>``), the 256 samples at once
    as its rollout tasks run.
``openrlhf-url-batch``  the same client function given the 256 samples at once: one
    ``POST /get_reward`` holding them all (what its API allows; its rollout sends one each).
``openrlhf-file``  the same through its ``.py`` path (``_fetch_rewards_via_func``: our
    ``reward_func`` per sample in a worker thread), the file loaded by OpenRLHF's loader.
``slime-url``  slime's ``remote_rm`` shape (one shared aiohttp session, ``TCPConnector(
    limit=64)``; one ``POST /slime/reward`` of ``{"prompt", "response", "label"}`` per
    sample), the 256 at once.
``slime-rm``  ``await evaluator.reward.frameworks.slime.rm(args, sample)`` per sample, the 256
              at once.
``slime-group-rm``  ``--group-rm``: ``await rm(args, group)`` for 32 groups of 8.
``ours-in-process``  a warm :class:`evaluator.CodeReward` (binary), called as TRL calls it
    with the same rows as its columns: the baseline.

OpenRLHF's rollout and slime send one sample per request or call, so each of those paths
pays a request's or a call's cost per completion; ``openrlhf-url-batch`` and
``slime-group-rm`` are the batched paths (target: within 1.2x of in-process). CPU per
completion (this process's and the server's, not the sandbox servers') says what each path
costs whatever else the machine runs. Every reward is checked against
what the completion is; a mismatch voids the run (exit 1). ``--repeat K`` rounds, order
rotated, medians; overhead per completion = (path - in-process) / completions.

Usage: ``python benchmarks/framework_rewards.py [--completions 128] [--workers 2]
[--repeat 3] [--json benchmarks/results/framework_rewards.json]``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import aiohttp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "speed"))
sys.path.insert(0, str(HERE))

from rl_reward import TESTS, make_completions, make_tests  # noqa: E402
from side_by_side import (  # noqa: E402
    Server,
    medians,
    race_options,
    timed_rounds,
    void_exit,
    write_results,
)

from evaluator import CodeReward  # noqa: E402
from evaluator.reward.frameworks.openrlhf import REWARD_FUNC_FILE  # noqa: E402
from evaluator.reward.frameworks.slime import rm  # noqa: E402

STRATEGIES = [
    "openrlhf-url",
    "openrlhf-url-batch",
    "openrlhf-file",
    "slime-url",
    "slime-rm",
    "slime-group-rm",
    "ours-in-process",
]
PROMPT = "<|im_start|>user\nSolve problem {}.<|im_end|>\n<|im_start|>assistant\n"
EOS = "<|im_end|>"


def labels_of(tests) -> dict[str, str]:
    """Each problem as a dataset row: the sum as TACO's, ``evens`` as LiveCodeBench's."""
    taco = {
        "question": "Print the sum of the integers on the line.",
        "input_output": json.dumps(
            {"inputs": [i for i, _ in tests["sum"]], "outputs": [o for _, o in tests["sum"]]}
        ),
    }
    cases = [{"input": i, "output": o, "testtype": "functional"} for i, o in tests["evens"]]
    lcb = {
        "question_id": "evens",
        "public_test_cases": json.dumps(cases[:3]),
        "private_test_cases": json.dumps(cases[3:]),
        "metadata": json.dumps({"func_name": "evens"}),
    }
    return {"sum": json.dumps(taco), "evens": json.dumps(lcb)}


class Sample(SimpleNamespace):
    """What slime's reward reads of its ``Sample``."""


def run_openrlhf(executor, completions, labels, http: bool) -> list[float]:
    fetch = executor._fetch_rewards_via_http if http else executor._fetch_rewards_via_func

    async def one(index, c):
        prompt = PROMPT.format(index // 8)
        [answer] = await fetch([prompt + c.text + EOS], [prompt], [labels[c.problem]])
        return float(answer["rewards"][0])

    async def run():
        return await asyncio.gather(*(one(i, c) for i, c in enumerate(completions)))

    return asyncio.run(run())


def run_openrlhf_batch(executor, completions, labels) -> list[float]:
    """OpenRLHF's ``_fetch_rewards_via_http`` given every sample at once: with one reward
    server it posts them in one request (its sharding across servers), the batched form its
    API allows (its rollout itself calls it per sample)."""
    prompts = [PROMPT.format(i // 8) for i in range(len(completions))]
    queries = [p + c.text + EOS for p, c in zip(prompts, completions, strict=True)]
    batch = [labels[c.problem] for c in completions]
    [answer] = asyncio.run(executor._fetch_rewards_via_http(queries, prompts, batch))
    return [float(r) for r in answer["rewards"]]


def slime_samples(completions, labels) -> list[Sample]:
    return [
        Sample(
            index=i, prompt=PROMPT.format(i // 8), response=c.text + EOS, label=labels[c.problem]
        )
        for i, c in enumerate(completions)
    ]


def run_slime_url(url: str, completions, labels) -> list[float]:
    samples = slime_samples(completions, labels)

    async def run():
        connector = aiohttp.TCPConnector(limit=64, enable_cleanup_closed=True)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

            async def one(sample):
                payload = {"prompt": sample.prompt, "response": sample.response}
                payload["label"] = sample.label
                async with session.post(url, json=payload) as resp:
                    resp.raise_for_status()
                    return await resp.json()

            return await asyncio.gather(*(one(s) for s in samples))

    return asyncio.run(run())


def run_slime_rm(completions, labels, group: int | None) -> list[float]:
    samples = slime_samples(completions, labels)
    args = SimpleNamespace(
        custom_rm_path="evaluator.reward.frameworks.slime.rm", group_rm=group is not None
    )

    async def run():
        if group is None:
            return await asyncio.gather(*(rm(args, s) for s in samples))
        groups = [samples[i : i + group] for i in range(0, len(samples), group)]
        rewards = await asyncio.gather(*(rm(args, g) for g in groups))
        return [r for rs in rewards for r in rs]

    return asyncio.run(run())


def run_in_process(reward: CodeReward, completions, labels) -> list[float | None]:
    rows = {name: json.loads(text) for name, text in labels.items()}
    keys = sorted({key for row in rows.values() for key in row})
    columns = {key: [rows[c.problem].get(key) for c in completions] for key in keys}
    return reward(
        prompts=[PROMPT] * len(completions),
        completions=[c.text for c in completions],
        completion_ids=[[] for _ in completions],
        **columns,
    )


def main(argv: list[str] | None = None) -> int:
    args = race_options(__doc__).parse_args(argv)
    if args.workers != (os.cpu_count() or 1):
        print(
            f"note: the in-process adapters' shared pool has one worker per core "
            f"({os.cpu_count()}), the server and the baseline {args.workers}"
        )
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    tests = make_tests(random.Random(args.seed))
    completions = make_completions(args.completions, tests, args.seed)
    labels = labels_of(tests)
    expected = [1.0 if c.passes == TESTS else 0.0 for c in completions]
    count = len(completions)
    server = Server(args.workers)
    reward = CodeReward(mode="binary", workers=args.workers)
    by_url = SingleTurnAgentExecutor(f"{server.url}/get_reward")
    by_file = SingleTurnAgentExecutor(str(REWARD_FUNC_FILE))
    runners = {
        "openrlhf-url": lambda: run_openrlhf(by_url, completions, labels, http=True),
        "openrlhf-url-batch": lambda: run_openrlhf_batch(by_url, completions, labels),
        "openrlhf-file": lambda: run_openrlhf(by_file, completions, labels, http=False),
        "slime-url": lambda: run_slime_url(f"{server.url}/slime/reward", completions, labels),
        "slime-rm": lambda: run_slime_rm(completions, labels, None),
        "slime-group-rm": lambda: run_slime_rm(completions, labels, 8),
        "ours-in-process": lambda: run_in_process(reward, completions, labels),
    }

    def check(name: str, got) -> list[int]:
        return [i for i, (e, g) in enumerate(zip(expected, got, strict=True)) if e != g]

    # CPU seconds, whatever else the machine runs: this process (the frameworks' clients, the
    # in-process rewards' Python side) and the server's (HTTP, endpoints, grader threads); the
    # sandbox servers are processes of their own in both and are not counted.
    meters = {"client_cpu_s": time.process_time, "server_cpu_s": server.cpu_seconds}
    try:
        rounds = timed_rounds(runners, check, args.repeat, meters)
    finally:
        reward.close()
        server.close()
    rows, median = rounds.times, medians(rounds.times)
    cpu = {
        name: 1000 * sum(statistics.median(rounds.usage[m][name]) for m in meters) / count
        for name in STRATEGIES
    }
    library = median["ours-in-process"]
    print(
        f"{count} completions x {TESTS} tests, {args.workers} workers, "
        f"{args.repeat} rounds (medians)"
    )
    print(
        f"{'path':16s} {'wall s':>8s} {'compl/s':>8s} {'x in-process':>13s} {'ms/compl over':>14s}"
        f" {'CPU ms/compl':>13s} {'CPU over':>9s}"
    )
    overhead = {}
    for name in STRATEGIES:
        overhead[name] = 1000 * (median[name] - library) / count
        print(
            f"{name:16s} {median[name]:8.3f} {count / median[name]:8.0f} "
            f"{median[name] / library:12.2f}x {overhead[name]:14.2f}"
            f" {cpu[name]:13.2f} {cpu[name] - cpu['ours-in-process']:9.2f}"
        )
    write_results(
        args.json,
        args,
        cpu_count=os.cpu_count(),
        rounds_s=rows,
        median_s=median,
        over_in_process={n: median[n] / library for n in STRATEGIES},
        overhead_ms_per_completion=overhead,
        cpu_ms_per_completion=cpu,
        cpu_over_in_process_ms_per_completion={
            n: cpu[n] - cpu["ours-in-process"] for n in STRATEGIES
        },
        usage_s=rounds.usage,
    )
    return void_exit(rounds.void)


if __name__ == "__main__":
    sys.exit(main())
