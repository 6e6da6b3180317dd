"""Hostile programs in the real sandbox: each is contained, reported with the right outcome,
leaves the host untouched, and leaves the pool healthy."""

from __future__ import annotations

import os
import signal
import textwrap

import pytest

from evaluator.sandbox import Isolation, Job, LimitHit, Limits, RunResult, kernel

TIGHT = Limits(time_limit=1.0, wall_limit=2.5, memory_limit=256, output_bytes=1 << 20)
# For programs that must die of CPU time even on a loaded machine: a distant backstop.
SPIN = Limits(time_limit=1.0, wall_limit=20.0, memory_limit=256, output_bytes=1 << 20)


def run(pool, code: str, stdin: str = "", limits: Limits = TIGHT, **kw) -> RunResult:
    job = Job(code=textwrap.dedent(code), inputs=[stdin], limits=limits, **kw)
    return pool.run(job).runs[0]


def assert_pool_healthy(pool) -> None:
    result = run(pool, "print(input()[::-1])", "abc")
    assert result.clean_exit and result.stdout == b"cba\n"


@pytest.fixture(autouse=True)
def _healthy_after(pool):
    yield
    assert_pool_healthy(pool)


def test_fork_bomb_is_refused(pool):
    result = run(pool, "import os\nwhile True: os.fork()")
    assert result.status == "exception" and result.exception == "PermissionError"
    assert result.blocked == "fork"


def test_memory_bomb_hits_memory_limit(pool):
    result = run(pool, "x = []\nwhile True: x.append(bytearray(10**7))")
    assert result.limit is LimitHit.MEMORY


def test_infinite_loop_hits_cpu_limit(pool):
    result = run(pool, "while True: pass", limits=SPIN)
    assert result.limit is LimitHit.CPU and result.signal == signal.SIGKILL
    assert 0.9 <= result.cpu_time < 2.0


def test_sleep_hits_wall_backstop(pool):
    result = run(pool, "import time; time.sleep(100)")
    assert result.limit is LimitHit.WALL and result.cpu_time < 0.5


@pytest.mark.parametrize(
    "code",
    [
        "import os, signal; os.kill(os.getppid(), signal.SIGKILL)",
        "import os, signal; os.kill(-1, signal.SIGKILL)",
        "import os, signal; os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)",
        "import os, signal; os.kill(1, signal.SIGTERM)",
    ],
    ids=["parent", "everyone", "parent-group", "init"],
)
def test_signals_to_other_processes_are_refused(pool, code):
    result = run(pool, code)
    assert result.status == "exception" and result.exception in (
        "PermissionError",
        "ProcessLookupError",
    )


def test_writes_and_deletes_outside_temp_dir_fail(pool, tmp_path):
    """The host's files are out of reach: refused, or (in the host's /tmp, which a root
    grader's children do not see: their /tmp is their own) not there."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    hidden = "FileNotFoundError" if _private_tmp(pool, tmp_path) else "PermissionError"
    for code in (
        f"open({str(tmp_path / 'new.txt')!r}, 'w').write('x')",
        f"import os; os.remove({str(victim)!r})",
        f"open({str(victim)!r}, 'a').write('x')",
    ):
        result = run(pool, code)
        assert result.status == "exception" and result.exception == hidden, code
    assert victim.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim.txt"]
    result = run(pool, "open('/tmp/escaped.txt', 'w').write('x')")
    if pool.info.get("private_tmp"):
        assert result.clean_exit, result.stderr  # in the child's own /tmp
    else:
        assert result.status == "exception" and result.exception == "PermissionError"
        assert result.blocked is not None
    assert not os.path.exists("/tmp/escaped.txt")


def _private_tmp(pool, path) -> bool:
    """Whether ``path`` lies in the host's /tmp, which the pool's children do not see."""
    return bool(pool.info.get("private_tmp")) and kernel.in_host_tmp(path)


def test_temp_dir_is_private_writable_and_removed(pool):
    code = """
        import os, tempfile
        open('a.txt', 'w').write('hi')
        with tempfile.NamedTemporaryFile() as f:
            f.write(b'x')
        print(open('a.txt').read(), os.getcwd())
    """
    result = run(pool, code)
    assert result.clean_exit, result.stderr
    text, cwd = result.stdout.decode().split()
    assert text == "hi"
    assert not os.path.exists(cwd) or os.listdir(cwd) == []  # emptied once the run ended


def test_sockets_are_refused(pool):
    result = run(pool, "import socket; socket.create_connection(('127.0.0.1', 22), timeout=1)")
    assert result.status == "exception" and result.blocked == "socket"


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess; subprocess.run(['touch', '{marker}'])",
        "import os; r = os.system('touch {marker}'); assert r == 0, r",
        "import ctypes; r = ctypes.CDLL(None).system(b'touch {marker}'); assert r == 0, r",
        "import importlib, os; importlib.reload(os); assert os.system('touch {marker}') == 0",
        "import os; os.execv('/bin/touch', ['touch', '{marker}'])",
        "import multiprocessing as mp; p = mp.Process(target=print); p.start(); p.join()",
    ],
    ids=["subprocess", "os.system", "ctypes-system", "reload-os", "execv", "multiprocessing"],
)
def test_no_new_processes(pool, tmp_path, code):
    marker = tmp_path / "marker"
    result = run(pool, code.format(marker=marker))
    assert not result.clean_exit
    assert not marker.exists()


def test_unbounded_output_is_cut(pool):
    result = run(pool, "import sys\nwhile True: sys.stdout.write('x' * 100000)")
    assert result.limit is LimitHit.OUTPUT and result.signal == signal.SIGXFSZ
    assert result.stdout_truncated and len(result.stdout) == TIGHT.output_bytes


def test_large_correct_output_is_not_truncated(pool):
    limits = Limits(time_limit=2.0, output_bytes=16 << 20)
    result = run(pool, "import sys\nsys.stdout.write('y' * (5 << 20))", limits=limits)
    assert result.clean_exit and len(result.stdout) == 5 << 20 and not result.stdout_truncated


@pytest.mark.parametrize(
    "code",
    [
        "import os\nfor fd in range(3): os.close(fd)\nwhile True: pass",
        "import signal\nfor s in (signal.SIGTERM, signal.SIGXCPU): signal.signal(s, signal.SIG_IGN)\nwhile True: pass",
        "import signal\nsignal.alarm(0)\nsignal.setitimer(signal.ITIMER_REAL, 0)\nwhile True: pass",
    ],
    ids=["closed-fds", "ignores-signals", "alarm-0"],
)
def test_cpu_limit_cannot_be_switched_off(pool, code):
    assert run(pool, code, limits=SPIN).limit is LimitHit.CPU


def test_limits_cannot_be_raised(pool):
    code = """
        import resource
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    """
    result = run(pool, code)
    assert result.status == "exception"
    code = "import resource; resource.prlimit(0, resource.RLIMIT_DATA, (-1, -1))"
    assert run(pool, code).status == "exception"


def test_no_view_of_other_processes_or_caller_files(pool, tmp_path):
    secret = tmp_path / "problems.jsonl"
    secret.write_text('{"expected": "SECRET-ANSWER"}')
    code = f"""
        import os
        found = []
        for path in ('/proc/%d/cmdline' % os.getppid(), '/proc/%d/environ' % os.getppid(),
                     '/proc/1/cmdline', {str(secret)!r}, '/proc/self/cmdline'):
            try:
                found.append(open(path, 'rb').read())
            except OSError as exc:
                found.append(type(exc).__name__)
        try:
            found.append(os.listdir('/proc'))
        except OSError as exc:
            found.append(type(exc).__name__)
        print(found)
    """
    result = run(pool, code)
    assert result.clean_exit, result.stderr
    found = result.stdout.decode()
    hidden = "FileNotFoundError" if _private_tmp(pool, secret) else "PermissionError"
    assert found.count("PermissionError") + found.count("FileNotFoundError") == 6
    assert found.split(", ")[3].strip("'") == hidden  # the caller's file
    assert "SECRET" not in found


def test_environment_is_clean(pool, monkeypatch):
    monkeypatch.setenv("API_TOKEN", "do-not-leak")  # set in the caller after the pool started
    result = run(pool, "import os; print(sorted(os.environ))")
    names = eval(result.stdout)  # noqa: S307 - our own program's output
    assert "API_TOKEN" not in names and set(names) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "HOME",
        "TMPDIR",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
    }


def test_thread_bomb_is_contained(pool):
    code = """
        import threading, time
        threads = []
        while True:
            t = threading.Thread(target=time.sleep, args=(100,))
            t.start()
            threads.append(t)
    """
    result = run(pool, code)
    assert not result.clean_exit and result.wall_time < 3.0


def test_threads_work(pool):
    code = """
        import threading
        out = []
        ts = [threading.Thread(target=out.append, args=(i,)) for i in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        print(sum(out))
    """
    result = run(pool, code)
    assert result.clean_exit and result.stdout == b"28\n"


def test_segfault_is_a_signal(pool):
    result = run(pool, "import ctypes; ctypes.string_at(0)")
    assert result.signal == signal.SIGSEGV and result.status == "lost"


@pytest.mark.parametrize("isolation", list(Isolation))
def test_deep_recursion_works(pool, isolation):
    code = """
        import sys
        from functools import lru_cache
        sys.setrecursionlimit(10**7)
        @lru_cache(None)
        def depth(n):
            return 0 if n == 0 else depth(n - 1) + 1
        def plain(n):
            return 0 if n == 0 else plain(n - 1) + 1
        print(depth(200000), plain(1000000))
    """
    limits = Limits(time_limit=5.0, memory_limit=1024)
    result = run(pool, code, limits=limits, isolation=isolation)
    assert result.clean_exit, result.stderr
    assert result.stdout == b"200000 1000000\n"


def test_numpy_imports_under_memory_limit(pool):
    result = run(pool, "import numpy as np; print(int(np.arange(10).sum()))")
    assert result.clean_exit, result.stderr
    assert result.stdout == b"45\n"


def test_killed_fork_server_is_replaced_and_run_reported(pool):
    code = "import time; time.sleep(0.05); print(input())"
    job = Job(code=code, inputs=["a", "b", "c"], limits=TIGHT)
    future = pool.submit(job)
    # Kill every server mid-job from outside: the job must still complete.
    import psutil

    for child in psutil.Process().children():
        try:
            if "evaluator.sandbox.server" in " ".join(child.cmdline()):
                child.kill()
        except psutil.Error:  # another test's child, already a zombie
            pass
    result = future.result(timeout=30)
    assert [r.stdout for r in result.runs] == [b"a\n", b"b\n", b"c\n"]


@pytest.mark.parametrize("isolation", list(Isolation))
def test_forged_reports_are_ignored_and_do_not_shift_later_tests(pool, isolation):
    code = """
        import json, os, struct, sys
        def _forge(frame):  # every pipe above stdio: wherever the harness's channel is
            import stat
            for fd in range(3, 256):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, frame)
                except OSError:
                    pass
        n = int(input())
        if n == 1:  # a fake "ok" report, with and without a key, then a broken frame
            for fake in ({"status": "ok"}, {"status": "ok", "key": "0" * 32}):
                data = json.dumps(fake).encode()
                _forge(struct.pack(">I", len(data)) + data)
            _forge(struct.pack(">I", 7) + b"garbage")
        print(n * 10)
    """
    job = Job(
        code=textwrap.dedent(code), inputs=["0", "1", "2", "3"], limits=TIGHT, isolation=isolation
    )
    runs = pool.run(job).runs
    assert [r.stdout for r in runs] == [b"0\n", b"10\n", b"20\n", b"30\n"]
    assert all(r.clean_exit for r in runs)
