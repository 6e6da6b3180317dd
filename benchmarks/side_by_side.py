"""What the benchmarks that race the service against the library share: ``mcevaluate serve`` in
a process of its own (:class:`Server`), rounds of every strategy in rotated order with each
answer checked (:func:`timed_rounds`), the options every race takes (:func:`race_options`),
and the results file and exit status (:func:`write_results`, :func:`void_exit`). Used by ``serve_throughput.py``,
``framework_rewards.py`` and ``framework_http.py``."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

Check = Callable[[str, Sequence[Any]], list[int]]
"""``check(strategy, answers)``: the indices of the answers that are wrong."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``mcevaluate serve`` in its own process, for the length of the benchmark."""

    def __init__(self, workers: int, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp = tempfile.mkdtemp(prefix="serve-bench-")
        command = [sys.executable, "-m", "evaluator.cli", "serve", "--port", str(self.port)]
        command += ["--workers", str(workers), *options]
        self.log_path = os.path.join(self.tmp, "server.log")
        self.log = open(self.log_path, "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            command,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "TMPDIR": self.tmp},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/health", timeout=1).ok:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def cpu_seconds(self) -> float:
        """CPU the server's own process has used (its HTTP, endpoints and grader threads; not
        its sandbox servers, which are processes of their own)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(120)
        self.log.close()


@dataclass
class Rounds:
    """What :func:`timed_rounds` saw: each strategy's seconds per round; per meter, what it
    counted during each of its rounds (``usage[meter][strategy]``); the first wrong answers
    of any strategy that gave one (the run is then void)."""

    times: dict[str, list[float]]
    usage: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    void: dict[str, list[int]] = field(default_factory=dict)


def timed_rounds(
    runners: Mapping[str, Callable[[], Sequence[Any]]],
    check: Check,
    repeat: int,
    meters: Mapping[str, Callable[[], float]] | None = None,
) -> Rounds:
    """Each runner once untimed (pools started, imports done, problems decoded), then
    ``repeat`` timed rounds of all of them, the order rotated each round (so that no strategy
    always runs after the same one), each answer checked (``check``). ``meters``: counters
    read before and after each timed run (a process's CPU seconds: what a strategy costs
    whatever else the machine is doing)."""
    names = list(runners)
    meters = meters or {}
    rounds = Rounds({name: [] for name in names})
    rounds.usage = {meter: {name: [] for name in names} for meter in meters}
    for name in names:
        runners[name]()
    for round_ in range(repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            before = {meter: read() for meter, read in meters.items()}
            started = time.perf_counter()
            answers = runners[name]()
            rounds.times[name].append(time.perf_counter() - started)
            for meter, read in meters.items():
                rounds.usage[meter][name].append(read() - before[meter])
            wrong = check(name, answers)
            if wrong:
                rounds.void[name] = wrong[:5]
    return rounds


def race_options(
    doc: str, completions: int = 128, completions_help: str | None = "per problem"
) -> argparse.ArgumentParser:
    """A parser (described by the first line of ``doc``) with the options every race takes:
    ``--completions`` (default ``completions``), ``--workers``, ``--repeat``, ``--seed`` and
    ``--json`` (the results file); a benchmark adds its own."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--completions", type=int, default=completions, help=completions_help)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--json", help="write every figure here")
    return parser


def medians(times: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {name: statistics.median(values) for name, values in times.items()}


def write_results(path: str | None, args: Any, **figures: Any) -> None:
    """The run's arguments, start time and ``figures`` as JSON at ``path`` (nothing without
    one)."""
    if not path:
        return
    record = {"args": vars(args), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), **figures}
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def void_exit(void: Mapping[str, list[int]]) -> int:
    """The exit status: 1, saying so, when any answer was wrong (the figures then mean
    nothing), else 0."""
    if void:
        print(f"VOID: answers that do not match their completions: {dict(void)}")
        return 1
    return 0
