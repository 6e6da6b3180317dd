"""Per-submission cost of a KodCode pytest file: real pytest in the sandbox child (how
``evaluator/harness/pytest_file.py`` runs it), against the built-in pytest emulator it
replaced and against plain pytest in a subprocess, all in one run.

Workload: the vendored KodCode rows (``tests/data/sources/kodcode``: six problems in
KodCode-V1's shape, their references, which pass), graded ``--rounds`` times each.

Ways measured, each on one worker:

- ``sandbox pytest``: the grader's job on a default pool, whose pytest template has pytest
  and the modules a session imports preloaded (``evaluator.sandbox.pool.DEFAULT_HEAVY``);
- ``sandbox pytest, no pytest template``: a pool with NumPy's template only: the child
  imports pytest;
- ``sandbox pytest, pytest imported``: a pytest template with ``pytest`` only (the plugin
  modules and pdb imported in each child);
- ``emulator``: the built-in runner this replaced (its ``pytest_runner.py`` and job builder
  as of :data:`EMULATOR_COMMIT`, read from git; skipped where the commit is not there);
- ``plain pytest``: ``pytest --rootdir=. -p no:cacheprovider`` in a scratch directory, plugins
  not autoloaded (the subprocess's CPU from ``getrusage``).

Why pytest has a template of its own and not NumPy's: a NumPy stdin program (``numpy
program``), one test a job and 20 tests a job, on the default pool and on one whose single
heavy template has NumPy and pytest (adaptive isolation: pytest imports ``logging``, whose
``atexit`` handler runs at the end of the first test, so every later test would look changed
and get a fresh child).

Sandbox CPU is the child's (the kernel's per-test figure), wall the ``grade`` call's. Figures
are medians per submission; the ways take turns on each submission of each round (a loaded
machine's drift hits them alike), and ratios are taken within this run.

Usage: ``python benchmarks/speed/kodcode_pytest.py [--rounds 10] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from evaluator.formats.registry import problem_from_record  # noqa: E402
from evaluator.harness import pytest_file  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402
from evaluator.sandbox import Isolation, Job, Mode, SandboxPool  # noqa: E402
from evaluator.sandbox.pool import DEFAULT_HEAVY  # noqa: E402

ROWS = REPO / "tests" / "data" / "sources" / "kodcode"
EMULATOR_COMMIT = "8168ab4880d55da6717efd8a4a0547a5facdb06c"  # the last with the emulator


def load_pairs() -> list[tuple[Any, str]]:
    """(problem, reference) of each vendored KodCode row."""
    samples = {
        record["question_id"]: record["code_list"][0]
        for record in map(json.loads, (ROWS / "samples.jsonl").read_text().splitlines())
    }
    rows = [json.loads(line) for line in (ROWS / "problems.jsonl").read_text().splitlines()]
    return [(problem_from_record(row), samples[row["question_id"]]) for row in rows]


Sample = tuple[float, float, bool]  # a submission's CPU and wall seconds, and whether it passed


def _summary(samples: list[Sample]) -> dict[str, float]:
    return {
        "cpu_ms": statistics.median(cpu for cpu, _, _ in samples) * 1e3,
        "wall_ms": statistics.median(wall for _, wall, _ in samples) * 1e3,
        "submissions": len(samples),
        "passed": sum(passed for _, _, passed in samples),
    }


# -- the ways, each a function of one (problem, code) pair ------------------------------------


def grader_way(stack: ExitStack, heavy: Any = DEFAULT_HEAVY) -> Callable[[Any], Sample]:
    """The grader's job, on a pool of its own whose heavy templates are ``heavy``."""
    pool = stack.enter_context(SandboxPool(workers=1, heavy=heavy))
    grader = Grader(GradeOptions(time_limit=10.0), pool=pool)

    def grade(pair) -> Sample:
        start = time.perf_counter()
        result = grader.grade(*pair)
        wall = time.perf_counter() - start
        return sum(test.cpu_time for test in result.tests), wall, result.verdict == "AC"

    return grade


def emulator_job_code() -> Callable[[str, str], str] | None:
    """The emulator's ``job_code(program, tests)``, loaded from :data:`EMULATOR_COMMIT`;
    None when git or the commit is not there."""
    sources = {}
    for name in ("pytest_file.py", "pytest_runner.py"):
        shown = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{EMULATOR_COMMIT}:evaluator/harness/{name}"],
            capture_output=True,
            text=True,
        )
        if shown.returncode != 0:
            return None
        sources[name] = shown.stdout
    module = types.ModuleType("evaluator.harness._emulator_job")
    module.__package__ = "evaluator.harness"
    exec(compile(sources["pytest_file.py"], "emulator_pytest_file.py", "exec"), module.__dict__)
    module.runner_source = lambda: sources["pytest_runner.py"]
    return module.job_code


def emulator_way(stack: ExitStack, job_code: Callable[[str, str], str]) -> Callable[[Any], Sample]:
    """The emulator's job, run on a pool as its grader ran it (a pass: its ``checked``)."""
    pool = stack.enter_context(SandboxPool(workers=1))

    def run(pair) -> Sample:
        problem, code = pair
        job = Job(
            code=job_code(code, problem.test_code),
            inputs=[""],
            mode=Mode.ASSERTION,
            func_name="run_tests",
            check_name="check",
            isolation=Isolation.ADAPTIVE,
        )
        start = time.perf_counter()
        result = pool.run(job).runs[0]
        return result.cpu_time, time.perf_counter() - start, bool(result.checked)

    return run


def plain_way(stack: ExitStack) -> Callable[[Any], Sample]:
    """``pytest`` in a subprocess per submission, in a fresh scratch directory."""
    where = stack.enter_context(tempfile.TemporaryDirectory(prefix="kodcode-plain-"))
    script = Path(sys.executable).with_name("pytest")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pytest"]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environment.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONDONTWRITEBYTECODE="1")
    runs = itertools.count()

    def run(pair) -> Sample:
        problem, code = pair
        folder = Path(where, str(next(runs)))
        folder.mkdir()
        (folder / "solution.py").write_text(code)
        (folder / "test_solution.py").write_text(pytest_file.TESTS_PREFIX + problem.test_code)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [*command, "--rootdir=.", "-p", "no:cacheprovider", "-q"],
            cwd=folder,
            env=environment,
            capture_output=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return cpu, wall, done.returncode == 0

    return run


NUMPY_PROGRAM = "import numpy\nprint(int(numpy.arange(int(input())).sum()))\n"


def numpy_way(stack: ExitStack, heavy: Any, tests: int) -> Callable[[Any], Sample]:
    """A NumPy stdin program of ``tests`` tests (the pair is ignored) on a pool whose heavy
    templates are ``heavy``; CPU: all its tests'."""
    pool = stack.enter_context(SandboxPool(workers=1, heavy=heavy))
    job = Job(code=NUMPY_PROGRAM, inputs=["10"] * tests)

    def run(pair) -> Sample:
        start = time.perf_counter()
        runs = pool.run(job).runs
        wall = time.perf_counter() - start
        return sum(r.cpu_time for r in runs), wall, all(r.stdout == b"45\n" for r in runs)

    return run


# -- the run ----------------------------------------------------------------------------------


def measure(rounds: int) -> dict[str, Any]:
    """Every way on every pair, ``rounds`` times, the ways interleaved within each round (so
    that a machine's drift hits them alike), after one warm-up pass."""
    pairs = load_pairs()
    shared = [("numpy", *DEFAULT_HEAVY[1])]  # one template for NumPy and pytest
    with ExitStack() as stack:
        ways = {
            "sandbox pytest": grader_way(stack),
            "sandbox pytest, no pytest template": grader_way(stack, [("numpy",)]),
            "sandbox pytest, pytest imported": grader_way(stack, [("numpy",), ("pytest",)]),
        }
        job_code = emulator_job_code()
        if job_code is not None:
            ways["emulator"] = emulator_way(stack, job_code)
        ways["plain pytest"] = plain_way(stack)
        for tests in (1, 20):
            for label, heavy in (("numpy", DEFAULT_HEAVY), ("numpy+pytest", shared)):
                name = f"numpy program, {tests} tests, {label} template"
                ways[name] = numpy_way(stack, heavy, tests)
        for way in ways.values():
            for pair in pairs:
                way(pair)
        samples: dict[str, list[Sample]] = {name: [] for name in ways}
        for _ in range(rounds):
            for pair in pairs:
                for name, way in ways.items():
                    samples[name].append(way(pair))
    summaries = {name: _summary(taken) for name, taken in samples.items()}
    ours = summaries["sandbox pytest"]
    ratios = {
        f"{name} / sandbox pytest": {key: way[key] / ours[key] for key in ("cpu_ms", "wall_ms")}
        for name, way in summaries.items()
        if name != "sandbox pytest" and not name.startswith("numpy")
    }
    for tests in (1, 20):
        alone = summaries[f"numpy program, {tests} tests, numpy template"]
        shared = summaries[f"numpy program, {tests} tests, numpy+pytest template"]
        ratios[f"numpy program, {tests} tests: numpy+pytest / numpy template"] = {
            key: shared[key] / alone[key] for key in ("cpu_ms", "wall_ms")
        }
    return {"rounds": rounds, "problems": len(pairs), "ways": summaries, "ratios": ratios}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    report = measure(args.rounds)
    print(f"{report['problems']} KodCode problems x {report['rounds']} rounds, one worker")
    for name, way in report["ways"].items():
        print(
            f"{name:46s} CPU {way['cpu_ms']:7.1f} ms  wall {way['wall_ms']:7.1f} ms  "
            f"({way['passed']}/{way['submissions']} passed)"
        )
    for name, ratio in report["ratios"].items():
        print(f"{name:58s} CPU {ratio['cpu_ms']:6.2f}x  wall {ratio['wall_ms']:6.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
