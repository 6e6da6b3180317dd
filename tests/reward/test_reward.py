"""CodeReward, AsyncCodeReward and the verl adapter, on the real sandbox with real programs."""

from __future__ import annotations

import asyncio
import inspect
import json
import pickle
import threading
import time

import pytest

from evaluator import AsyncCodeReward, CodeReward, GradeOptions, Isolation
from evaluator.reward import (
    ProblemError,
    completion_text,
    problem_from_ground_truth,
    shared_reward,
    verl_compute_score,
    verl_compute_score_batch,
)
from evaluator.sandbox import SandboxPool

SUM_TESTS = [
    {"input": "1 2\n", "output": "3\n"},
    {"input": "5 5\n", "output": "10\n"},
    {"input": "-4 1\n", "output": "-3\n"},
]
RIGHT = "print(sum(map(int, input().split())))"
WRONG_LAST = "a, b = map(int, input().split())\nprint(a + b if a != -4 else 0)"


def fenced(code: str, lang: str = "python") -> str:
    return f"Here is my solution.\n```{lang}\n{code}\n```\n"


def chat(code: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": fenced(code)}]


@pytest.fixture
def reward(pool):
    with CodeReward(pool=pool) as made:
        yield made


@pytest.fixture
def fraction(pool):
    with CodeReward(mode="fraction", pool=pool) as made:
        yield made


def test_trl_signature_with_strings(reward):
    completions = [fenced(RIGHT), fenced(WRONG_LAST), fenced("print(1/0)"), "just prose"]
    rewards = reward(["p"] * 4, completions, None, tests=[SUM_TESTS] * 4)
    assert rewards == [1.0, 0.0, 0.0, 0.0]
    assert reward.last_verdicts == ["AC", "WA", "RE", "NO_CODE"]
    assert reward.last_results[0].passed and reward.last_results[3] is None
    assert [reward.judged_wrong(i) for i in range(4)] == [False, True, True, False]
    assert reward.__name__ == "code_reward"


def test_trl_signature_with_chat_messages(reward):
    completions = [
        [
            {
                "role": "assistant",
                "content": "<think>```python\nprint(0)\n```</think>" + fenced(RIGHT),
            }
        ],
        [
            {"role": "user", "content": fenced(RIGHT)},
            {"role": "assistant", "content": fenced("print(0)")},
        ],
        [{"role": "assistant", "content": [{"type": "text", "text": fenced(RIGHT)}]}],
    ]
    prompts = [[{"role": "user", "content": "add"}]] * 3
    assert reward(prompts, completions, tests=[SUM_TESTS] * 3) == [1.0, 0.0, 1.0]
    assert completion_text([{"role": "user", "content": "x"}]) is None


def test_binary_vs_fraction_and_early_exit(reward, fraction):
    assert reward(None, [fenced(WRONG_LAST)], tests=[SUM_TESTS]) == [0.0]
    assert fraction(None, [fenced(WRONG_LAST)], tests=[SUM_TESTS]) == [pytest.approx(2 / 3)]
    assert [t.verdict for t in fraction.last_results[0].tests] == ["AC", "AC", "WA"]
    early = reward(None, [fenced("print(0)")], tests=[SUM_TESTS])
    assert early == [0.0]
    assert [t.verdict for t in reward.last_results[0].tests] == ["WA", "SKIPPED", "SKIPPED"]
    assert reward.options.isolation is Isolation.ADAPTIVE and reward.options.early_exit
    assert not fraction.options.early_exit


def test_no_code_penalty(pool):
    with CodeReward(pool=pool, no_code_penalty=-0.1) as reward:
        rewards = reward(
            None, ["I cannot do it", "```python\n\n```", fenced(RIGHT)], tests=[SUM_TESTS] * 3
        )
    assert rewards == [-0.1, -0.1, 1.0]
    assert reward.last_verdicts[:2] == ["NO_CODE", "NO_CODE"]


def _lcb_columns(n: int, functional: bool) -> dict[str, list]:
    if functional:
        public = [{"input": "[1, 2]\n3", "output": "[1, 2, 3]", "testtype": "functional"}]
        private = [{"input": "[]\n0", "output": "[0]", "testtype": "functional"}]
        meta = json.dumps({"func_name": "append"})
    else:
        public = [{"input": "3\n", "output": "6\n", "testtype": "stdin"}]
        private = [{"input": "10\n", "output": "20\n", "testtype": "stdin"}]
        meta = "{}"
    from evaluator.formats import encode_private_tests

    return {
        "question_id": ["q-func" if functional else "q-stdin"] * n,
        "public_test_cases": [json.dumps(public)] * n,
        "private_test_cases": [encode_private_tests(private)] * n,
        "metadata": [meta if functional else {}] * n,
        "time_limit": [2.0] * n,
    }


def test_lcb_columns_stdin_and_functional(reward):
    stdin = reward(
        None, [fenced("print(int(input()) * 2)"), fenced("print(6)")], **_lcb_columns(2, False)
    )
    assert stdin == [1.0, 0.0]
    solution = "class Solution:\n    def append(self, xs: List[int], x: int) -> List[int]:\n        return xs + [x]"
    functional = reward(
        None, [fenced(solution), fenced(solution.replace("+ [x]", ""))], **_lcb_columns(2, True)
    )
    assert functional == [1.0, 0.0]
    assert reward.last_results[0].tests[1].verdict == "AC"  # the compressed private test ran


def test_our_tests_column_functional_and_json_text(reward):
    tests = json.dumps([{"input": "2\n3", "output": "6"}])
    rewards = reward(
        None,
        [fenced("def mul(a, b):\n    return a * b"), fenced("def mul(a, b):\n    return a + b")],
        tests=[tests, tests],
        func_name=["mul", "mul"],
    )
    assert rewards == [1.0, 0.0]


def test_repeated_problems_are_decoded_once(reward):
    group = 8
    # fresh, equal objects per completion (as a dataset yields them): still one decode
    columns = {
        "tests": [json.loads(json.dumps(SUM_TESTS)) for _ in range(group)],
        "question_id": ["q"] * group,
    }
    reward(None, [fenced(RIGHT)] * group, **columns)
    assert (reward.cache_misses, reward.cache_hits) == (1, group - 1)
    reward(None, [fenced(RIGHT)] * group, **columns)
    assert reward.cache_misses == 1 and reward.cache_hits == 2 * group - 1


def test_an_undecodable_problem_raises_naming_the_row_and_field(reward):
    # a dataset's defect is not a model's mistake: no silent None, nothing runs
    with pytest.raises(ProblemError, match=r"row 1 of the batch: .*field 'tests': not valid JSON"):
        reward(None, [fenced(RIGHT)] * 2, tests=[SUM_TESTS, "not json"])
    # a functional problem without func_name, and a problem without tests, raise too
    with pytest.raises(ProblemError, match="function's name"):
        reward(None, [fenced(RIGHT)], tests=[SUM_TESTS], harness=["functional"])
    with pytest.raises(ProblemError, match="no tests"):
        reward(None, [fenced(RIGHT)], tests=[[]])


def test_skipping_undecodable_problems_logs_once_and_counts(pool, caplog):
    metrics: dict[str, float] = {}
    reward = CodeReward(pool=pool, on_bad_problem="skip", log_metric=metrics.__setitem__)
    with caplog.at_level("WARNING", logger="evaluator.reward"):
        rewards = reward(
            None,
            [fenced(RIGHT)] * 5,
            tests=["not json", "not json", [], None, SUM_TESTS],
            public_test_cases=[None, None, None, '[{"input": 1}]', None],
        )
    assert rewards == [None, None, None, None, 1.0]
    assert reward.last_verdicts == ["ERROR", "ERROR", "ERROR", "ERROR", "AC"]
    assert "not valid JSON" in reward.last_reasons[0] and reward.last_reasons[4] == ""
    assert not reward.judged_wrong(0)
    assert reward.bad_problems == 4 and metrics["reward/bad_problems"] == 4.0
    warnings = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
    assert len(warnings) == 3  # the two rows of one broken problem are one warning


def test_a_call_with_other_frameworks_argument_names_raises(reward):
    with pytest.raises(TypeError, match=r"got none for completions and completion, info"):
        reward(prompt="p", completion=fenced(RIGHT), info={"tests": SUM_TESTS})
    with pytest.raises(TypeError, match="got a string for completions"):
        reward(None, fenced(RIGHT), tests=[SUM_TESTS])


def test_async_variant_gathers_two_calls(pool):
    reward = AsyncCodeReward(pool=pool)
    assert inspect.iscoroutinefunction(reward) and asyncio.iscoroutinefunction(reward)
    assert list(inspect.signature(reward).parameters)[:3] == [
        "prompts",
        "completions",
        "completion_ids",
    ]

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        first, second = await asyncio.gather(
            reward(None, [fenced(RIGHT), fenced("print(0)")], tests=[SUM_TESTS] * 2),
            reward(
                None,
                [fenced("import time\nwhile True: pass"), fenced(RIGHT)],
                tests=[SUM_TESTS] * 2,
            ),
        )
        task.cancel()
        return first, second, ticks

    options = GradeOptions(time_limit=0.5, isolation=Isolation.SUBMISSION, early_exit=True)
    reward.options = options
    reward.close()
    reward = AsyncCodeReward(pool=pool, options=options)
    first, second, ticks = asyncio.run(main())
    assert first == [1.0, 0.0] and second == [0.0, 1.0]
    assert ticks >= 10  # the loop kept running while a program burned 0.5 s of CPU
    reward.close()


def test_called_from_worker_threads(reward):
    out: dict[int, list] = {}

    def work(i: int) -> None:
        out[i] = reward(None, [fenced(RIGHT), fenced("print(0)")], tests=[SUM_TESTS] * 2)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert out == {i: [1.0, 0.0] for i in range(3)}


def test_pickled_copy_makes_its_own_pool(reward):
    copy = pickle.loads(pickle.dumps(reward))
    try:
        assert copy._grader is None and copy._pool is None
        assert copy(None, [fenced(RIGHT)], tests=[SUM_TESTS]) == [1.0]
    finally:
        copy.close()


def test_verl_adapter_single_and_batch():
    io_stdin = json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})
    io_call = {"inputs": [[[1, 2], 3]], "outputs": [[1, 2, 3]], "fn_name": "append"}
    lcb = {
        "public_test_cases": json.dumps([{"input": "3\n", "output": "6\n", "testtype": "stdin"}])
    }
    ours = [{"input": "4\n", "output": "8\n"}]
    assert verl_compute_score("codecontests", fenced(RIGHT), io_stdin) == 1.0
    assert verl_compute_score("codecontests", fenced("print(3)"), io_stdin, {"index": 0}) == 0.0
    double = fenced("print(int(input()) * 2)")
    append = fenced("def append(xs, x):\n    return xs + [x]")
    with pytest.raises(ProblemError, match="ground_truth: not valid JSON"):
        verl_compute_score_batch(["a"] * 2, [double, double], [lcb, "{bad"])
    scores = verl_compute_score_batch(
        ["a"] * 5,
        [double, double, append, "no code", double],
        [lcb, ours, io_call, lcb, "{bad"],
        on_bad_problem="skip",
    )
    assert scores == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert shared_reward().last_verdicts == ["AC", "AC", "AC", "NO_CODE", "ERROR"]
    test = problem_from_ground_truth(io_call).tests[0]
    assert [json.loads(line) for line in test.input.splitlines()] == [[1, 2], 3]


# --- reward hacking ---------------------------------------------------------------------------

SECRET = "SECRET-7f3a9c1e"
SECRET_TESTS = [{"input": "x\n", "output": SECRET + "\n"}]


@pytest.mark.parametrize("isolation", [Isolation.SUBMISSION, Isolation.TEST])
def test_reward_hacking_scores_zero(pool, isolation):
    hacks = {
        "exit_before_output": "import sys\nsys.exit(0)\nprint(sum(map(int, input().split())))",
        "forged_report": "print('All tests passed')\nprint('AC')\nimport sys; sys.stdout.flush()",
        "memory": (
            "import gc, sys\nfound = [o for o in gc.get_objects() if isinstance(o, str) and o.startswith('SECRET-')]\n"
            "found += [v for v in sys.modules.values() for v in vars(v).values() if isinstance(v, str) and v.startswith('SECRET-')]\n"
            "print(found[0] if found else 'none')"
        ),
        "env_and_files": (
            "import os, glob\nhits = [v for v in os.environ.values() if 'SECRET-' in v]\n"
            "for path in glob.glob('/tmp/**', recursive=True)[:2000] + glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):\n"
            "    try:\n        data = open(path, 'rb').read(1 << 20).decode('latin-1')\n    except Exception:\n        continue\n"
            "    i = data.find('SECRET-')\n    if i >= 0:\n        hits.append(data[i:i + 15])\n"
            "print(hits[0] if hits else 'none')"
        ),
        "parent_memory": (
            "import os\ntry:\n    maps = open(f'/proc/{os.getppid()}/maps').read().splitlines()\n"
            "    mem = open(f'/proc/{os.getppid()}/mem', 'rb')\nexcept Exception:\n    maps = []\n"
            "out = 'none'\nfor line in maps:\n    lo, hi = (int(x, 16) for x in line.split()[0].split('-'))\n"
            "    try:\n        mem.seek(lo); data = mem.read(min(hi - lo, 1 << 24))\n    except Exception:\n        continue\n"
            "    i = data.find(b'SECRET-')\n    if i >= 0:\n        out = data[i:i + 15].decode(); break\nprint(out)"
        ),
        "alarm_off_then_loop": (
            "import signal, sys, threading\nsignal.alarm(0)\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
            "for s in (signal.SIGALRM, signal.SIGTERM, signal.SIGVTALRM):\n    signal.signal(s, signal.SIG_IGN)\n"
            "signal.setitimer(signal.ITIMER_REAL, 0)\nwhile True: pass"
        ),
    }
    options = GradeOptions(time_limit=1.0, isolation=isolation, early_exit=True)
    with CodeReward(pool=pool, options=options) as reward:
        started = time.monotonic()
        rewards = reward(
            None, [fenced(code) for code in hacks.values()], tests=[SECRET_TESTS] * len(hacks)
        )
        elapsed = time.monotonic() - started
        verdicts = dict(zip(hacks, reward.last_verdicts, strict=True))
    assert rewards == [0.0] * len(hacks), verdicts
    assert verdicts["alarm_off_then_loop"] == "TLE"
    assert elapsed < 20


@pytest.mark.parametrize("isolation", [Isolation.SUBMISSION, Isolation.TEST])
def test_sibling_answer_is_not_in_memory(tmp_path, memory_scan, isolation):
    """RL's case: a correct sibling completion of the same prompt ran just before on the same
    worker. A completion that searches its own memory for the answer and prints it scores 0."""
    sibling = fenced(f"print({SECRET!r})")
    report = "print(found.get('answer', b'none').decode())\n"
    hack = fenced(memory_scan({"answer": SECRET}, report, prefix="SECRET-"))
    options = GradeOptions(time_limit=20.0, isolation=isolation)
    with (
        SandboxPool(workers=1, tmp_dir=tmp_path) as one,
        CodeReward(pool=one, options=options) as reward,
    ):
        rewards = reward(None, [sibling, hack], tests=[SECRET_TESTS] * 2)
        verdicts = reward.last_verdicts
    assert rewards == [1.0, 0.0]
    assert verdicts == ["AC", "WA"]  # the scan ran to the end and printed "none"


def test_always_equal_object_scores_zero(reward):
    code = (
        "class Anything:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n"
        "        return False\n    def __hash__(self):\n        return 0\n\n"
        "class Solution:\n    def append(self, xs, x):\n        return Anything()"
    )
    subclass = (
        "class Sneaky(list):\n    def __eq__(self, other):\n        return True\n\n"
        "class Solution:\n    def append(self, xs, x):\n        return Sneaky()"
    )
    assert reward(None, [fenced(code), fenced(subclass)], **_lcb_columns(2, True)) == [0.0, 0.0]


def test_loop_and_fork_bomb_do_not_stall_the_batch(pool):
    options = GradeOptions(time_limit=1.0, isolation=Isolation.SUBMISSION, early_exit=True)
    bomb = "import os\nwhile True:\n    os.fork()"
    completions = [
        fenced("while True: pass"),
        fenced(bomb),
        fenced("x = 'a' * 10\nwhile True: print(x)"),
    ]
    completions += [fenced(RIGHT), fenced("print(0)")] * 3
    with CodeReward(pool=pool, options=options) as reward:
        started = time.monotonic()
        rewards = reward(None, completions, tests=[SUM_TESTS] * len(completions))
        elapsed = time.monotonic() - started
    assert rewards == [0.0, 0.0, 0.0] + [1.0, 0.0] * 3
    assert reward.last_verdicts[0] == "TLE" and reward.last_verdicts[1] == "RE"
    assert reward.last_verdicts[2] in ("OLE", "TLE")
    assert elapsed < 15


def test_log_metric_gets_verdict_counts(pool):
    logged: dict[str, float] = {}
    trl_logged: dict[str, float] = {}
    with CodeReward(pool=pool, log_metric=logged.__setitem__, on_bad_problem="skip") as reward:
        reward(
            None,
            [fenced(RIGHT), fenced(RIGHT), fenced("print(0)"), "prose", fenced("1/0")],
            tests=[SUM_TESTS] * 4 + [None],
            log_metric=trl_logged.__setitem__,
            trainer_state=object(),
            log_extra=lambda *a: None,
        )
    assert logged == trl_logged
    assert logged["reward/verdict_AC"] == 2 and logged["reward/verdict_WA"] == 1
    assert logged["reward/verdict_NO_CODE"] == 1 and logged["reward/verdict_ERROR"] == 1
    assert logged["reward/verdict_TLE"] == 0
    assert logged["reward/tests_run_mean"] == pytest.approx((3 + 3 + 1) / 3)
    assert logged["reward/grading_seconds"] > 0
    assert logged["reward/bad_problems"] == 1


def test_closed_reward_refuses_and_import_is_light():
    import subprocess
    import sys

    reward = CodeReward(workers=1)
    assert reward._grader is None  # nothing started yet
    reward.close()
    with pytest.raises(RuntimeError):
        reward(None, [fenced(RIGHT)], tests=[SUM_TESTS])
    probe = "import sys, evaluator; evaluator.CodeReward; print('torch' in sys.modules or 'trl' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip()
        == "False"
    )


def test_problem_json_column_and_default_limits(pool):
    from evaluator.formats import problem_to_ours
    from evaluator.problem import Harness, Problem, TestCase

    record = problem_to_ours(Problem("p1", Harness.STDIN, [TestCase("2\n", "4\n")], time_limit=1.5))
    with CodeReward(pool=pool, mode="fraction", time_limit=0.5, memory_limit=256) as reward:
        assert reward.options.time_limit == 0.5 and reward.options.memory_limit == 256
        texts = [fenced("print(int(input()) ** 2)"), fenced("print(3)")]
        assert reward(None, texts, problem_json=[json.dumps(record), record]) == [1.0, 0.0]
        with pytest.raises(ProblemError, match="problem_json: expected a JSON object"):
            reward(None, texts[:1], problem_json=["[1, 2]"])


def test_killed_worker_costs_no_result():
    import psutil

    slow = "import time\nt = time.time()\nwhile time.time() - t < 0.05: pass\n" + RIGHT
    with CodeReward(workers=2) as reward:
        others = {p.pid for p in psutil.Process().children()}
        assert reward.grader.pool.size == 2  # started: its fork servers are our new children
        servers = [p for p in psutil.Process().children() if p.pid not in others]
        assert len(servers) == 2
        pending = []

        def run() -> None:
            pending.append(reward(None, [fenced(slow)] * 12, tests=[SUM_TESTS] * 12))

        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.3)
        servers[0].kill()
        thread.join(60)
        assert pending == [[1.0] * 12]
        assert reward.grader.pool.restarts >= 1


def test_the_shared_reward_grades_in_the_users_pool_daemon(monkeypatch):
    """The shared reward (every framework adapter's) starts no fork server in its process:
    its programs run in the user's pool daemon, which a short-lived process finds warm;
    ``MICROCODER_SHARED_POOL=0`` keeps them in servers of the process's own."""
    import psutil

    from evaluator.reward.shared import SHARED_POOL_ENV, shared_pool_wanted
    from evaluator.sandbox.shared_pool import SharedSandboxPool

    assert shared_pool_wanted()
    for off in ("0", "false", "OFF"):
        monkeypatch.setenv(SHARED_POOL_ENV, off)
        assert not shared_pool_wanted()
    before = {p.pid for p in psutil.Process().children()}
    with CodeReward(workers=2, started=1, shared_pool=True) as reward:
        texts = [fenced(RIGHT), fenced(WRONG_LAST), "no code"]
        assert reward(None, texts, tests=[SUM_TESTS] * 3) == [1.0, 0.0, 0.0]
        assert isinstance(reward.grader.pool, SharedSandboxPool)
        assert {p.pid for p in psutil.Process().children()} <= before
        daemon = psutil.Process(reward.grader.pool.info["daemon_pid"])
        assert daemon.pid not in {p.pid for p in psutil.Process().children(recursive=True)}


def test_a_pool_directory_others_may_enter_falls_back_to_an_own_pool(monkeypatch, tmp_path):
    """A daemons' directory that another user could enter (a socket there could be theirs) is
    not used: the reward warns, naming the directory and why, and grades in fork servers of
    its process's own, with the same rewards."""
    from evaluator.sandbox.shared_pool import POOL_DIR_ENV, SharedSandboxPool

    open_dir = tmp_path / "daemons"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    monkeypatch.setenv(POOL_DIR_ENV, str(open_dir))
    with pytest.warns(UserWarning, match=f"{open_dir}.*0700.*own"):
        reward = CodeReward(workers=1, started=1, shared_pool=True)
        texts = [fenced(RIGHT), fenced(WRONG_LAST)]
        assert reward(None, texts, tests=[SUM_TESTS] * 2) == [1.0, 0.0]
    with reward:
        assert not isinstance(reward.grader.pool, SharedSandboxPool)
        assert list(open_dir.iterdir()) == []


def test_a_reward_started_with_one_server_grows_as_calls_overlap():
    """``started=1`` (the shared reward's: a per-sample framework calls from short-lived
    processes, one sample at a time) starts one fork server; overlapping work starts the
    others, up to ``workers``."""
    with CodeReward(workers=2, started=1) as reward:
        assert reward([""], [fenced(RIGHT)], None, tests=[SUM_TESTS]) == [1.0]
        pool = reward.grader.pool
        assert len(pool._threads) == 1
        slow = (
            "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n"
        )
        rewards = reward([""] * 4, [fenced(slow + RIGHT)] * 4, None, tests=[SUM_TESTS] * 4)
        assert rewards == [1.0] * 4 and len(pool._threads) == 2
    assert shared_reward().started == 1
