"""A job's stdio memfds are its own (they used to be kept between jobs, and carried what a
program set on them): nothing may carry over from one job or test to the next."""

from __future__ import annotations

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool


def test_output_of_a_killed_test_does_not_reach_the_next_job(tmp_path):
    limits = Limits(time_limit=0.3, wall_limit=1.0)
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


INODES = "import os\nprint(*(os.fstat(fd).st_ino for fd in (0, 1, 2)))\n"


def _inodes(result) -> list[set[int]]:
    return [set(map(int, run.stdout.split())) for run in result.runs]


def test_no_memfd_is_reused_by_a_later_job_or_test(tmp_path):
    """A program can mark a memfd (its mode, extended attributes, inode flags, times; the
    owner, signal, flags and lease of the description it shares with the server): a job's
    stdio memfds are its own, made afresh for each test at ``test`` isolation (a batch child
    keeps its own, put back as made between its tests), and none is given to a later job, not
    even when a descendant that outlived its job (possible only where a profile allows
    processes) still holds one."""
    survivor = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(3)\n"
        "    os._exit(0)\n"
        "print(*(os.fstat(fd).st_ino for fd in (0, 1, 2)))\n"
    )
    with SandboxPool(workers=1, profile="permissive", tmp_dir=tmp_path) as pool:
        jobs: list[set[int]] = []  # the memfds each job's tests had
        for isolation in (Isolation.SUBMISSION, Isolation.TEST):
            runs = _inodes(pool.run(Job(INODES, ["1", "2"], isolation=isolation)))
            if isolation is Isolation.TEST:  # a fresh child per test, fresh memfds
                assert not runs[0] & runs[1]
            else:  # one child: its own, put back as made between its tests
                assert runs[0] == runs[1]
            jobs.append(runs[0] | runs[1])
        jobs += _inodes(pool.run(Job(survivor, [""], isolation=Isolation.SUBMISSION)))
        jobs += _inodes(pool.run(Job(INODES, ["5"], isolation=Isolation.SUBMISSION)))
        assert all(len(inodes) >= 3 for inodes in jobs)
        for n, inodes in enumerate(jobs):
            assert all(not inodes & later for later in jobs[n + 1 :]), jobs
