"""Servers keep their stdio and stdin memfds between jobs: nothing may carry over from one job
to the next, and a descendant that outlives its job (possible only where a profile allows
processes) makes the server drop them."""

from __future__ import annotations

import os

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool


def _server_memfds(pool: SandboxPool) -> set[int]:
    server = pool.info["pid"]  # the one worker's fork server
    inodes = set()
    for name in os.listdir(f"/proc/{server}/fd"):
        path = f"/proc/{server}/fd/{name}"
        try:
            if os.readlink(path).startswith("/memfd:"):
                inodes.add(os.stat(path).st_ino)
        except OSError:
            pass
    return inodes


def test_output_of_a_killed_test_does_not_reach_the_next_job(tmp_path):
    limits = Limits(cpu_time=0.3, wall_time=1.0)
    flood = "import sys\nsys.stdout.write('x' * 100000)\nsys.stdout.flush()\nwhile True: pass\n"
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        for isolation in (Isolation.SUBMISSION, Isolation.TEST):
            killed = pool.run(Job(flood, ["", ""], limits=limits, isolation=isolation))
            assert killed.runs[0].limit == "cpu"
            assert killed.runs[0].stdout.startswith(b"xxx")
            quiet = pool.run(Job("pass", ["", ""], limits=limits, isolation=isolation))
            assert [r.stdout for r in quiet.runs] == [b"", b""]
            assert all(r.clean_exit for r in quiet.runs)
            # The stdin ring is refilled too: each test reads its own input, never an earlier one.
            echo = pool.run(Job("print(input())", ["a", "b", "c"], isolation=isolation))
            assert [r.stdout for r in echo.runs] == [b"a\n", b"b\n", b"c\n"]


def test_flags_a_program_sets_do_not_reach_the_next_job(tmp_path):
    set_append = (
        "import fcntl, os\nfor fd in (0, 1, 2):\n    fcntl.fcntl(fd, fcntl.F_SETFL, os.O_APPEND)\n"
    )
    read_flags = "import fcntl, os\nprint([fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND for fd in (0, 1, 2)])\n"
    with SandboxPool(workers=1, tmp_dir=tmp_path) as pool:
        for isolation in (Isolation.SUBMISSION, Isolation.TEST):
            assert pool.run(Job(set_append, ["", ""], isolation=isolation)).runs[0].clean_exit
            after = pool.run(Job(read_flags, [""], isolation=isolation))
            assert after.runs[0].stdout == b"[0, 0, 0]\n"


def test_memfds_are_reused_and_dropped_when_a_descendant_survives(tmp_path):
    survivor = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(3)\n"
        "    os._exit(0)\n"
        "print('parent done')\n"
    )
    with SandboxPool(workers=1, profile="permissive", tmp_dir=tmp_path) as pool:
        pool.run(Job("print(input())", ["1", "2"], isolation=Isolation.SUBMISSION))
        first = _server_memfds(pool)
        pool.run(Job("print(input())", ["3", "4"], isolation=Isolation.SUBMISSION))
        assert _server_memfds(pool) == first  # kept between jobs
        result = pool.run(Job(survivor, [""], isolation=Isolation.SUBMISSION))
        assert result.runs[0].stdout == b"parent done\n"
        # The survivor may hold them: the server drops them all before it reads the next job.
        after = pool.run(Job("print(input())", ["5"], isolation=Isolation.SUBMISSION))
        assert after.runs[0].stdout == b"5\n"
        assert not _server_memfds(pool) & first
