"""The fork template forks every child as the fork server's child (``CLONE_PARENT``): the
server reaps it, the child's own thread is addressed correctly, and a template that dies
costs no run."""

from __future__ import annotations

import json
import os
import signal
import textwrap
from pathlib import Path

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool

LIMITS = Limits(time_limit=5.0, wall_limit=20.0)
PROFILES = Path(__file__).resolve().parents[2] / "sandbox_profiles"


def test_children_belong_to_the_server_and_know_their_own_thread(tmp_path):
    # glibc's pthread calls on the calling thread use the id cached in its descriptor: the
    # raw clone must have the kernel write the child's id there, or this clock would be the
    # template's (which sits idle).
    code = """
        import os, threading, time
        start = time.process_time()
        while time.process_time() - start < 0.3:
            pass
        clock = time.pthread_getcpuclockid(threading.get_ident())
        print(os.getppid(), time.clock_gettime(clock) >= 0.25)
    """
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        server, template = pool.info["pid"], pool.info["template_pid"]
        assert server != template
        for isolation in Isolation:
            job = Job(textwrap.dedent(code), [""], limits=LIMITS, isolation=isolation)
            run = pool.run(job).runs[0]
            assert run.clean_exit, run.stderr
            assert run.stdout.split() == [str(server).encode(), b"True"]
            assert run.peak_memory_kb > 0  # the server reaped it: wait4 gave its rusage


def test_killed_template_is_replaced_and_run_reported(tmp_path):
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        template = pool.info["template_pid"]
        code = "import time; time.sleep(0.05); print(input())"
        future = pool.submit(Job(code, ["a", "b", "c", "d"], limits=LIMITS))
        os.kill(template, signal.SIGKILL)
        result = future.result(timeout=60)
        assert [r.stdout for r in result.runs] == [b"a\n", b"b\n", b"c\n", b"d\n"]
        after = pool.run(Job("print(input())", ["e"], limits=LIMITS))
        assert after.runs[0].stdout == b"e\n"
        assert pool.restarts >= 1  # its server went with it and was replaced


def test_server_memory_is_unreadable_even_without_landlock(tmp_path):
    """The server holds other submissions' output; without Landlock nothing confines a
    child's reads to /proc. Run as root, the child's dropped capabilities already deny it
    (its permitted set is not a superset of the server's); for a pool run by an ordinary user
    it is the server making itself non-dumpable (then /proc/<pid>/mem needs CAP_SYS_PTRACE)."""
    profile = json.loads((PROFILES / "default.json").read_text())
    profile.update(name="no-landlock", landlock=False)
    path = tmp_path / "no-landlock.json"
    path.write_text(json.dumps(profile))
    code = """
        import os
        for name in ("mem", "environ", "maps"):
            try:
                open(f"/proc/{os.getppid()}/{name}", "rb").read(1)
                print(name, "read")
            except OSError as exc:
                print(name, type(exc).__name__)
    """
    with SandboxPool(workers=1, profile=str(path), tmp_dir=tmp_path) as pool:
        assert not pool.info["landlock_abi"]
        run = pool.run(Job(textwrap.dedent(code), [""], limits=LIMITS)).runs[0]
    assert run.stdout.decode().split("\n")[:3] == [
        "mem PermissionError",
        "environ PermissionError",
        "maps PermissionError",
    ], run.stderr


def test_programs_that_name_numpy_start_with_it_imported(tmp_path):
    """The heavy template: numpy is imported before the program runs (it costs the program
    nothing), its children are the server's, and programs that do not name it never pay
    for it (their template has not imported it)."""
    probe = "import os, sys\nprint('num' + 'py' in sys.modules, os.getppid())\n"
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        server = pool.info["pid"]
        for isolation in (Isolation.TEST, Isolation.ADAPTIVE):
            lean = pool.run(Job(probe, [""], isolation=isolation)).runs[0]
            heavy = pool.run(Job(probe + "# numpy\n", [""], isolation=isolation)).runs[0]
            assert lean.stdout == f"False {server}\n".encode(), lean.stderr
            assert heavy.stdout == f"True {server}\n".encode(), heavy.stderr
        numpy = pool.run(Job("import numpy\nprint(numpy.arange(4).sum())", [""])).runs[0]
        assert numpy.stdout == b"6\n", numpy.stderr
