"""open-r1's code rewards: in-process (:mod:`evaluator.reward.frameworks.open_r1`, open-r1's own
signatures) and by URL through ``mcevaluate serve`` (its E2B router's ``/execute_batch`` and
Piston's ``/api/v2/execute`` for its Codeforces reward).

open-r1 is not on the package registry, so each request is the one its own code sends, read
from ``huggingface/open-r1@1416fa0cf21595d2083b399a2a0bbddd7f6e9563``:

* ``src/open_r1/rewards.py`` L511-592 (``code_reward``: ``extract_code(completion[-1]
  ["content"])``, L476-482, then the evaluation script, L529-580, one per completion, run by
  the provider) and ``src/open_r1/utils/code_providers.py`` L88-105 (``E2BProvider`` with a
  router: ``RoutedSandbox.run_code(scripts, languages, timeout=30, request_timeout=28)``,
  reward ``float(execution.text)`` else None), ``src/open_r1/utils/routed_sandbox.py``
  L60-100 (the POST to ``http://{router}/execute_batch`` and how its answer is read). The
  script's text is vendored in ``tests/data/frameworks/open_r1/`` (Apache-2.0, with its
  README);
* ``src/open_r1/utils/competitive_programming/cf_scoring.py`` L12-55 (the files of one
  test's Piston request) and L94-146 (``score_submission``: official then generated tests, a
  compile failure -0.1, a test passed when ``run.code == 0`` and ``run.stdout.strip() ==
  "1"``, the weighted sum), and ``piston_client.py`` L137-166 (``language``, ``version: "*"``,
  ``POST {endpoint}/execute``), with the piston package of ``guipenedo/piston@7a38da2``.

The rows are ``tests/data/sources/codeforces`` (open-r1/codeforces; its right and wrong
programs) and PrimeIntellect-style ``verification_info`` written here.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import requests

from evaluator.reward import ProblemError
from evaluator.reward.frameworks.open_r1 import (
    binary_code_reward,
    cf_code_reward,
    cf_score,
    code_reward,
)
from evaluator.service.compat.e2b import OPEN_R1_SCRIPT_DIGEST, open_r1_literals
from tests.frameworks.open_r1_shapes import (
    TEMPLATE,
    open_r1_extract_code,
    open_r1_script,
    piston_request,
    router_rewards,
    weighted_sum,
)
from tests.frameworks.processes import assert_closed_at_exit, run_python
from tests.frameworks.readme import readme_snippet
from tests.service.conftest import start_server

DATA = Path(__file__).resolve().parents[1] / "data"
CF = DATA / "sources" / "codeforces"
CF_ROWS = {row["id"]: row for row in map(json.loads, (CF / "problems.jsonl").open())}
CF_SAMPLES = {row["id"]: row["codes"] for row in map(json.loads, (CF / "samples.jsonl").open())}

SUM_CASES = [
    {"type": "stdin_stdout", "input": f"{a} {b}\n", "output": f"{a + b}\n"}
    for a, b in ((1, 2), (5, 5), (-3, 4), (10, 1))
]
SUM_INFO = {"language": "python", "test_cases": SUM_CASES}
SUM_RIGHT = "a, b = map(int, input().split())\nprint(a + b)"
SUM_HALF = "a, b = map(int, input().split())\nprint(a + b if a < 3 else a - b)"  # 2 of 4
EVENS_INFO = {
    "language": "python",
    "test_cases": [
        {
            "type": "function_call",
            "fn_name": "evens",
            "input": "[[1, 2, 3, 4]]",
            "output": "[2, 4]",
        },
        {"type": "function_call", "fn_name": "evens", "input": "[[]]", "output": "[]"},
    ],
}
EVENS_RIGHT = "def evens(nums):\n    return [x for x in nums if x % 2 == 0]"
EVENS_WRONG = "def evens(nums):\n    return [x for x in nums if x % 2]"  # right on []


def chat(code: str | None, language: str = "python") -> list[dict]:
    """A TRL conversational completion (open-r1 reads ``completion[-1]["content"]``)."""
    text = "No idea." if code is None else f"Here:\n```{language}\n{code}\n```"
    return [{"role": "assistant", "content": text}]


# right, half right, no code (stdin); right, half right (call-based): 1.0, 0.5, 0.0, 1.0, 0.5
MIXED_COMPLETIONS = [
    chat(SUM_RIGHT),
    chat(SUM_HALF),
    chat(None),
    chat(EVENS_RIGHT),
    chat(EVENS_WRONG),
]
MIXED_INFOS = [SUM_INFO, SUM_INFO, SUM_INFO, EVENS_INFO, EVENS_INFO]


def host_port(server) -> str:
    return server.url.removeprefix("http://")


# --- in-process --------------------------------------------------------------------------------


def test_code_reward_in_process_stdin_and_calls():
    completions, infos = MIXED_COMPLETIONS, MIXED_INFOS
    logged = {}
    rewards = code_reward(
        completions,
        prompts=[[{"role": "user", "content": "solve"}]] * 5,  # TRL passes these too
        verification_info=infos,
        log_metric=lambda name, value: logged.__setitem__(name, value),
    )
    assert rewards == [1.0, 0.5, 0.0, 1.0, 0.5]
    assert logged["reward/verdict_AC"] == 2 and logged["reward/verdict_NO_CODE"] == 1
    assert binary_code_reward(completions, verification_info=infos) == [1.0, 0.0, 0.0, 1.0, 0.0]
    # verification_info as the Hub writes it (a Python literal's text) reads the same
    text = [repr(SUM_INFO)] * 2
    assert code_reward([chat(SUM_RIGHT), chat(SUM_HALF)], verification_info=text) == [1.0, 0.5]


def test_code_reward_refuses_what_it_cannot_read():
    bad = {"language": "python", "tests": SUM_CASES}  # no test_cases
    with pytest.raises(ProblemError, match="row 1 of the batch.*test_cases"):
        code_reward([chat(SUM_RIGHT)] * 2, verification_info=[SUM_INFO, bad])
    assert code_reward(
        [chat(SUM_RIGHT)] * 2, verification_info=[SUM_INFO, bad], on_bad_problem="skip"
    ) == [1.0, None]
    with pytest.raises(ProblemError, match="columns|record"):
        code_reward([chat(SUM_RIGHT)], info=[SUM_INFO])  # another framework's column name
    with pytest.raises(TypeError, match="list of completions"):
        code_reward("```python\nprint(1)\n```", verification_info=[SUM_INFO])
    with pytest.raises(ValueError, match="same language"):
        cpp = {"language": "cpp", "test_cases": SUM_CASES}
        code_reward([chat(SUM_RIGHT)] * 2, verification_info=[SUM_INFO, cpp],
                    enforce_same_language=True)  # fmt: skip


def test_the_in_process_pool_closes_at_exit(tmp_path):
    """A training process that used the rewards leaves no sandbox process or temp dir: the
    shared pool (and the fraction reward over it) close when the interpreter exits."""
    code = "\n".join(
        (
            "import json, psutil",
            "from evaluator.reward.frameworks.open_r1 import binary_code_reward, code_reward",
            f"info, chat = {SUM_INFO!r}, {chat(SUM_RIGHT)!r}",
            "print(code_reward([chat], verification_info=[info]),",
            "      binary_code_reward([chat], verification_info=[info]))",
            "print(json.dumps([p.pid for p in psutil.Process().children(recursive=True)]))",
        )
    )
    rewards, pids = run_python(["-c", code], tmp_path)[-2:]
    assert rewards.split() == ["[1.0]", "[1.0]"]
    assert_closed_at_exit(json.loads(pids), tmp_path, left="*")


def cf_columns(ids: list[str], languages: list[str]) -> dict[str, list]:
    """open-r1/codeforces rows as TRL's keyword columns (one list per column)."""
    keys = sorted({key for i in ids for key in CF_ROWS[i]})
    columns = {key: [CF_ROWS[i].get(key) for i in ids] for key in keys}
    columns["language"] = languages
    return columns


CF_CPP_RIGHT = '#include <cstdio>\nint main(){int w;scanf("%d",&w);puts(w>2&&w%2==0?"YES":"NO");}'


def test_cf_code_reward_in_process(monkeypatch):
    monkeypatch.setenv("CF_TESTS_FOLDER", str(CF / "generated"))
    ids = ["4/A", "4/A", "4/B", "4/B", "5/B", "4/A", "4/A", "4/A"]
    completions = [
        chat(CF_SAMPLES["4/A"][0]),
        chat(CF_SAMPLES["4/A"][1]),  # right on the official tests, wrong on a generated one
        chat(CF_SAMPLES["4/B"][0]),  # any valid pair: the checker decides
        chat(CF_SAMPLES["4/B"][1]),
        chat(CF_SAMPLES["5/B"][1]),  # the checker raises on its answer: rejected
        chat(CF_CPP_RIGHT, "cpp"),
        chat("int main( {", "cpp"),
        chat(None),
    ]
    languages = ["python"] * 5 + ["cpp", "cpp", "python"]
    columns = cf_columns(ids, languages)
    rewards = cf_code_reward(completions, **columns)
    assert rewards == pytest.approx([1.1, 0.08, 1.1, 0.0, 0.0, 1.1, -0.1, -1.0])
    partial = cf_code_reward(
        completions[:2], scoring_mode="partial", **cf_columns(ids[:2], ["python"] * 2)
    )
    assert partial == pytest.approx([1.0, 0.8])
    passfail = cf_code_reward(
        completions[:2], scoring_mode="pass_fail", **cf_columns(ids[:2], ["python"] * 2)
    )
    assert passfail == [1.0, 0.0]
    with pytest.raises(ValueError, match="scoring_mode"):
        cf_code_reward(completions[:1], scoring_mode="sum", **cf_columns(ids[:1], ["python"]))
    with pytest.raises(ValueError, match="patch_code"):
        cf_code_reward(completions[:1], patch_code=True, **cf_columns(ids[:1], ["python"]))
    with pytest.raises(ProblemError, match="interactive"):
        cf_code_reward(completions[:1], **cf_columns(["6/A"], ["python"]))


# --- the E2B router ----------------------------------------------------------------------------


def test_the_vendored_script_is_the_one_recognised():
    assert hashlib.sha256(TEMPLATE.encode()).hexdigest() == OPEN_R1_SCRIPT_DIGEST
    code = 'print("a\\nb")  # """ \u00fc \U0001f600'
    script = open_r1_script(code, SUM_INFO)
    literals = open_r1_literals(script)  # their source text: JSON string literals
    assert literals is not None
    assert json.loads(literals[0]) == code and json.loads(json.loads(literals[1])) == SUM_CASES
    changed = script.replace("exec_timeout = 5", "exec_timeout = 50")
    assert open_r1_literals(changed) is None  # another rule: a plain run, not ours


def test_router_scores_open_r1_scripts_as_the_reward_does(server):
    completions, infos = MIXED_COMPLETIONS, MIXED_INFOS
    scripts = [
        open_r1_script(open_r1_extract_code(c[-1]["content"]), info)
        for c, info in zip(completions, infos, strict=True)
    ]
    assert router_rewards(host_port(server), scripts) == [1.0, 0.5, 0.0, 1.0, 0.5]
    assert router_rewards(host_port(server), scripts) == code_reward(
        completions, verification_info=infos
    )
    payload = {
        "scripts": scripts[1:2],
        "languages": ["python"],
        "timeout": 30,
        "request_timeout": 28,
    }
    [answer] = server.post("/execute_batch", payload).json()
    assert answer["execution"]["results"][0]["text"] == "0.5"
    assert "WA: test 2: WA" in answer["execution"]["logs"]["stdout"][0]  # our verdict, logged
    unreadable = open_r1_script(SUM_RIGHT, {"test_cases": [{"input": "1"}]})
    [bad] = server.post("/execute_batch", {**payload, "scripts": [unreadable]}).json()
    assert bad["execution"]["error"]["name"] == "ProblemError"
    assert "test_cases" in bad["execution"]["error"]["value"]
    assert router_rewards(host_port(server), [unreadable]) == [None]


def test_router_runs_other_scripts_as_jupyter_cells_in_the_sandbox(server):
    scripts = [
        "\n    x = 6\n    print('side', x)\n    x * 7\n",  # indented, as IPython takes it
        "x = 1\nx;",  # a trailing ; shows nothing
        "raise KeyError('k')",
        "import subprocess\nsubprocess.run(['python3', '-c', 'print(1)'])",
        "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=1)",
        "while True:\n    pass",
        "print(1)",
    ]
    payload = {
        "scripts": scripts,
        "languages": ["python"] * 6 + ["javascript"],
        "timeout": 2,
        "request_timeout": 28,
    }
    cell, quiet, raised, spawned, network, looped, other = server.post(
        "/execute_batch", payload
    ).json()
    assert cell["execution"]["results"][0]["text"] == "42"
    assert cell["execution"]["logs"]["stdout"] == ["side 6\n"] and cell["exception_str"] is None
    assert quiet["execution"]["results"] == [] and quiet["execution"]["error"] is None
    assert raised["execution"]["error"]["name"] == "KeyError"
    assert "KeyError: 'k'" in raised["execution"]["error"]["traceback"]
    assert spawned["execution"]["error"]["name"] == "PermissionError"  # no process here
    assert network["execution"]["error"] is not None  # no network either
    assert looped["execution"] is None and "time limit (2 s)" in looped["exception_str"]
    assert other["execution"] is None and "'javascript'" in other["exception_str"]


def test_router_malformed_bodies_are_422(server):
    good = {"scripts": ["1"], "languages": ["python"], "timeout": 30, "request_timeout": 28}
    cases = [
        ({k: v for k, v in good.items() if k != "scripts"}, "scripts"),
        ({**good, "languages": []}, "languages"),
        ({**good, "timeout": "soon"}, "timeout"),
        ({**good, "timeout": 0}, "timeout"),
        ({**good, "scripts": [1]}, "scripts"),
    ]
    for body, field in cases:
        reply = server.post("/execute_batch", body)
        assert reply.status_code == 422, (body, reply.text)
        assert field in reply.json()["error"] and reply.json()["detail"][0]["loc"][1] == field


def test_router_batch_of_256(server):
    completions, infos, expected = [], [], []
    for index in range(256):
        if index % 2:
            right, half, info = EVENS_RIGHT, EVENS_WRONG, EVENS_INFO
        else:
            right, half, info = SUM_RIGHT, SUM_HALF, SUM_INFO
        completions.append(chat(right if index % 4 < 2 else half))
        infos.append(info)
        expected.append(1.0 if index % 4 < 2 else 0.5)
    scripts = [
        open_r1_script(open_r1_extract_code(c[-1]["content"]), info)
        for c, info in zip(completions, infos, strict=True)
    ]
    assert router_rewards(host_port(server), scripts) == expected
    assert code_reward(completions, verification_info=infos) == expected


# --- Piston ------------------------------------------------------------------------------------


def generated_tests(problem_id: str) -> list[dict]:
    """``get_generated_tests`` (cf_scoring.py L58-91): the contest's parquet grouped by
    ``problem_id``, none when the contest has no file."""
    path = CF / "generated" / f"test_cases_{int(problem_id.split('/')[0]):04d}.parquet"
    if not path.exists():
        return []
    rows = pq.read_table(path).to_pylist()
    return [
        {"input": r["input"], "output": r["output"]} for r in rows if r["problem_id"] == problem_id
    ]


def piston_score(
    endpoint: str, row: dict, submission: str, language: str = "python", headers=None
) -> float:
    """``score_submission`` (cf_scoring.py L94-146), weighted sum, one test at a time."""
    tests = row["official_tests"] + generated_tests(row["id"])
    if not submission:
        return -1.0
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(
            lambda t: requests.post(f"{endpoint}/execute", json=piston_request(row, t, submission, language), headers=headers, timeout=60),
            tests,
        ))  # fmt: skip
    assert [r.status_code for r in results] == [200] * len(tests), results[0].text
    return weighted_sum([r.json() for r in results])


def test_piston_scores_codeforces_as_cf_code_reward(server, monkeypatch):
    monkeypatch.setenv("CF_TESTS_FOLDER", str(CF / "generated"))
    endpoint = f"{server.url}/api/v2"
    for problem_id in ("4/A", "4/B", "5/A", "5/B", "5/C", "6/B"):
        row = CF_ROWS[problem_id]
        for code in CF_SAMPLES[problem_id]:
            over_http = piston_score(endpoint, row, code)
            [in_process] = cf_code_reward([chat(code)], **cf_columns([problem_id], ["python"]))
            assert over_http == pytest.approx(in_process), (problem_id, code)
    right, wrong = CF_SAMPLES["4/B"]
    assert piston_score(endpoint, CF_ROWS["4/B"], right) == pytest.approx(1.1)
    assert piston_score(endpoint, CF_ROWS["4/B"], wrong) == 0.0
    assert piston_score(endpoint, CF_ROWS["4/A"], CF_CPP_RIGHT, "cpp") == pytest.approx(1.1)
    assert piston_score(endpoint, CF_ROWS["4/A"], "int main( {", "cpp") == -0.1
    assert "(checker sandboxed)" in server.log.read_text()


def test_piston_answers_as_the_codeforces_package(server):
    row, test = CF_ROWS["5/B"], CF_ROWS["5/B"]["official_tests"][0]
    answer = server.post("/api/v2/execute", piston_request(row, test, "print(42)", "python")).json()
    assert answer["language"] == "python3" and answer["version"] == "1.0.0"
    assert answer["compile"]["code"] == 0
    assert (answer["run"]["stdout"], answer["run"]["code"]) == ("1\n", 0)
    raised = server.post(
        "/api/v2/execute", piston_request(row, test, "print('x')", "python")
    ).json()
    assert raised["run"]["stdout"] == "0\n" and raised["run"]["code"] == 1  # the checker's status
    crash = server.post("/api/v2/execute", piston_request(row, test, "exit(3)", "python")).json()
    assert (crash["run"]["stdout"], crash["run"]["code"]) == ("0\n", 3)
    slow = dict(row, time_limit=0.5)
    loop = server.post(
        "/api/v2/execute", piston_request(slow, test, "while 1: pass", "python")
    ).json()
    assert (loop["run"]["stdout"], loop["run"]["code"]) == ("0\n", 124)
    broken = dict(row, generated_checker="x = bytearray(1 << 40)\nprint(1)\n")  # out of memory
    judge = server.post(
        "/api/v2/execute", piston_request(broken, test, "print(42)", "python")
    ).json()
    assert judge["run"]["status"] == "XX" and judge["run"]["code"] is None  # never a pass
    assert "checker" in judge["run"]["message"]
    # the package's run mode: no correct_output.txt, the program's output comes back
    files = [{"name": "main.python", "content": "print(input()[::-1])\nprint()\nprint('!')"},
             {"name": "input.txt", "content": "abc\n"}]  # fmt: skip
    ran = server.post("/api/v2/execute", {"language": "cf_python3", "version": "*", "files": files})
    assert ran.json()["run"]["stdout"] == "cba\n!\n" and ran.json()["run"]["code"] == 0
    runtimes = requests.get(f"{server.url}/api/v2/runtimes", timeout=30).json()
    python = next(r for r in runtimes if r["language"] == "python3")
    assert "cf_python3" in python["aliases"] and python["runtime"] == "codeforces"
    assert {"c++17", "c++20"} <= {r["language"] for r in runtimes}


def test_piston_bad_requests_say_what(server):
    row, test = CF_ROWS["4/A"], CF_ROWS["4/A"]["official_tests"][0]
    good = piston_request(row, test, "print('YES')", "python")
    cases = [
        ({k: v for k, v in good.items() if k != "language"}, "language is required as a string"),
        ({**good, "files": [{"name": "main.py"}]}, "files[0].content is required as a string"),
        ({**good, "language": "cms_ioi"}, "cms_ioi-* runtime is unknown"),
        ({**good, "version": "2.0.0"}, "cf_python3-2.0.0 runtime is unknown"),
        ({**good, "run_timeout": "soon"}, "run_timeout must be a number"),
        (
            {
                **good,
                "files": [
                    *good["files"][:-1],
                    {"name": "grader_config", "content": "TIME_LIMIT=fast"},
                ],
            },
            "TIME_LIMIT='fast' is not a number",
        ),
    ]
    for body, message in cases:
        reply = server.post("/api/v2/execute", body)
        assert reply.status_code == 400, (message, reply.text)
        assert message in reply.json()["message"], reply.json()  # Piston's field, and ours
        assert reply.json()["error"] == reply.json()["message"]


def test_piston_batch_of_256(server):
    """256 completions (half right, half wrong; Python and C++) of 4/A, one request per
    official test, concurrently as PistonClient's aiohttp session sends them."""
    import aiohttp

    row = CF_ROWS["4/A"]
    cpp_wrong = CF_CPP_RIGHT.replace("w%2==0", "w%2==1")
    submissions = []
    for index in range(256):
        python = index % 2 == 0
        right = index % 4 < 2
        code = (
            (CF_SAMPLES["4/A"][0] if right else "print('NO')")
            if python
            else (CF_CPP_RIGHT if right else cpp_wrong)
        )
        submissions.append((code, "python" if python else "cpp", right))

    async def run() -> list[float]:
        limit = asyncio.Semaphore(16)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(sock_read=30)) as session:

            async def one(code: str, language: str, test: dict) -> dict:
                async with (
                    limit,
                    session.post(
                        f"{server.url}/api/v2/execute",
                        json=piston_request(row, test, code, language),
                        headers={"Content-Type": "application/json"},
                    ) as response,
                ):
                    assert response.status == 200
                    return await response.json(content_type=None)

            async def score(code: str, language: str) -> float:
                results = await asyncio.gather(
                    *(one(code, language, t) for t in row["official_tests"])
                )
                passed = sum(
                    r["run"]["code"] == 0 and r["run"]["stdout"].strip() == "1" for r in results
                )
                return (1.0 if passed == len(results) else 0.0) + 0.1 * passed / len(results)

            return await asyncio.gather(
                *(score(code, language) for code, language, _ in submissions)
            )

    scores = asyncio.run(run())
    expected = [1.1 if right else (0.1 / 3 if language == "cpp" else 0.2 / 3)
                for _, language, right in submissions]  # fmt: skip
    assert scores == pytest.approx(expected)


def test_piston_with_trusted_checkers_and_a_token(tmp_path):
    """``--trust-checkers``: checker.py runs as the grader's Codeforces checker, outside the
    sandbox profile; the same verdicts as in the sandbox. With ``--token``, every endpoint
    here wants it."""
    trusted = start_server(tmp_path, "--workers", "1", "--trust-checkers", "--token", "s3cret")
    try:
        endpoint = f"{trusted.url}/api/v2"
        token = {"Authorization": "Bearer s3cret"}
        right, wrong = CF_SAMPLES["4/B"]
        assert piston_score(endpoint, CF_ROWS["4/B"], right, headers=token) == pytest.approx(1.1)
        assert piston_score(endpoint, CF_ROWS["4/B"], wrong, headers=token) == 0.0
        assert "(checker trusted)" in trusted.log.read_text()
        for path in ("/api/v2/execute", "/execute_batch", "/verify", "/seed_session"):
            assert trusted.post(path, {}).status_code == 401, path
        listed = requests.get(f"{endpoint}/runtimes", timeout=30)
        assert listed.status_code == 401 and "token" in listed.json()["message"]
        assert requests.get(f"{endpoint}/runtimes", headers=token, timeout=30).ok
    finally:
        assert trusted.stop(), trusted.log.read_text()
    assert trusted.leftovers() == []


# --- README ------------------------------------------------------------------------------------


def test_readme_snippet(server):
    snippet = readme_snippet("# open-r1: code rewards")
    namespace = {
        "completions": [chat(SUM_RIGHT), chat(SUM_HALF)],
        "verification_info": [SUM_INFO, SUM_INFO],
    }
    exec(snippet, namespace)
    assert namespace["rewards"] == [1.0, 0.5]
    here = host_port(server)
    piston = namespace["PISTON_ENDPOINTS"].replace("127.0.0.1:8000", here)
    right = CF_SAMPLES["4/A"][0]
    assert piston_score(piston, CF_ROWS["4/A"], right) == pytest.approx(1.1)
    router = namespace["E2B_ROUTER_URL"].replace("127.0.0.1:8000", here)
    scripts = [open_r1_script(SUM_RIGHT, SUM_INFO)]
    assert router_rewards(router, scripts) == [1.0]
    assert cf_score("CE", 0.0, None) == -0.1 and cf_score("NO_CODE", 0.0, None) == -1.0
