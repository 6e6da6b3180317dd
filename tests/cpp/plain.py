"""The reference run of a C++ program: as a contest judge builds and runs it.

Built with the documented command (``g++ -std=c++17 -O2 -o solution solution.cpp``, the same
flags as the sandbox's build, no precompiled header), unconfined but under the build's limits;
run as ``./solution < input > output`` in a fresh directory, stdin and stdout redirected to
files, the environment a sandbox child gets, default signal dispositions, and the judge's
limits: CPU time (SIGXCPU at the limit), a stack as large as the memory limit, output size
(SIGXFSZ), no core dumps. Memory is resident memory, as the sandbox's: watched while it runs
(past the limit, the run is killed) and judged by the peak RSS ``wait4`` reports. No limit on
address space (``RLIMIT_DATA``): a judge bounds what a program holds, not what it reserves;
the sandbox's 16 x backstop is its own, and no case here reaches it (each thread's stack of
the memory limit would: the sandbox gives threads 8 MiB, ``thread-stack`` in
``docs/plain-run.md``, so 64 threads run in both).

Its result is a :class:`~evaluator.sandbox.RunResult`, so the sandbox's verdict rule
(:func:`evaluator.harness.outcome.failure`) reads both runs alike.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from evaluator.languages import BuildLimits, get_language
from evaluator.languages.cpp import THREADS_CODE, THREADS_SOURCE
from evaluator.sandbox import Job, LimitHit, Limits, RunResult
from evaluator.sandbox.reference import child_environment

CPP = get_language("cpp")
CASES_FILE = Path(__file__).with_name("cases.toml")
LIMITS = Limits(time_limit=1.0, memory_limit=256, output_bytes=1 << 20)
# Builds that must fail by a limit do so in seconds, not the default tens of seconds: memory
# ends the compile bomb and the /dev/random include (~2 s, at 1 GiB). CPU is the product's
# default: a bits/stdc++.h build without the precompiled header takes ~1.6 s of CPU here, and
# went past 4 s on a loaded CI machine (cc1plus killed). The wall clock is only a backstop.
BUILD_LIMITS = BuildLimits(time_limit=10.0, wall_limit=60.0, memory_limit=1024)
DEFAULT_INPUT = "3\n1 2\n3 4\n5 6\n"


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    stdin: bytes
    deviation: str | None = None
    verdict: str = "ran"  # what both runs end in: "ran" (by themselves), RE, TLE, MLE, OLE, CE
    plain_stdout: bytes = b""  # a deviation's: what each run prints instead
    sandbox_stdout: bytes = b""


@dataclass(frozen=True)
class Plain:
    """A plain build and run: the build's success and diagnostics, and the run (None when
    the build failed)."""

    built: bool
    diagnostics: str
    run: RunResult | None


def load_cases() -> list[Case]:
    with CASES_FILE.open("rb") as file:
        table = tomllib.load(file)
    cases = []
    for name, fields in table.items():
        if "input_hex" in fields:
            stdin = bytes.fromhex(fields["input_hex"])
        else:
            stdin = fields.get("input", DEFAULT_INPUT).encode()
        expected = {k: fields.get(k, "").encode() for k in ("plain_stdout", "sandbox_stdout")}
        source = fields["source"].lstrip("\n")
        verdict = fields.get("verdict", "ran")
        cases.append(Case(name, source, stdin, fields.get("deviation"), verdict, **expected))
    return cases


def _build_limits() -> None:
    cpu = math.ceil(BUILD_LIMITS.time_limit)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    memory = BUILD_LIMITS.memory_limit << 20
    resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (BUILD_LIMITS.output_bytes,) * 2)


def build_plain(source: str, where: str, with_thread_stack: bool = False) -> tuple[bool, str]:
    """``g++ <flags> -o solution solution.cpp`` in ``where``: (built, diagnostics);
    ``with_thread_stack``: with the sandbox's threads' translation unit too (to compare
    binaries; a plain run never has it)."""
    Path(where, "solution.cpp").write_bytes(source.encode("utf-8", "surrogateescape"))
    command = [CPP.compiler, *CPP.default_flags, "-o", "solution", "solution.cpp"]
    if with_thread_stack:
        Path(where, THREADS_SOURCE).write_text(THREADS_CODE)
        command.append(THREADS_SOURCE)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C"}
    process = subprocess.Popen(
        command, cwd=where, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, env=env, preexec_fn=_build_limits, start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = process.communicate(timeout=BUILD_LIMITS.wall_limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        return False, "wall-clock limit"
    return process.returncode == 0, out.decode("utf-8", "replace")


# The judge's launcher: a fresh small interpreter that forks the program, sets a judge's
# limits and dispositions in the child and execs the binary, then reports the child's pid and,
# once it ends, its wait4 status and rusage on the descriptor it is given. Linux carries the
# resident high-water mark across fork and exec, so a binary forked straight from this test
# process (which may hold a loaded model) would report this process's peak as its own; forked
# from the launcher, it starts from the launcher's few megabytes, as the sandbox's start from
# its template's.
_LAUNCH = """
import json, os, resource, signal, sys
cpu, stack, output, report = map(int, sys.argv[1:5])
pid = os.fork()
if pid == 0:
    for sig in range(1, signal.NSIG):
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
    resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.close(report)
    try:
        os.execv(sys.argv[5], sys.argv[6:])
    finally:
        os._exit(127)
os.write(report, b"%d\\n" % pid)
_, status, usage = os.wait4(pid, 0)
os.write(report, json.dumps([status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss]).encode())
"""


def _launcher(limits: Limits, stack: int | None, report: int, argv: list[str]) -> list[str]:
    memory = limits.memory_limit << 20
    numbers = (
        math.ceil(limits.time_limit),
        memory if stack is None else stack,
        limits.output_bytes,
        report,
    )
    executable = shutil.which(argv[0], path="/usr/bin:/bin") if "/" not in argv[0] else argv[0]
    return [sys.executable, "-I", "-S", "-c", _LAUNCH, *map(str, numbers), str(executable), *argv]


def run_binary(
    where: str,
    stdin: bytes,
    limits: Limits = LIMITS,
    stack: int | None = None,
    argv: list[str] | None = None,
    environment: dict[str, str] | None = None,
) -> RunResult:
    """``./solution < input > output`` in ``where`` under the judge's limits (``stack``:
    bytes of stack instead of the memory limit's; ``argv``: another command, a runtime's
    ``node main.js``, its first item found on the system's PATH; ``environment``: variables
    beside a sandbox child's, a language's ``run_environment``)."""
    Path(where, "input").write_bytes(stdin)
    paths = {name: os.path.join(where, name) for name in ("input", "output", "errors")}
    read_end, write_end = os.pipe()
    with (
        open(paths["input"], "rb") as fd0,
        open(paths["output"], "wb") as fd1,
        open(paths["errors"], "wb") as fd2,
        os.fdopen(read_end, "rb") as report,
    ):
        start = time.monotonic()
        process = subprocess.Popen(
            _launcher(limits, stack, write_end, argv or ["./solution"]), cwd=where, stdin=fd0, stdout=fd1, stderr=fd2,
            env={**child_environment(where), **(environment or {})}, start_new_session=True,
            pass_fds=(write_end,),
        )  # fmt: skip
        os.close(write_end)
        program = int(report.readline() or 0)
        timed_out = over_memory = False
        while process.poll() is None:  # the judge's watch: wall time and resident memory
            if time.monotonic() - start > limits.effective_wall_limit:
                _kill(program)
                timed_out = True
            if _resident(program) > limits.memory_limit << 20:
                _kill(program)
                over_memory = True
            time.sleep(0.005)
        status, cpu, peak_kb = json.loads(report.read() or b"[9, 0.0, 0]")
    try:  # a bounded fork tree may leave members behind: the judge kills the group
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    run = RunResult(
        status="ok",
        cpu_time=cpu,
        wall_time=time.monotonic() - start,
        peak_memory_kb=peak_kb,
        stdout=Path(paths["output"]).read_bytes(),
        stderr=Path(paths["errors"]).read_bytes()[-(16 << 10) :],
    )
    if os.WIFSIGNALED(status):
        run.status, run.signal = "lost", os.WTERMSIG(status)
    else:
        run.exit_code = os.WEXITSTATUS(status)
        run.status = "ok" if run.exit_code == 0 else "exit"
    run.stdout_truncated = len(run.stdout) >= limits.output_bytes
    # Memory first: RLIMIT_CPU stops a program at its CPU limit, so a peak past the memory
    # limit was reached before it (a judge watching memory would have stopped it there).
    if over_memory or run.peak_memory_kb >= limits.memory_limit << 10:
        run.limit = LimitHit.MEMORY
    elif timed_out:
        run.limit = LimitHit.WALL
    elif run.signal == signal.SIGXCPU or cpu > limits.time_limit:
        run.limit = LimitHit.CPU
    elif run.signal == signal.SIGXFSZ:
        run.limit = LimitHit.OUTPUT
    return run


def _kill(pid: int) -> None:
    if pid <= 0:  # no program started (0 would be this process's own group)
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def run_plain(case: Case, limits: Limits = LIMITS, stack: int | None = None) -> Plain:
    with tempfile.TemporaryDirectory(prefix="mcplaincpp-") as where:
        built, diagnostics = build_plain(case.source, where)
        if not built:
            return Plain(False, diagnostics, None)
        return Plain(True, diagnostics, run_binary(where, case.stdin, limits, stack))


def sandbox_job(binary: bytes, case: Case, limits: Limits = LIMITS) -> Job:
    text = case.stdin.decode("utf-8", "surrogateescape")
    return Job(code="", inputs=[text], limits=limits, executable=binary, argv=CPP.argv())
