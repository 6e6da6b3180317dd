"""The pool daemon every process of a user shares (:mod:`evaluator.sandbox.shared_pool`): jobs
and reports cross its socket unchanged, processes share one daemon and start no server of
their own, stops and dead daemons behave as with a pool of one's own, and nobody else gets in."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import CancelledError
from pathlib import Path

import psutil
import pytest

from evaluator.sandbox import reports
from evaluator.sandbox.jobs import Isolation, Job, LimitHit, Limits, Mode, Names, RunResult
from evaluator.sandbox.pool import SandboxPool, _run_result
from evaluator.sandbox.pool_daemon import _fields
from evaluator.sandbox.shared_pool import POOL_DIR_ENV, SharedSandboxPool, pool_directory

ECHO = "print(input()[::-1])"


@pytest.fixture
def pool_dir(monkeypatch):
    """A directory of this test's own: its daemons end when it is removed."""
    path = tempfile.mkdtemp(prefix="mcpt-", dir="/tmp")
    monkeypatch.setenv(POOL_DIR_ENV, path)
    yield path
    for log in Path(path).glob("*.log"):  # the daemons' stderr: shown with a failure
        sys.stderr.write(log.read_text(errors="replace"))
    subprocess.run(["rm", "-rf", path], check=False)


def _daemon(pool: SharedSandboxPool) -> psutil.Process:
    return psutil.Process(pool.info["daemon_pid"])


def _gone(pid: int, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.1)
    return False


# -- what crosses the socket -----------------------------------------------------------------

WIRE_JOBS = [
    Job(code=ECHO, inputs=["a", "b"]),
    Job(
        code="class Solution:\n    def f(self, x): return x",
        inputs=["[1]"],
        mode=Mode.CALL,
        func_name="f",
        entry_class="Solution",
        output_arg=0,
        limits=Limits(time_limit=2.5, wall_limit=4.0, wall_counts_wait=True, memory_limit=300),
        isolation=Isolation.SUBMISSION,
        names=Names(star=("typing",), modules=("math", "heapq")),
        environment={"recursion_limit": 5000},
    ),
    Job(
        code="def add(a, b): return a + b",
        inputs=[""],
        mode=Mode.ASSERTION,
        func_name="add",
        check_name="check",
        tests_code="def check(c): assert c(1, 2) == 3",
        support_code="HELP = 1",
    ),
    Job(
        code="",
        inputs=["1\n"],
        executable=b"\x7fELF\x00binary",
        argv=["./program", "-x"],
        limits=Limits(memory_limit=64, data_mb=512),
        files={"data/in.txt": b"\x00\xff"},
        fetch_files=["out.txt"],
        fetch_bytes=1024,
        input_file="input.txt",
        output_file="output.txt",
    ),
    Job(
        code="",
        inputs=["x"],
        runtime="/usr/bin/node",
        program_files={"main.js": b"console.log(1)", "lib/a.js": b"\x00"},
        argv=["node", "{program}/main.js"],
        memory_marks=["heap out of memory"],
        program_environment={"NODE_PATH": "/usr/lib/node_modules"},
    ),
]


@pytest.mark.parametrize("job", WIRE_JOBS, ids=lambda job: job.mode + str(bool(job.executable)))
def test_a_job_read_back_from_its_wire_writes_the_same_wire(job):
    again = Job.from_wire(job.to_wire(), job.executable)
    assert again.to_wire() == job.to_wire()
    assert again.executable == job.executable


RESULTS = [
    RunResult(status="ok", exit_code=0, cpu_time=0.25, wall_time=0.5, peak_memory_kb=9000,
              stdout=b"out\n", stderr=b"err"),
    RunResult(status="exception", exception="ValueError", limit=LimitHit.MEMORY, signal=9,
              value='[1, "\\ud800"]', blocked="socket", changed="sys.modules",
              stdout_truncated=True, stderr_truncated=True, checked=True),
    RunResult(status="exit", exit_code=3, file_error="the program wrote no output.txt"),
    RunResult(status="a status of the future", limit=LimitHit.WALL),
]  # fmt: skip


@pytest.mark.parametrize("result", RESULTS, ids=lambda result: result.status)
def test_a_result_crosses_the_socket_unchanged(result):
    head, value = reports.pack(_fields(result))
    fields = reports.unpack(head, value)
    assert fields is not None
    assert _run_result(fields, result.stdout, result.stderr) == result


# -- one daemon, shared ------------------------------------------------------------------------

_CLIENT = """
import json, os, sys
import psutil
from evaluator.sandbox import Job
from evaluator.sandbox.shared_pool import SharedSandboxPool
with SharedSandboxPool(workers=1, start=1) as pool:
    result = pool.run(Job(code="print(input()[::-1])", inputs=[sys.argv[1]]))
    children = [p.pid for p in psutil.Process().children(recursive=True)]
    print(json.dumps({"out": result.runs[0].stdout.decode(), "daemon": pool.info["daemon_pid"],
                      "children": children}))
"""


def _client(text: str) -> dict:
    import json

    done = subprocess.run(
        [sys.executable, "-c", _CLIENT, text],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_processes_share_one_daemon_and_start_no_server_of_their_own(pool_dir):
    first, second = _client("first"), _client("second")
    assert (first["out"], second["out"]) == ("tsrif\n", "dnoces\n")
    assert first["daemon"] == second["daemon"]
    assert first["children"] == second["children"] == []  # the daemon is nobody's child
    daemon = psutil.Process(first["daemon"])
    assert daemon.ppid() != os.getpid()
    sockets = [name for name in os.listdir(pool_dir) if name.endswith(".sock")]
    assert len(sockets) == 1


SITE_IMPORT = Job(code="import _pytest._argcomplete as m\nprint(m.__name__)", inputs=[""])


def test_the_daemon_grades_as_a_pool_of_ones_own(pool_dir):
    jobs = [
        Job(code=ECHO, inputs=["abc", "", "xyz"]),
        Job(code="import sys\nsys.stdout.write(sys.stdin.read()*2)\nraise SystemExit(3)",
            inputs=["q"]),
        Job(code="def f(a, b): return [a, b]", inputs=["1\n2", '"x"\n[null]'], mode=Mode.CALL,
            func_name="f"),
        Job(code="x = 1 / 0", inputs=["", ""]),
        Job(code="print(len(bytearray(400 << 20)))", inputs=[""],
            limits=Limits(memory_limit=128)),
        Job(code="while True: pass", inputs=[""], limits=Limits(time_limit=0.3)),
        Job(code="import socket\nsocket.socket()", inputs=[""]),
        SITE_IMPORT,
    ]  # fmt: skip
    with SandboxPool(workers=1) as own, SharedSandboxPool(workers=2) as shared:
        # the daemon's servers read what a pool of one's own lets read: a package of the
        # virtual environment's, imported by the program itself, not preloaded
        assert shared.run(SITE_IMPORT).runs[0].stdout == b"_pytest._argcomplete\n"
        for job in jobs:
            mine, theirs = own.run(job), shared.run(job)
            assert len(mine.runs) == len(theirs.runs)
            for a, b in zip(mine.runs, theirs.runs, strict=True):
                assert (a.status, a.exit_code, a.signal, a.limit, a.stdout, a.value) == (
                    b.status, b.exit_code, b.signal, b.limit, b.stdout, b.value)  # fmt: skip
                assert (a.exception, a.blocked) == (b.exception, b.blocked)
        assert shared.info["private_tmp"] == own.info["private_tmp"]


def test_early_exit_and_a_stop_cross_the_socket(pool_dir):
    with SharedSandboxPool(workers=1, start=1) as pool:
        seen: list[int] = []

        def until_failure(index: int, result: RunResult) -> bool:
            seen.append(index)
            return result.status == "ok"

        job = Job(code="print(10 // int(input()))", inputs=["1", "0", "2", "5"])
        result = pool.run(job, until_failure)
        assert seen == [0, 1] and [r.status for r in result.runs] == ["ok", "exception"]
        sleeper = pool.submit(Job(code="import time\ntime.sleep(60)", inputs=["", ""]))
        time.sleep(0.5)
        assert sleeper.stop()
        with pytest.raises(CancelledError):
            sleeper.result(timeout=10)
        # the same connection takes the next job
        assert pool.run(Job(code=ECHO, inputs=["ok"])).runs[0].stdout == b"ko\n"


def test_a_daemon_killed_mid_job_is_a_dead_server_the_job_goes_on(pool_dir):
    with SharedSandboxPool(workers=1, start=1) as pool:
        first = pool.info["daemon_pid"]
        slow = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\n"
        running = pool.submit(Job(code=slow + ECHO, inputs=[str(i) for i in range(6)]))
        time.sleep(1.0)
        os.kill(first, signal.SIGKILL)
        result = running.result(timeout=60)
        assert [r.stdout for r in result.runs] == [f"{i}\n".encode() for i in range(6)]
        again = pool.run(Job(code=ECHO, inputs=["x"]))
        assert again.runs[0].stdout == b"x\n"
        assert _gone(first)


def test_a_client_that_dies_mid_job_frees_its_server(pool_dir):
    """Its program is stopped at once: the daemon's only server grades the next process's
    job long before the killed one's loop would have ended (30 s of CPU)."""
    code = (
        "from evaluator.sandbox import Job, Limits\n"
        "from evaluator.sandbox.shared_pool import SharedSandboxPool\n"
        "pool = SharedSandboxPool(workers=1, start=1, daemon_workers=1)\n"
        "print(pool.info['daemon_pid'], flush=True)\n"
        "pool.run(Job(code='while True: pass', inputs=[''], limits=Limits(time_limit=30)))\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert client.stdout is not None
    daemon = int(client.stdout.readline())
    time.sleep(1.0)
    client.kill()
    client.wait()
    with SharedSandboxPool(workers=1, start=1, daemon_workers=1) as pool:
        assert pool.info["daemon_pid"] == daemon
        done = pool.submit(Job(code=ECHO, inputs=["next"]))
        assert done.result(timeout=15).runs[0].stdout == b"txen\n"


# -- who gets in, and how long it stays ------------------------------------------------------------


def test_another_user_is_not_served(pool_dir):
    with SharedSandboxPool(workers=1, start=1) as pool:
        path = pool.daemon.socket_path
        os.chmod(pool_dir, 0o711)  # even with the directory and socket opened to everyone,
        os.chmod(path, 0o666)  # the daemon serves no other user (SO_PEERCRED)
        try:
            pid = os.fork()
            if pid == 0:
                status = 1
                try:
                    os.setgid(65534)
                    os.setuid(65534)
                    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    sock.connect(path)
                    sock.settimeout(10)
                    status = 0 if sock.recv(1) == b"" else 2  # closed, no hello
                finally:
                    os._exit(status)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
        finally:
            os.chmod(pool_dir, 0o700)
        assert pool.run(Job(code=ECHO, inputs=["me"])).runs[0].stdout == b"em\n"


@pytest.mark.parametrize("mode", [0o777, 0o750])
def test_a_directory_others_may_enter_is_refused(monkeypatch, mode):
    path = tempfile.mkdtemp(prefix="mcpt-", dir="/tmp")
    os.chmod(path, mode)
    monkeypatch.setenv(POOL_DIR_ENV, path)
    try:
        with pytest.raises(PermissionError, match="0700"):
            pool_directory()
    finally:
        os.rmdir(path)


def test_the_daemon_leaves_when_idle_and_a_stale_socket_is_replaced(pool_dir):
    with SharedSandboxPool(workers=1, start=1, daemon_idle_seconds=1) as pool:
        first = pool.info["daemon_pid"]
        socket_path = pool.daemon.socket_path
    assert _gone(first)
    assert not os.path.exists(socket_path)
    # a daemon killed outright leaves its socket: the next process starts a fresh one
    with SharedSandboxPool(workers=1, start=1) as pool:
        second = pool.info["daemon_pid"]
        os.kill(second, signal.SIGKILL)
        assert _gone(second) and os.path.exists(socket_path)
    with SharedSandboxPool(workers=1, start=1) as pool:
        assert pool.info["daemon_pid"] not in (first, second)
        assert pool.run(Job(code=ECHO, inputs=["new"])).runs[0].stdout == b"wen\n"


def test_removing_the_directory_ends_the_daemon(pool_dir):
    with SharedSandboxPool(workers=1, start=1) as pool:
        daemon = _daemon(pool)
        servers = daemon.children()
        assert servers  # its fork server
    subprocess.run(["rm", "-rf", pool_dir], check=True)
    assert _gone(daemon.pid)
    assert all(_gone(server.pid) for server in servers)
