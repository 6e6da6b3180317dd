"""Plain run vs sandbox on real LLM-written programs: how often the verdicts agree, and why not.

Every program is run twice, with the same tests, limits and environment:

* **plain**: ``python3 solution.py < input > output`` as a contest judge runs it (the reference
  of ``docs/plain-run.md``; ``tests/python/plain.py`` is the same run without limits):
  this interpreter, a fresh directory, stdin and stdout redirected to files, the environment a
  sandbox child gets (``child_environment``), a 1 GiB stack, no core dumps, and the judge's
  limits the sandbox also applies (``Limits()``): CPU time (``RLIMIT_CPU``), output size
  (``RLIMIT_FSIZE``), a wall-clock timeout of ``2 x CPU + 1`` seconds (the sandbox's backstop),
  and memory as a judge measures it: peak RSS (``wait4``) at the sandbox's 1 GiB is MLE. No
  ``RLIMIT_DATA``: with a 1 GiB stack limit every thread of a plain run reserves a 1 GiB stack,
  which a 1 GiB data limit refuses (``can't start new thread``); only an 8 GiB ``RLIMIT_AS``
  keeps a runaway program from exhausting this shared machine. The verdict of a test, as the
  sandbox names it: over the CPU limit (``SIGXCPU``, CPU time over the limit, or the wall
  timeout) TLE, ``MemoryError`` or peak RSS at the limit MLE, an output file at the size limit
  OLE, any other non-zero exit or signal RE, else the judge's comparison of stdout (AC/WA).
* **sandbox**: this project's ``Grader`` (``--isolation``, adaptive by default), no early exit.

Sets (``--sets``):

``atcoder``  the AtCoder (and Codeforces) programs of both LiveCodeBench ``eval_all`` files
             (o1-mini, o1-preview; ``benchmarks/accuracy/lcb_o1.py`` loads them) on the sample
             tests of their statements, judged by ``lines`` or by ``float`` where the statement
             allows an error (as ``lcb_o1.py --judges float``); 6 s CPU per test; the ``plain``
             environment (their platform's). A program's verdict is its first non-AC test's.
``codet``    ``--codet-limit`` CodeGen-16B HumanEval completions (CodeT; sampled round-robin
             over the 164 problems, as ``benchmarks/speed/speed.py`` does). Plain: the whole
             program ``prompt + completion + "\\n" + test + "\\ncheck(entry_point)\\n"`` passes
             iff it exits with status 0 within 3 s of CPU. Sandbox: the assertion harness, AC
             or not. Agreement is on pass/fail.

Every disagreement (on the program's verdict; on the stdin sets also a program whose verdicts
agree but some test's does not, listed apart as ``test_level_only``) is run again once on both
sides, where the output could depend on string-hash order also as plain runs under
``PYTHONHASHSEED`` 0-4, and classified (``classify``): timing near the limit (both CPU times
within 20% of it), a program whose plain runs disagree with each other (hash seed or
randomness), a documented deviation of ``docs/plain-run.md``, a memory limit enforced
differently (the sandbox fails allocations, the plain run is judged by its peak), the sandbox's
prohibitions, the assertion harness's design (docs/grading.md, "Assertion tests"), or
``unexplained`` (with both outcomes and the stderr tails, for a look by hand).

Usage: ``python benchmarks/plain_vs_sandbox.py [--sets atcoder,codet] [--limit N]
[--codet-limit 3000] [--workers 2] [--isolation adaptive|test|submission] [--ids ID,...]``.
Writes ``benchmarks/results/plain_vs_sandbox.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "accuracy"))
sys.path.insert(0, str(HERE / "speed"))
sys.path.insert(0, str(HERE.parent))

from lcb_o1 import MODELS, Skip, atcoder_problem, load_records, program, tolerance  # noqa: E402
from speed import codet_cases  # noqa: E402

from evaluator.harness.assertion import can_split  # noqa: E402
from evaluator.judges import Judge, get_judge  # noqa: E402
from evaluator.problem import Harness, Problem, TestCase  # noqa: E402
from evaluator.runner import GradeOptions, Grader  # noqa: E402
from evaluator.sandbox import Isolation, Limits  # noqa: E402
from evaluator.sandbox.jobs import DEFAULT_STACK_MB  # noqa: E402
from evaluator.sandbox.reference import child_environment  # noqa: E402

RESULTS = HERE / "results" / "plain_vs_sandbox.json"
LIMITS = Limits()  # the sandbox's defaults: memory, output size
TIME_LIMITS = {"atcoder": 6.0, "codet": 3.0}
NEAR = 0.8  # "near the limit": CPU time at least this share of it
STDERR_TAIL = 600
CHECK_MARK = "__plain_vs_sandbox_check_returned__"
SAFETY_AS = 8 << 30  # address space: a guard for the shared machine, not a judge's limit


# --- the plain run -----------------------------------------------------------------------------


@dataclass
class PlainRun:
    """One plain run: exit status (negative: the signal), resources, stdout, stderr's tail."""

    status: int
    cpu: float
    wall: float
    maxrss_kb: int
    stdout: bytes
    stderr: str
    wall_timeout: bool
    output_full: bool


def _judge_limits(cpu_limit: float):
    cpu = max(1, round(cpu_limit))
    size = LIMITS.output_bytes

    def preexec() -> None:
        hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
        stack = DEFAULT_STACK_MB << 20
        resource.setrlimit(resource.RLIMIT_STACK, (stack if hard < 0 else min(stack, hard), hard))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (SAFETY_AS, SAFETY_AS))
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return preexec


def _wait(process: subprocess.Popen, wall: float) -> tuple[int, Any, bool]:
    """Wait for the process with a wall-clock timeout: (wait status, rusage, timed out). The
    child is waited for without reaping first, so the timer never signals a reused pid."""
    lock, reaped, fired = threading.Lock(), [False], [False]

    def kill() -> None:
        with lock:
            if not reaped[0]:
                fired[0] = True
                os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(wall, kill)
    timer.start()
    try:
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        with lock:
            reaped[0] = True
    finally:
        timer.cancel()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return status, usage, fired[0]


def run_plain(source: str, stdin: bytes, cpu_limit: float, env: dict | None = None) -> PlainRun:
    """``python3 solution.py < input > output`` in a fresh directory, with the judge's limits."""
    with tempfile.TemporaryDirectory(prefix="mcpvs-") as where:
        Path(where, "solution.py").write_text(source, encoding="utf-8", errors="surrogateescape")
        Path(where, "input").write_bytes(stdin)
        paths = [os.path.join(where, name) for name in ("input", "output", "stderr")]
        start = time.monotonic()
        with (
            open(paths[0], "rb") as fin,
            open(paths[1], "wb") as fout,
            open(paths[2], "wb") as ferr,
        ):
            process = subprocess.Popen(
                [sys.executable, "solution.py"],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=where,
                env={**child_environment(where), **(env or {})},
                preexec_fn=_judge_limits(cpu_limit),
                start_new_session=True,  # the wall timeout kills what it started too
            )
            _, usage, fired = _wait(process, 2 * cpu_limit + 1)
        wall = time.monotonic() - start
        stdout = Path(paths[1]).read_bytes()
        stderr = Path(paths[2]).read_bytes()
    return PlainRun(
        status=process.returncode,
        cpu=usage.ru_utime + usage.ru_stime,
        wall=wall,
        maxrss_kb=usage.ru_maxrss,
        stdout=stdout,
        stderr=stderr[-STDERR_TAIL:].decode("utf-8", "replace"),
        wall_timeout=fired,
        output_full=max(len(stdout), len(stderr)) >= LIMITS.output_bytes,
    )


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:200] if lines else ""


def run_failure(run: PlainRun, cpu_limit: float) -> tuple[str, str] | None:
    """The verdict of a plain run that did not end cleanly (as the sandbox names them). A peak
    over the memory limit comes first: a judge enforcing it would have stopped the run there."""
    if run.maxrss_kb >= LIMITS.memory_limit << 10:
        return "MLE", f"memory limit (peak {run.maxrss_kb // 1024} MB)"
    if run.status == -signal.SIGXCPU:
        return "TLE", f"CPU limit (SIGXCPU; wait4 measured {run.cpu:.2f} s)"
    if run.cpu > cpu_limit:
        return "TLE", f"CPU time {run.cpu:.2f} s over the limit"
    if run.wall_timeout:
        return "TLE", f"wall-clock timeout after {run.wall:.2f} s (CPU {run.cpu:.2f} s)"
    if run.status != 0 and run.output_full:
        return "OLE", "output over the limit"
    if run.status != 0 and _last_line(run.stderr).startswith("MemoryError"):
        return "MLE", "MemoryError"
    if run.status < 0:
        return "RE", f"killed by {signal.Signals(-run.status).name}"
    if run.status > 0:
        return "RE", _last_line(run.stderr) or f"exit status {run.status}"
    return None


def judge_of(spec: str | dict[str, Any] | None) -> Judge:
    if spec is None or isinstance(spec, str):
        return get_judge(spec or "lines")
    return get_judge(spec["type"], **{k: v for k, v in spec.items() if k != "type"})


# --- outcomes ----------------------------------------------------------------------------------


@dataclass
class TestOutcome:
    """One test's verdict on one side, with what explains it."""

    verdict: str
    message: str = ""
    cpu: float = 0.0
    stderr: str = ""  # plain: stderr's tail
    signal: str | None = None  # plain: the signal that ended the run


@dataclass
class Outcome:
    """A program's tests on one side; its verdict is the first non-AC test's."""

    runs: list[TestOutcome]
    checked: bool | None = None  # plain assertion programs: check() returned

    @property
    def deciding(self) -> TestOutcome:
        return next((r for r in self.runs if r.verdict != "AC"), self.runs[-1])

    @property
    def verdict(self) -> str:
        return self.deciding.verdict

    @property
    def message(self) -> str:
        return self.deciding.message

    @property
    def stderr(self) -> str:
        return self.deciding.stderr

    @property
    def signal(self) -> str | None:
        return self.deciding.signal

    @property
    def cpu(self) -> float:
        """The most CPU time any test took."""
        return max(r.cpu for r in self.runs)

    @property
    def tests(self) -> list[str]:
        return [r.verdict for r in self.runs]

    def test(self, index: int) -> Outcome:
        return Outcome([self.runs[index]], self.checked)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "verdict": self.verdict,
            "message": self.message,
            "tests": self.tests,
            "cpu": [round(r.cpu, 3) for r in self.runs],
            "signal": self.signal,
            "stderr_tail": self.stderr[-300:],
            "checked": self.checked,
        }
        if len(self.runs) > 1:
            data["messages"] = [r.message for r in self.runs]
        return {k: v for k, v in data.items() if v not in (None, "")}


def _signal_name(run: PlainRun) -> str | None:
    return signal.Signals(-run.status).name if run.status < 0 else None


def plain_stdin(problem: Problem, code: str, cpu_limit: float, env: dict | None = None) -> Outcome:
    """Each test as a plain run, judged as the grader judges it."""
    check = judge_of(problem.judge)
    runs = []
    for test in problem.tests:
        run = run_plain(code, test.input.encode("utf-8", "surrogateescape"), cpu_limit, env)
        verdict = run_failure(run, cpu_limit)
        if verdict is None:
            comparison = check(run.stdout.decode("utf-8", "surrogateescape"), test.output)
            verdict = ("AC", "") if comparison.ok else ("WA", comparison.message[:200])
        runs.append(TestOutcome(*verdict, run.cpu, run.stderr, _signal_name(run)))
    return Outcome(runs)


def plain_script(
    source: str, cpu_limit: float, env: dict | None = None, diagnose: bool = False
) -> Outcome:
    """A whole assertion program as a plain run: AC iff it exits with status 0 in the limit.
    ``diagnose``: when it passed, run it again with a marker printed after ``check()``;
    ``checked`` then says whether it passed by running the tests or by exiting early."""
    run = run_plain(source, b"", cpu_limit, env)
    verdict, message = run_failure(run, cpu_limit) or ("AC", "")
    checked = None
    if verdict == "AC" and diagnose:
        marked = source + f"\n__import__('sys').stderr.write({CHECK_MARK!r})\n"
        checked = CHECK_MARK in run_plain(marked, b"", cpu_limit, env).stderr
    return Outcome([TestOutcome(verdict, message, run.cpu, run.stderr, _signal_name(run))], checked)


def sandbox_outcome(result) -> Outcome:
    runs = [TestOutcome(str(t.verdict), t.message[:300], t.cpu_time) for t in result.tests]
    if not runs:  # the problem itself is broken: nothing ran
        runs = [TestOutcome(str(result.verdict), result.message[:300])]
    return Outcome(runs)


# --- the sets ----------------------------------------------------------------------------------


@dataclass
class Item:
    """One program of a set: what the sandbox grades, and what the plain run runs."""

    group: str  # the set
    id: str
    problem: Problem
    code: str  # for the grader
    plain_code: str  # stdin: the same program; assertion: the whole HumanEval program
    source: str = ""  # the LLM's program, for the classification's heuristics


_CF_SAMPLE = re.compile(r"Sample (Input|Output) (\d+):[ \t]*$", re.MULTILINE)


def codeforces_tests(content: str) -> list[TestCase]:
    """Sample tests of a LiveCodeBench Codeforces statement (``Sample Input 1:``, every line
    of the input followed by a blank line; the output up to the first blank line)."""
    marks = list(_CF_SAMPLE.finditer(content))
    inputs: dict[str, str] = {}
    outputs: dict[str, str] = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(content)
        body = content[mark.end() : end].replace("\r\n", "\n").strip("\n")
        if mark.group(1) == "Input":
            inputs[mark.group(2)] = re.sub(r"\n\n", "\n", body).rstrip() + "\n"
        else:
            outputs[mark.group(2)] = re.split(r"\n[ \t]*\n", body, maxsplit=1)[0].rstrip() + "\n"
    numbers = sorted(set(inputs) & set(outputs), key=int)
    if not numbers or set(inputs) != set(outputs):
        return []
    return [TestCase(inputs[n], outputs[n]) for n in numbers]


def contest_problem(record: dict) -> Problem:
    if record["platform"] == "atcoder":
        return atcoder_problem(record, "float")
    tests = codeforces_tests(record["question_content"])
    if not tests:
        raise Skip("samples not parseable")
    return Problem(
        id=record["question_id"],
        harness=Harness.STDIN,
        tests=tests,
        judge=tolerance(record["question_content"]) or "lines",
        metadata={"platform": record["platform"]},
    )


def atcoder_items(limit: int | None) -> tuple[list[Item], dict[str, int]]:
    items, skipped = [], Counter()
    for model in MODELS:
        records = [r for r in load_records(model) if r["platform"] in ("atcoder", "codeforces")]
        for record in records[:limit] if limit else records:
            try:
                problem = contest_problem(record)
            except Skip as exc:
                skipped[f"{record['platform']}: {exc}"] += 1
                continue
            code = program(record, problem, thread_join=False)
            if not code:
                skipped[f"{record['platform']}: no code"] += 1
                continue
            name = f"{model}/{record['platform']}/{record['question_id']}"
            items.append(Item("atcoder", name, problem, code, code, code))
    return items, dict(skipped)


def codet_items(limit: int) -> tuple[list[Item], dict[str, int]]:
    items = []
    for case in codet_cases(limit):
        whole = case.lcb_payload["program"]
        items.append(Item("codet", case.id, case.problem, case.ours_code, whole, case.ours_code))
    return items, {}


# --- running both sides ------------------------------------------------------------------------


def run_plain_side(
    items: list[Item], cpu_limit: float, workers: int, desc: str, diagnose: bool = False
) -> list[Outcome]:
    def one(item: Item) -> Outcome:
        if item.problem.harness is Harness.STDIN:
            return plain_stdin(item.problem, item.plain_code, cpu_limit)
        return plain_script(item.plain_code, cpu_limit, diagnose=diagnose)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(tqdm(pool.map(one, items), total=len(items), desc=desc, file=sys.stderr))


def run_sandbox_side(grader: Grader, items: list[Item], desc: str) -> list[Outcome]:
    bar = tqdm(total=len(items), desc=desc, file=sys.stderr)
    lock = threading.Lock()

    def tick(_result) -> None:
        with lock:
            bar.update()

    try:
        results = grader.grade_many([(i.problem, i.code) for i in items], progress=tick)
    finally:
        bar.close()
    return [sandbox_outcome(r) for r in results]


def agree(set_name: str, plain: Outcome, sandbox: Outcome) -> bool:
    if set_name == "codet":  # pass/fail: a failing whole program has no WA to tell apart
        return (plain.verdict == "AC") == (sandbox.verdict == "AC")
    return plain.verdict == sandbox.verdict


def test_level(set_name: str, plain: Outcome, sandbox: Outcome) -> str | None:
    """``program`` for a disagreement on the program's verdict, ``test`` when the verdicts
    agree but some test's does not (stdin sets), None when everything agrees."""
    if not agree(set_name, plain, sandbox):
        return "program"
    if set_name != "codet" and plain.tests != sandbox.tests:
        return "test"
    return None


def differs(set_name: str, plain: Outcome, sandbox: Outcome, level: str) -> bool:
    """A disagreement on the program's verdict, or (``level="test"``) on any test's."""
    if level == "test":
        return plain.tests != sandbox.tests
    return not agree(set_name, plain, sandbox)


def hash_seed_verdicts(item: Item, cpu_limit: float, seeds=range(5)) -> list[str]:
    """The plain verdicts under several fixed string-hash seeds."""
    verdicts = []
    for seed in seeds:
        env = {"PYTHONHASHSEED": str(seed)}
        if item.problem.harness is Harness.STDIN:
            verdicts.append(plain_stdin(item.problem, item.plain_code, cpu_limit, env).verdict)
        else:
            verdicts.append(plain_script(item.plain_code, cpu_limit, env).verdict)
    return verdicts


# --- classifying a disagreement ----------------------------------------------------------------

ASSERTION_SPLIT = (
    "assertion harness runs tests apart from the candidate (by design, see docs/grading.md, "
    "'Assertion tests')"
)


def near_limit(plain: Outcome, sandbox: Outcome, cpu_limit: float) -> bool:
    return min(plain.cpu, sandbox.cpu) >= NEAR * cpu_limit


def classify(item: Item, row: dict, cpu_limit: float) -> tuple[str, str]:
    """(category, detail) of a disagreement, from both runs and both reruns."""
    plain, sandbox = row["plain"], row["sandbox"]
    again_plain, again_sandbox = row["rerun_plain"], row["rerun_sandbox"]
    seeds = row.get("hash_seed_verdicts")
    reproduced = differs(item.group, again_plain, again_sandbox, row["level"])
    if row["level"] == "test":  # look at the first test whose verdicts differ
        index = next(
            k for k, (a, b) in enumerate(zip(plain.tests, sandbox.tests, strict=False)) if a != b
        )
        plain, sandbox = plain.test(index), sandbox.test(index)
        again_plain, again_sandbox = again_plain.test(index), again_sandbox.test(index)
    if near_limit(plain, sandbox, cpu_limit) or near_limit(again_plain, again_sandbox, cpu_limit):
        return "timing near the limit", (
            f"CPU plain {plain.cpu:.2f}/{again_plain.cpu:.2f} s, sandbox {sandbox.cpu:.2f}/"
            f"{again_sandbox.cpu:.2f} s (limit {cpu_limit:g} s); rerun "
            + ("disagrees again" if reproduced else "agrees")
        )
    if "wall-clock backstop" in sandbox.message or "wall-clock timeout" in plain.message:
        return (
            "timing: wall-clock backstop under machine load",
            f"{plain.message} / {sandbox.message}",
        )
    if seeds and len(set(seeds)) > 1:
        return "documented deviation: shared-hash-seed", (
            f"the plain verdict depends on the hash seed (PYTHONHASHSEED 0-4: {seeds}); a "
            "sandbox worker's children share one seed"
        )
    if plain.verdict != again_plain.verdict or plain.tests != again_plain.tests:
        return "program nondeterministic", (
            f"two plain runs disagree ({plain.verdict} then {again_plain.verdict})"
        )
    if "sandbox refused" in sandbox.message:
        return "sandbox prohibition (by design)", sandbox.message
    threaded = "threading" in item.source
    if threaded and ("SIGSEGV" in sandbox.message or plain.signal == "SIGSEGV"):
        return "documented deviation: thread-stack", (
            "C-level recursion in a thread: the sandbox's threads have 8 MiB stacks, a plain "
            f"run's 1 GiB (its stack limit); plain {plain.verdict} ({plain.message}, ended by "
            f"{plain.signal}), sandbox {sandbox.verdict} ({sandbox.message})"
        )
    if plain.verdict == "MLE" and threaded and sandbox.verdict in ("AC", "WA"):
        return "memory limit hit in a thread: no MLE in the sandbox (suspected sandbox bug)", (
            "the thread's allocation fails at the 1 GiB RLIMIT_DATA (MemoryError), the thread "
            "ends, the process exits 0: the sandbox judges the output (peak RSS stays just "
            f"under the limit); plain {plain.message}, sandbox {sandbox.verdict} "
            f"({sandbox.message})"
        )
    if "MLE" in (sandbox.verdict, plain.verdict):
        return "memory limit: enforced differently", (
            "the sandbox fails allocations at 1 GiB (RLIMIT_DATA), the plain run is judged by "
            f"its peak RSS: plain {plain.message}, sandbox {sandbox.verdict} ({sandbox.message})"
        )
    if "OLE" in (sandbox.verdict, plain.verdict):
        return "documented deviation: output-limit-signal", f"{plain.message} / {sandbox.message}"
    if "__file__" in item.source and "FileNotFoundError" in sandbox.message:
        return "documented deviation: script-not-on-disk", sandbox.message
    if item.problem.harness is Harness.ASSERTION:
        return classify_assertion(item, again_plain, sandbox)
    if not reproduced:
        return "not reproduced on rerun", "the rerun agrees; no cause found"
    return (
        "unexplained",
        f"plain {plain.verdict} {plain.message!r} / sandbox {sandbox.verdict} "
        + (f"{sandbox.message!r}"),
    )


def classify_assertion(item: Item, plain: Outcome, sandbox: Outcome) -> tuple[str, str]:
    if plain.verdict == "AC" and plain.checked is False:
        return "assertion harness: a pass needs check() to return (by design)", (
            "the whole program exits with status 0 before check() returns (exit()/sys.exit() "
            f"or os._exit in the completion); sandbox: {sandbox.verdict} {sandbox.message!r}"
        )
    problem = item.problem
    if can_split(problem.prompt, problem.test_code, problem.entry_point or ""):
        return ASSERTION_SPLIT, f"plain {plain.verdict} / sandbox {sandbox.verdict}: " + (
            sandbox.message or plain.message
        )
    return (
        "unexplained",
        f"plain {plain.verdict} {plain.message!r} / sandbox {sandbox.verdict} "
        + (f"{sandbox.message!r}"),
    )


# --- one set, end to end -----------------------------------------------------------------------


def evaluate(set_name: str, args) -> dict:
    cpu_limit = TIME_LIMITS[set_name]
    if set_name == "atcoder":
        items, skipped = atcoder_items(args.limit)
    else:
        items, skipped = codet_items(args.limit or args.codet_limit)
    if args.ids:
        wanted = set(args.ids.split(","))
        items = [i for i in items if i.id in wanted]
    options = GradeOptions(time_limit=cpu_limit, isolation=Isolation(args.isolation))
    start = time.monotonic()
    with Grader(options, workers=args.workers) as grader:
        sandbox = run_sandbox_side(grader, items, f"{set_name} sandbox")
        plain = run_plain_side(items, cpu_limit, args.workers, f"{set_name} plain")
        rows = [
            {"item": item, "plain": p, "sandbox": s, "level": level}
            for item, p, s in zip(items, plain, sandbox, strict=True)
            for level in [test_level(set_name, p, s)]
            if level is not None
        ]
        # Every disagreement once more on both sides, and under fixed hash seeds.
        again = [r["item"] for r in rows]
        for row, outcome in zip(
            rows, run_sandbox_side(grader, again, "rerun sandbox"), strict=True
        ):
            row["rerun_sandbox"] = outcome
    for row, outcome in zip(
        rows, run_plain_side(again, cpu_limit, args.workers, "rerun plain", True), strict=True
    ):
        row["rerun_plain"] = outcome
    for row in tqdm(rows, desc="hash seeds, classify", file=sys.stderr):
        timing = near_limit(row["plain"], row["sandbox"], cpu_limit) or near_limit(
            row["rerun_plain"], row["rerun_sandbox"], cpu_limit
        )
        output_order = {row["plain"].verdict, row["sandbox"].verdict} <= {"AC", "WA", "RE"}
        probe = output_order and not timing  # only where the output can depend on hash order
        row["hash_seed_verdicts"] = hash_seed_verdicts(row["item"], cpu_limit) if probe else None
        row["category"], row["detail"] = classify(row["item"], row, cpu_limit)
    seconds = time.monotonic() - start
    return summarize(set_name, items, skipped, plain, sandbox, rows, cpu_limit, seconds)


def summarize(set_name, items, skipped, plain, sandbox, rows, cpu_limit, seconds) -> dict:
    n = len(items)
    test_rows = [r for r in rows if r["level"] == "test"]
    rows = [r for r in rows if r["level"] == "program"]
    agreed = n - len(rows)
    confusion = Counter((p.verdict, s.verdict) for p, s in zip(plain, sandbox, strict=True))
    tests = sum(len(i.problem.tests) for i in items)
    same_tests = sum(
        a == b
        for p, s in zip(plain, sandbox, strict=True)
        for a, b in zip(p.tests, s.tests, strict=False)
    )
    return {
        "set": set_name,
        "programs": n,
        "skipped": skipped,
        "cpu_limit_s": cpu_limit,
        "agreement_rule": "pass/fail" if set_name == "codet" else "same verdict",
        "agree": agreed,
        "agreement": round(agreed / n, 5) if n else None,
        "same_pass_fail": sum(
            (p.verdict == "AC") == (s.verdict == "AC") for p, s in zip(plain, sandbox, strict=True)
        ),
        "tests": tests,
        "same_test_verdicts": same_tests if set_name == "atcoder" else None,
        "plain_verdicts": dict(Counter(p.verdict for p in plain)),
        "sandbox_verdicts": dict(Counter(s.verdict for s in sandbox)),
        "confusion": {f"{p} x {s}": k for (p, s), k in sorted(confusion.items())},
        "categories": dict(Counter(r["category"] for r in rows)),
        "test_level_categories": dict(Counter(r["category"] for r in test_rows)),
        "disagreements": [disagreement_row(r) for r in rows],
        "test_level_only": [disagreement_row(r) for r in test_rows],
        "seconds": round(seconds, 1),
    }


def disagreement_row(row: dict) -> dict:
    return {
        "id": row["item"].id,
        "category": row["category"],
        "detail": row["detail"],
        "plain": row["plain"].to_dict(),
        "sandbox": row["sandbox"].to_dict(),
        "rerun": {"plain": row["rerun_plain"].verdict, "sandbox": row["rerun_sandbox"].verdict},
        "hash_seed_verdicts": row["hash_seed_verdicts"],
    }


# --- output ------------------------------------------------------------------------------------


def print_report(report: dict) -> None:
    n = report["programs"]
    print(f"== {report['set']}: {n} programs, {report['seconds']} s; skipped {report['skipped']}")
    print(
        f"agreement ({report['agreement_rule']}): {report['agree']}/{n} = "
        f"{100 * (report['agreement'] or 0):.2f}%; same pass/fail {report['same_pass_fail']}/{n}"
    )
    if report["same_test_verdicts"] is not None:
        print(f"test verdicts equal: {report['same_test_verdicts']}/{report['tests']}")
    print(confusion_table(report))
    rows = [("DISAGREE", r) for r in report["disagreements"]]
    rows += [("TESTS DIFFER", r) for r in report["test_level_only"]]
    for what, row in rows:
        print(
            f"{what} {row['id']}: plain {row['plain']['verdict']} sandbox "
            f"{row['sandbox']['verdict']} (rerun {row['rerun']['plain']}/"
            f"{row['rerun']['sandbox']}) tests {row['plain']['tests']}/{row['sandbox']['tests']} "
            f"[{row['category']}] {row['detail']}"
        )
        if row["category"] == "unexplained":
            print(f"  plain stderr tail: {row['plain'].get('stderr_tail', '')!r}")
            print(f"  sandbox message: {row['sandbox'].get('message', '')!r}")


def confusion_table(report: dict) -> str:
    cells = {tuple(k.split(" x ")): v for k, v in report["confusion"].items()}
    order = ["AC", "WA", "RE", "TLE", "MLE", "OLE", "ERROR"]
    plains = sorted({p for p, _ in cells}, key=lambda v: order.index(v) if v in order else 99)
    boxes = sorted({s for _, s in cells}, key=lambda v: order.index(v) if v in order else 99)
    lines = ["plain \\ sandbox " + "".join(f"{s:>7}" for s in boxes)]
    for p in plains:
        lines.append(f"{p:<16}" + "".join(f"{cells.get((p, s), 0):>7}" for s in boxes))
    return "\n".join(lines)


def machine() -> dict:
    return {
        "cpu_cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="atcoder,codet", help="comma-separated: atcoder,codet")
    parser.add_argument("--limit", type=int, default=None, help="first N programs per set")
    parser.add_argument("--codet-limit", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--isolation", choices=[str(i) for i in Isolation], default=str(Isolation.ADAPTIVE)
    )
    parser.add_argument("--ids", default="", help="only these program ids (comma-separated)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = sorted(set(sets) - set(TIME_LIMITS))
    if unknown:
        parser.error(f"unknown set(s): {', '.join(unknown)}")
    reports = []
    for set_name in sets:
        report = evaluate(set_name, args)
        print_report(report)
        reports.append(report)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "command": "python " + " ".join([os.path.relpath(__file__), *(argv or sys.argv[1:])]),
        "machine": machine(),
        "isolation": args.isolation,
        "workers": args.workers,
        "limits": {"cpu_s": TIME_LIMITS, "memory_mb": LIMITS.memory_limit},
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "sets": reports,
    }
    out.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
