"""Many reward calls leave nothing behind: processes, fds, temp files; caller RSS bounded."""

from __future__ import annotations

import gc
import glob
import os
import tempfile

import psutil

from evaluator import CodeReward

TESTS = [{"input": f"{i} {i + 1}\n", "output": f"{2 * i + 1}\n"} for i in range(5)]
COMPLETIONS = [
    "```python\nprint(sum(map(int, input().split())))\n```",
    "```python\nprint(0)\n```",
    "```python\nraise SystemExit(2)\n```",
    "no code here",
    [
        {
            "role": "assistant",
            "content": "```py\na, b = map(int, input().split())\nprint(a + b)\n```",
        }
    ],
    "```python\nimport sys\nprint(sum(map(int, sys.stdin.read().split())))\n```",
    "```python\nprint(1/0)\n```",
    "```python\nx = input()\nprint(x)\n```",
]
EXPECTED = [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]


def _entries(path: str) -> int:
    return sum(len(dirs) + len(files) for _, dirs, files in os.walk(path))


def _processes(me: psutil.Process) -> int:
    """This process's children, and every process below the fork servers among them (what a
    reward call could leave behind). Below other children (a language's build, a Ray node a
    test left stopping) their own processes come and go on their own time: not counted."""
    count = 0
    for child in me.children():
        count += 1
        try:
            if os.path.basename(child.cwd()).startswith("mcsbx-"):  # a fork server
                count += len(child.children(recursive=True))
        except psutil.Error:  # gone, or a zombie: counted as itself
            pass
    return count


def snapshot(pool) -> dict[str, int]:
    gc.collect()
    me = psutil.Process()
    return {
        "descendants": _processes(me),
        "fds": len(os.listdir("/proc/self/fd")),
        "threads": me.num_threads(),
        # the fork servers' private temp dirs (their cwd): run dirs left behind would pile up
        "temp_entries": sum(
            _entries(server.cwd())
            for server in me.children()
            if server.status() != psutil.STATUS_ZOMBIE  # a replaced server the pool lost
        ),
        "temp_dirs": len(glob.glob(os.path.join(pool.tmp_dir or tempfile.gettempdir(), "mcsbx-*"))),
        "rss_kb": me.memory_info().rss // 1024,
    }


def test_soak_300_calls_of_8(pool):
    with CodeReward(pool=pool) as reward:
        for _ in range(20):  # warm up caches and allocator
            assert reward(None, COMPLETIONS, tests=[TESTS] * len(COMPLETIONS)) == EXPECTED
        before, restarts = snapshot(pool), pool.restarts
        for i in range(300):
            tests = [
                [dict(t) for t in TESTS] for _ in COMPLETIONS
            ]  # fresh row objects, as TRL gives
            assert reward(None, COMPLETIONS, question_id=[f"q{i % 7}"] * 8, tests=tests) == EXPECTED
        after = snapshot(pool)
    # temp_dirs is only reported: other users share /tmp
    for key in ("descendants", "fds", "threads", "temp_entries"):
        assert after[key] == before[key], (key, before, after)
    assert after["rss_kb"] - before["rss_kb"] < 20 * 1024, (before, after)
    assert pool.restarts == restarts  # the pool is shared: count only this test's
