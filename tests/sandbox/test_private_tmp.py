"""Each child's own ``/tmp`` (issue 54, item 4): glibc's ``tmpfile()``, ``mkstemp`` in
``/tmp`` and absolute ``/tmp`` paths work as in a plain run, while nothing reaches the host's
``/tmp`` and nothing one test leaves there reaches a later test or submission (the server
empties it with the run directory, at every isolation level, and counts its files toward the
memory limit as it counts the run directory's). Real programs in the real sandbox of a root
grader; a grader that is not root cannot mount it (the test says so and skips)."""

from __future__ import annotations

import os
import uuid

import pytest

from evaluator.sandbox import Isolation, Job, Limits, SandboxPool

# "write NAME" leaves files in /tmp; "look NAME" says what it finds of them
PROGRAM = """
import os, sys
what, name = sys.stdin.readline().split()
if what == "write":
    os.makedirs("/tmp/deep/er", exist_ok=True)
    open("/tmp/" + name, "w").write("SECRET")
    open("/tmp/deep/er/" + name, "w").write("SECRET")
print(sorted(os.listdir("/tmp")), os.path.exists("/tmp/" + name), os.path.exists("/tmp/deep"))
"""


@pytest.fixture(scope="module")
def private_pool():
    with SandboxPool(workers=1) as pool:
        if not pool.info.get("private_tmp"):
            pytest.skip("the children's own /tmp needs a root grader (a mount namespace)")
        yield pool


def _listing(pool) -> list[str]:
    run = pool.run(Job(code="import os\nprint(sorted(os.listdir('/tmp')))\n", inputs=[""]))
    return eval(run.runs[0].stdout.decode())  # noqa: S307 - a list of names we printed


def test_tmp_is_writable_and_private_to_the_child(private_pool):
    name = f"mc-private-{uuid.uuid4().hex}"
    run = private_pool.run(Job(code=PROGRAM, inputs=[f"write {name}"])).runs[0]
    assert run.exit_code == 0, run.stderr
    assert run.stdout.decode().endswith(" True True\n")
    assert not os.path.exists(f"/tmp/{name}")  # the host's /tmp never saw it
    assert not os.path.exists(f"/tmp/deep/er/{name}")


@pytest.mark.parametrize("isolation", list(Isolation))
def test_nothing_left_in_tmp_reaches_the_next_test_or_submission(private_pool, isolation):
    name = f"mc-left-{uuid.uuid4().hex}"
    before = _listing(private_pool)
    # the write, then a look in the job's next test (the same child in a batch) ...
    inputs = [f"write {name}", f"look {name}"]
    runs = private_pool.run(Job(code=PROGRAM, inputs=inputs, isolation=isolation)).runs
    assert all(run.exit_code == 0 for run in runs), runs[-1].stderr
    assert runs[1].stdout.decode() == f"{before} False False\n"
    # ... and in the next submission on the same worker
    job = Job(code=PROGRAM, inputs=[f"look {name}"], isolation=isolation)
    assert private_pool.run(job).runs[0].stdout.decode() == f"{before} False False\n"


def test_the_sandbox_entries_in_tmp_cannot_be_changed(private_pool):
    """What the template keeps in /tmp (the way to the worker's directory) is root's: a
    program cannot remove, rename or write in it, and the next program runs as before."""
    before = _listing(private_pool)
    assert before, "the worker's directory is reached through /tmp"
    code = f"""
import os, shutil
kept = {before!r}
for attempt in (lambda: os.rename("/tmp/" + kept[0], "/tmp/moved"),
                lambda: os.rmdir("/tmp/" + kept[0]),
                lambda: shutil.rmtree("/tmp/" + kept[0]),
                lambda: open("/tmp/" + kept[0] + "/x", "w")):
    try:
        attempt()
        print("done")
    except OSError as exc:
        print(type(exc).__name__)
"""
    run = private_pool.run(Job(code=code, inputs=[""])).runs[0]
    assert "done" not in run.stdout.decode(), run.stdout
    assert _listing(private_pool) == before
    again = private_pool.run(Job(code="print(input())", inputs=["still graded\n"])).runs[0]
    assert again.stdout == b"still graded\n"


def test_files_in_tmp_count_toward_the_memory_limit(private_pool):
    """A program cannot hold memory past its limit by writing it to /tmp (on a tmpfs /tmp it
    would be memory; anywhere, it must not fill the disk)."""
    code = """
import time
block = b"x" * (1 << 20)
with open("/tmp/hoard", "wb") as out:
    for _ in range(200):
        out.write(block)
        out.flush()
        time.sleep(0.002)
print("kept 200 MiB")
"""
    limits = Limits(time_limit=10, memory_limit=32)  # below the 64 MiB a file may grow to
    run = private_pool.run(Job(code=code, inputs=[""], limits=limits)).runs[0]
    assert run.limit == "memory", (run.status, run.stdout, run.stderr[-300:])
    assert "hoard" not in _listing(private_pool)  # emptied: the next program sees none
