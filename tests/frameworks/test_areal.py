"""The AReaL adapter driven by AReaL 1.0.4's own code: the guide's ``RLVRWorkflow``, which
imports the reward function by its dotted path and runs it through ``AsyncRewardWrapper``
(``areal/api/reward_api.py``) in its process pool, under its timeout, on completions it
decodes itself (special tokens kept), with every field of the dataset row as keywords.
``arun_episode`` runs as AReaL's rollout runs it; the inference engine is a stand-in
answering scripted completions (with a tiny tokenizer), the one part a CPU machine cannot run.

Importing AReaL reconfigures the whole process (it installs uvloop's event loop policy,
replaces the logging manager, sets ``OPENAI_BASE_URL``, warnings filters and the excepthook),
so AReaL runs in a process of its own: this module run as a script (``python -m
tests.frameworks.test_areal OUT``), which drives every scenario, writes what it saw to
``OUT`` and exits as an AReaL process does (its exit handler shuts its process pool down).

Each reward equals the direct call's; a malformed row fails the episode with the error naming
it (after AReaL's retries); 256 episodes go through the workflow; the pool worker's own warm
pool of sandbox servers closes with the worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from evaluator.reward import ProblemError
from evaluator.reward.frameworks.areal import ROW, code_reward
from tests.frameworks.processes import assert_closed_at_exit
from tests.frameworks.rows import APPEND, LOOP, ROOT, fenced, solution
from tests.frameworks.rows import LCB_APPEND as LCB
from tests.frameworks.rows import TACO_CALL as MULTIPLY
from tests.frameworks.rows import TACO_STDIN as APLUSB

BROKEN = dict(APLUSB, input_output='{"inputs": ["1 2\\n"], "outputs": []}')


# (source row, completion, verdict)
CASES = [
    (APLUSB, fenced(solution(APLUSB)), "AC"),
    (APLUSB, fenced("print(0)"), "WA"),
    (APLUSB, fenced(LOOP), "TLE"),
    (APLUSB, "No code from me.", "NO_CODE"),
    (MULTIPLY, fenced(solution(MULTIPLY)), "AC"),
    (MULTIPLY, fenced("def multiply(a, b):\n    return a - b"), "WA"),
    (LCB, fenced(APPEND), "AC"),
    (LCB, fenced(APPEND.replace("+ [x]", "")), "WA"),
]
BATCH = [
    (APLUSB, fenced(solution(APLUSB)), 1.0),
    (MULTIPLY, fenced("def multiply(a, b):\n    return 0"), 0.0),
    (LCB, fenced(APPEND), 1.0),
    (LCB, "no code", 0.0),
] * 64
MALFORMED = [
    (BROKEN, "TACO record: field 'input_output': 1 inputs but 0 outputs"),
    ({"difficulty": "easy"}, "not a known problem record (fields present: difficulty, messages"),
]


# --- the AReaL process (this module run as a script) -----------------------------------------


def _drive_areal(out: Path) -> None:
    """Every scenario through AReaL's workflow, in this process; what it saw, to ``out``."""
    from areal.api.cli_args import GenerationHyperparameters
    from areal.api.io_struct import ModelResponse
    from areal.api.reward_api import AsyncRewardWrapper
    from areal.workflow.rlvr import RLVRWorkflow

    from tests.conftest import make_tokenizer
    from tests.frameworks.readme import readme_snippet

    tokenizer = make_tokenizer()

    class Engine:
        """A stand-in for AReaL's inference engine: ``agenerate`` answers each prompt (by its
        decoded text) with its scripted completion's tokens and the EOS token, as an engine
        that stopped on EOS does."""

        def __init__(self):
            self.script: dict[str, str] = {}

        def rows(self, cases) -> list[dict]:
            """AReaL dataset rows: the chat prompt as ``messages`` beside the source row's
            fields, each prompt scripted to get its case's completion."""
            rows = []
            for source, completion, *_ in cases:
                messages = [{"role": "user", "content": f"[{len(self.script)}] Solve it."}]
                ids = tokenizer.apply_chat_template(
                    messages, tokenize=True, add_generation_prompt=True
                )
                self.script[tokenizer.decode(ids)] = completion
                rows.append({"messages": messages, **source})
            return rows

        async def agenerate(self, req):
            text = self.script[tokenizer.decode(req.input_ids)]
            output = tokenizer.encode(text) + [tokenizer.eos_token_id]
            return ModelResponse(
                input_tokens=list(req.input_ids),
                output_tokens=output,
                output_logprobs=[0.0] * len(output),
                output_versions=[0] * len(output),
                tokenizer=tokenizer,
            )

    namespace = {"gconfig": GenerationHyperparameters(max_new_tokens=256), "tokenizer": tokenizer}
    exec(compile(readme_snippet("# areal: reward"), "docs/rl-frameworks.md", "exec"), namespace)
    workflow = namespace["workflow"]
    engine = Engine()

    async def episodes(rows, concurrency: int = 16) -> list[float | str]:
        """``arun_episode`` for every row, ``concurrency`` in flight at once (AReaL's rollout
        controller bounds them): each reward, or the error that failed the episode."""
        limit = asyncio.Semaphore(concurrency)

        async def one(row):
            async with limit:
                try:
                    result = await workflow.arun_episode(engine, row)
                except Exception as exc:  # noqa: BLE001 - reported to the test
                    return f"{type(exc).__name__}: {exc}"
            return float(result["rewards"][0])

        return await asyncio.gather(*(one(row) for row in rows))

    seen: dict = {"type": type(workflow).__name__, "is_rlvr": isinstance(workflow, RLVRWorkflow)}
    seen["rewards"] = asyncio.run(episodes(engine.rows(CASES)))
    seen["imported"] = f"{workflow.reward_fn.__module__}.{workflow.reward_fn.__name__}"
    seen["decoded"] = [
        tokenizer.decode(tokenizer.encode(text) + [tokenizer.eos_token_id]) for _, text, _ in CASES
    ]
    seen["malformed"] = asyncio.run(
        episodes(engine.rows([(row, fenced(solution(APLUSB))) for row, _ in MALFORMED]))
    )
    seen["batch"] = asyncio.run(episodes(engine.rows(BATCH)))
    workers = [
        psutil.Process(process.pid)
        for executor in AsyncRewardWrapper._executors.values()
        for process in (executor._processes or {}).values()
    ]
    servers = [
        child
        for worker in workers
        for child in worker.children()
        if "evaluator.sandbox.server" in " ".join(child.cmdline())
    ]
    seen["workers"] = [worker.pid for worker in workers]
    seen["servers"] = [server.pid for server in servers]
    seen["server_dirs"] = [server.cwd() for server in servers]
    seen["pid"] = os.getpid()
    out.write_text(json.dumps(seen))
    # and exit as AReaL's processes do: its exit handler shuts its process pool down


@pytest.fixture(scope="module")
def areal_run(tmp_path_factory):
    """What the AReaL process saw, once it has exited (its sandbox temp dirs in ``tmp``)."""
    tmp = tmp_path_factory.mktemp("areal")
    out = tmp / "seen.json"
    env = {**os.environ, "TMPDIR": str(tmp)}
    done = subprocess.run(
        [sys.executable, "-m", "tests.frameworks.test_areal", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0 and out.exists(), (done.stdout[-3000:], done.stderr[-3000:])
    return json.loads(out.read_text()), tmp


def test_readme_workflow_scores_episodes_in_areals_process_pool(areal_run):
    """The guide's workflow: AReaL imported the function from the guide's path; every episode's
    reward, computed in AReaL's pool worker on the completion AReaL decoded (EOS token
    included), is the direct call's on the same text; the worker graded in its own warm pool
    of sandbox servers."""
    seen, _ = areal_run
    assert seen["is_rlvr"] and seen["imported"] == "evaluator.reward.frameworks.areal.code_reward"
    assert seen["rewards"] == [float(verdict == "AC") for *_, verdict in CASES]
    assert seen["decoded"][0].endswith("```<|im_end|>")  # what AReaL hands the function
    for text, (source, _, verdict) in zip(seen["decoded"], CASES, strict=True):
        row = {"messages": [{"role": "user", "content": "Solve it."}], **source}
        assert code_reward("prompt", text, [], [], **row) == float(verdict == "AC")
    assert seen["workers"] and seen["pid"] not in seen["workers"]
    assert seen["servers"]  # under AReaL's pool workers, not the AReaL process


def test_malformed_rows_fail_the_episode_naming_the_field(areal_run, monkeypatch):
    """A row whose problem cannot be read: AReaL's wrapper logs and retries the call, then
    raises our error, which names the row and the field, across its process pool."""
    seen, _ = areal_run
    for failure, (_, message) in zip(seen["malformed"], MALFORMED, strict=True):
        assert failure.startswith(f"ProblemError: {ROW}: "), failure
        assert message in failure, failure

    for source, message in MALFORMED:  # the same in this process
        with pytest.raises(ProblemError, match=message.split("(")[0]):
            code_reward("p", fenced(solution(APLUSB)), [], [], messages=[], **source)
    with pytest.raises(TypeError, match="takes one response, decoded, as completions; got list"):
        code_reward("p", [fenced("print(1)")], [], [], **APLUSB)
    monkeypatch.setenv("MICROCODER_ON_BAD_PROBLEM", "skip")  # scored 0.0 instead
    assert code_reward("p", fenced(solution(APLUSB)), [], [], **BROKEN) == 0.0


def test_256_episodes_through_the_workflow(areal_run):
    """256 episodes through ``RLVRWorkflow.arun_episode`` and AReaL's process pool."""
    seen, _ = areal_run
    assert seen["batch"] == [expected for *_, expected in BATCH]


def test_the_workers_pool_closes_when_the_areal_process_exits(areal_run):
    """The AReaL process exited: its exit handler shut its process pool down, the workers
    exited, and with them their warm pools (sandbox servers gone, temp dirs removed)."""
    seen, tmp = areal_run
    assert seen["server_dirs"] and all(
        Path(d).parent == tmp and Path(d).name.startswith("mcsbx-") for d in seen["server_dirs"]
    )
    assert_closed_at_exit(seen["workers"] + seen["servers"], tmp)


if __name__ == "__main__":
    _drive_areal(Path(sys.argv[1]))
