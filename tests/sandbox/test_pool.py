"""The pool as a library: threads, asyncio, profiles, results order, no caller side effects."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time

import pytest

from evaluator.sandbox import Isolation, Job, Limits, ProfileError, SandboxPool, load_profile


def _echo(text: str) -> Job:
    return Job(code="print(input())", inputs=[text])


def test_results_come_back_in_input_order(pool):
    results = list(pool.map(_echo(str(i)) for i in range(40)))
    assert [r.runs[0].stdout for r in results] == [f"{i}\n".encode() for i in range(40)]


def test_usable_from_many_threads(pool):
    outputs: dict[int, bytes] = {}

    def worker(n: int) -> None:
        outputs[n] = pool.run(_echo(f"t{n}")).runs[0].stdout

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outputs == {n: f"t{n}\n".encode() for n in range(8)}


def test_usable_from_asyncio(pool):
    async def main() -> list[bytes]:
        results = await asyncio.gather(*(pool.run_async(_echo(f"a{n}")) for n in range(6)))
        return [r.runs[0].stdout for r in results]

    assert asyncio.run(main()) == [f"a{n}\n".encode() for n in range(6)]


def test_no_signal_handlers_in_the_caller(tmp_path):
    watched = (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGALRM)
    before = {sig: signal.getsignal(sig) for sig in watched}
    with SandboxPool(workers=1, tmp_dir=tmp_path) as own:
        assert own.run(_echo("x")).runs[0].clean_exit
    assert {sig: signal.getsignal(sig) for sig in watched} == before


def test_pool_reports_its_confinement(pool):
    assert pool.info["landlock_abi"] >= 1  # this kernel has Landlock (ABI 7)
    assert pool.info["profile"] == "default"
    assert isinstance(pool.info["network_namespace"], bool)


def test_permissive_profile_keeps_limits_only(tmp_path):
    with SandboxPool(workers=1, profile="permissive", tmp_dir=tmp_path) as own:
        spawn = own.run(
            Job(code="import subprocess; print(subprocess.run(['true']).returncode)", inputs=[""])
        )
        assert spawn.runs[0].stdout == b"0\n"  # processes allowed
        spin = own.run(
            Job(code="while True: pass", inputs=[""], limits=Limits(time_limit=0.5, wall_limit=20))
        )
        assert spin.runs[0].limit is not None  # limits still enforced


def test_custom_profile_file(tmp_path):
    with open(load_profile("default").path) as handle:
        profile = json.load(handle)
    profile["name"] = "no-threads"
    profile["seccomp"]["rules"].append(
        {
            "action": "errno:EPERM",
            "syscalls": ["clone"],
            "args": [{"index": 0, "op": "masked_eq", "mask": 65536, "value": 65536}],
        }
    )
    path = tmp_path / "no-threads.json"
    path.write_text(json.dumps(profile))
    with SandboxPool(workers=1, profile=str(path), tmp_dir=tmp_path) as own:
        code = "import threading; t = threading.Thread(target=print); t.start(); t.join()"
        result = own.run(Job(code=code, inputs=[""])).runs[0]
        assert result.status == "exception"
        assert own.run(_echo("still fine")).runs[0].stdout == b"still fine\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"seccomp": {"rules": [{"action": "explode", "syscalls": ["read"]}]}}', "unknown action"),
        (
            '{"seccomp": {"rules": [{"action": "allow", "syscalls": ["read"], "args": [{"op": "like"}]}]}}',
            "field 'op'",
        ),
        ("{not json", "not valid JSON"),
    ],
)
def test_bad_profile_names_file_and_field(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_unknown_profile_lists_shipped_ones():
    with pytest.raises(ProfileError, match="default, permissive"):
        load_profile("nonexistent")


@pytest.mark.parametrize("isolation", list(Isolation))
def test_isolation_levels_agree(pool, isolation):
    code = "import sys\nn = int(input())\nprint(n * n)\nsys.exit(0 if n != 3 else 4)"
    runs = pool.run(Job(code=code, inputs=["1", "2", "3", "4"], isolation=isolation)).runs
    assert [r.stdout for r in runs] == [b"1\n", b"4\n", b"9\n", b"16\n"]
    assert [r.exit_code for r in runs] == [0, 0, 4, 0]


def test_every_child_gets_fresh_randomness(pool):
    """Children are forked without Python's at-fork handlers; they reseed ``random``."""
    job = Job(code="import random\nprint(random.getrandbits(64))", inputs=[""] * 3)
    values = {r.stdout for r in pool.run(job).runs}
    values |= {r.stdout for r in pool.run(job).runs}
    assert len(values) == 6


@pytest.mark.parametrize("isolation", list(Isolation))
def test_tests_after_a_crash_still_run_in_a_new_child(pool, isolation):
    code = "import os\nn = int(input())\nif n == 1:\n    os._exit(9)\nprint(n)"
    runs = pool.run(Job(code=code, inputs=["0", "1", "2", "3"], isolation=isolation)).runs
    assert [r.stdout for r in runs] == [b"0\n", b"", b"2\n", b"3\n"]
    assert [r.exit_code for r in runs] == [0, 9, 0, 0]


def test_close_can_cancel_queued_jobs(tmp_path):
    own = SandboxPool(workers=1, tmp_dir=tmp_path)
    slow = own.submit(Job(code="import time; time.sleep(0.5)", inputs=[""]))
    queued = [own.submit(_echo(str(n))) for n in range(5)]
    while not slow.running():
        time.sleep(0.01)
    own.close(cancel=True)
    assert slow.result().runs[0].clean_exit  # the running job finishes
    assert sum(f.cancelled() for f in queued) >= 4  # the rest never started
    assert list(tmp_path.iterdir()) == []


def test_servers_survive_a_terminal_interrupt(tmp_path):
    import os

    with SandboxPool(workers=1, tmp_dir=tmp_path) as own:
        server = next(c for c in _servers_under(tmp_path))
        assert os.getpgid(server.pid) != os.getpgid(0)  # Ctrl-C goes to the caller's group only
        assert own.run(_echo("alive")).runs[0].stdout == b"alive\n"


def _servers_under(tmp_path):
    """Our fork servers whose temp dir is under ``tmp_path`` (other children are skipped)."""
    import psutil

    for child in psutil.Process().children():
        try:
            if child.cwd().startswith(str(tmp_path)):
                yield child
        except (psutil.Error, OSError):
            continue


def _kill_servers(tmp_path) -> None:
    for child in _servers_under(tmp_path):
        child.kill()


def test_early_exit_indices_survive_a_server_restart(tmp_path):
    seen: list[int] = []
    with SandboxPool(workers=1, tmp_dir=tmp_path) as own:
        code = "import time; time.sleep(0.2); print(input())"
        job = Job(code=code, inputs=[str(n) for n in range(4)])
        future = own.submit(job, lambda index, run: seen.append(index) or True)
        time.sleep(0.5)  # inside the second or third test
        _kill_servers(tmp_path)
        result = future.result(timeout=30)
        assert [r.stdout for r in result.runs] == [f"{n}\n".encode() for n in range(4)]
        assert seen == [0, 1, 2, 3]
        assert own.restarts >= 1


def test_a_failing_callback_fails_its_job_only(tmp_path):
    def explode(index, run):
        raise ValueError("callback broke")

    with SandboxPool(workers=1, tmp_dir=tmp_path) as own:
        future = own.submit(Job(code="print(input())", inputs=["a", "b"]), explode)
        with pytest.raises(ValueError, match="callback broke"):
            future.result(timeout=30)
        assert own.run(_echo("next")).runs[0].stdout == b"next\n"
    assert list(tmp_path.iterdir()) == []  # the abandoned server's temp dir is gone too


_REWARD_ROUNDS = """
from evaluator import CodeReward
reward = CodeReward(workers=1)
tests = [{"input": f"{i}\\n", "output": f"{i}\\n"} for i in range(3)]
for _ in range(50):
    got = reward(completions=["```python\\nprint(input())\\n```"] * 4, tests=[tests] * 4)
    assert got == [1.0] * 4, got
reward.close()
print("done")
"""


def test_early_exit_leaves_the_next_job_alone():
    """Early exit on and every test passing: once a job's results have ended, the pool sends
    its next job at once, and the server must not take that request for a stop and drop it
    (one that looked for a stop then, waited forever, and so did the pool). A reward's rounds
    on one worker, in a process of its own so that a regression fails instead of hanging."""
    done = subprocess.run(
        [sys.executable, "-c", _REWARD_ROUNDS], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]


def test_a_job_submitted_at_once_takes_the_started_server(tmp_path):
    """A pool that starts one of its two servers (``start=1``, the shared reward's) gives
    a job submitted at once to that server, even before its thread first waits for work.
    Before, the thread counted as free only once it waited, so that job often started the
    second server (a CI failure of test_a_reward_started_with_one_server_grows...)."""
    for _ in range(12):  # the window is short: a fresh pool each round
        with SandboxPool(workers=2, start=1, tmp_dir=tmp_path) as own:
            assert own.run(_echo("ab")).runs[0].stdout == b"ab\n"
            assert len(own._threads) == 1
