"""The OpenRLHF adapter driven by OpenRLHF 0.11.2's own code (``pip install --no-deps
openrlhf==0.11.2``): its ``SingleTurnAgentExecutor`` (``openrlhf/utils/agent.py``, what each
vLLM rollout actor runs per sample) loads the guide's ``--reward.remote_url`` file with its own
loader, or posts to the guide's URL on a real ``mcevaluate serve`` with its own aiohttp client;
it tokenizes the chat-templated prompt, "generates" through a stand-in engine (the response's
tokens and the end-of-turn token, as vLLM returns them), decodes the query with special
tokens kept, and calls the reward. Its own ``SamplesGenerator._process_response_into_experience``
(read from its installed ``samples_generator.py``: that module imports vLLM, which this
machine does not have) then turns each output into the ``Experience`` the trainer uses, and
its ``make_experience_batch`` batches them.

Labels are dataset rows as they ship: TACO's (stdin and call-based) and LiveCodeBench's
(call-based), as JSON text or objects. Real programs in the real sandbox."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import logging
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
import torch
from openrlhf.trainer.ppo_utils.experience import Experience, make_experience_batch
from openrlhf.utils.agent import SingleTurnAgentExecutor

from evaluator.reward import VERDICT_NAMES
from evaluator.reward.frameworks.openrlhf import REWARD_FUNC_FILE, response_of_query, reward_func
from tests.conftest import make_tokenizer
from tests.frameworks.processes import assert_closed_at_exit, run_python
from tests.frameworks.readme import readme_snippet
from tests.frameworks.rows import ADD, EVENS, TACO_CALL, TACO_STDIN, fenced
from tests.frameworks.rows import LCB_EVENS as LCB_CALL
from tests.frameworks.rows import MULTIPLY_CODE as MULTIPLY

# (question, label as the dataset's label column holds it, response, reward, verdict)
CASES = [
    ("Add two numbers.", json.dumps(TACO_STDIN), fenced(ADD), 1.0, "AC"),
    ("Add two numbers.", TACO_STDIN, fenced(ADD.replace("+", "-")), 0.0, "WA"),
    ("Multiply.", TACO_CALL, fenced(MULTIPLY), 1.0, "AC"),
    ("Multiply.", json.dumps(TACO_CALL), fenced(MULTIPLY.replace("*", "+")), 0.0, "WA"),
    ("Keep the evens.", LCB_CALL, fenced(EVENS), 1.0, "AC"),
    ("Keep the evens.", json.dumps(LCB_CALL), fenced(EVENS.replace("== 0", "")), 0.0, "WA"),
    ("Keep the evens.", LCB_CALL, "I cannot write this one.", 0.0, "NO_CODE"),
    ("Multiply.", TACO_CALL, fenced("def multiply(a, b):\n    raise ValueError"), 0.0, "RE"),
    # the query holds the prompt's code, never the response's: the response has none
    (f"Add two numbers, as this does:\n```python\n{ADD}\n```", TACO_STDIN, "No.", 0.0, "NO_CODE"),
]


class Engine:
    """vLLM's engine as ``SingleTurnAgentExecutor.execute`` calls it: ``await
    generate(prompt_token_ids, sampling_params, multi_modal_data=...)``, answering a
    ``RequestOutput``-like object whose ``outputs[0]`` has the generated ``token_ids`` (here
    the response's, then the end-of-turn token, as a chat model stops), ``finish_reason`` and
    ``logprobs``."""

    def __init__(self, tokenizer, response: str) -> None:
        self.ids = tokenizer.encode(response, add_special_tokens=False)
        self.ids.append(tokenizer.eos_token_id)
        self.prompts: list[list[int]] = []

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        self.prompts.append(list(prompt_token_ids))
        output = SimpleNamespace(token_ids=list(self.ids), finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[output])


def _openrlhf_conversion():
    """OpenRLHF's ``SamplesGenerator._process_response_into_experience``, compiled from its
    installed ``samples_generator.py`` (the module itself imports vLLM)."""
    spec = importlib.util.find_spec("openrlhf")
    assert spec is not None and spec.submodule_search_locations
    path = Path(spec.submodule_search_locations[0]) / "trainer/ppo_utils/samples_generator.py"
    tree = ast.parse(path.read_text())
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SamplesGenerator"]
    [method] = [
        n
        for n in cls.body
        if isinstance(n, ast.FunctionDef) and n.name == "_process_response_into_experience"
    ]
    namespace = {"torch": torch, "Experience": Experience}
    exec(compile(ast.Module(body=[method], type_ignores=[]), str(path), "exec"), namespace)
    convert = namespace["_process_response_into_experience"]
    return lambda output: convert(None, output, max_len=4096)


to_experience = _openrlhf_conversion()


@pytest.fixture(scope="module")
def tokenizer():
    return make_tokenizer()


def remote_url(server) -> str:
    """The guide's remote URL, on the test server's port."""
    snippet = readme_snippet("# OpenRLHF: reward")
    urls = [w for w in shlex.split(snippet, comments=True) if w.startswith("http://")]
    assert urls == ["http://127.0.0.1:8080/get_reward"], snippet
    return urls[0].replace("http://127.0.0.1:8080", server.url)


def reward_file() -> str:
    """The guide's ``--reward.remote_url "$(python -m evaluator.reward.frameworks.openrlhf)"``, run."""
    snippet = readme_snippet("# OpenRLHF: reward")
    assert '--reward.remote_url "$(python -m evaluator.reward.frameworks.openrlhf)"' in snippet
    out = subprocess.run(
        [sys.executable, "-m", "evaluator.reward.frameworks.openrlhf"],
        capture_output=True,
        text=True,
        check=True,
    )
    path = out.stdout.strip()
    assert path.endswith(".py") and Path(path) == REWARD_FUNC_FILE
    return path


def prompt_of(tokenizer, question: str) -> str:
    """The prompt as OpenRLHF's ``preprocess_data`` makes it with ``--data.apply_chat_template``."""
    chat = [{"role": "user", "content": question}]
    return tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)


async def run_samples(executor, tokenizer, samples, max_length=4096, max_tokens=1024):
    """Each (question, label, response) through ``executor.execute``, concurrently, as the
    rollout actor runs its prompts' samples; OpenRLHF's outputs."""
    params = SimpleNamespace(max_tokens=max_tokens, logprobs=None)

    async def one(question, label, response):
        engine = Engine(tokenizer, response)
        prompt = prompt_of(tokenizer, question)
        return await executor.execute(prompt, label, params, max_length, tokenizer, engine)

    return await asyncio.gather(*(one(q, label, r) for q, label, r in samples))


@pytest.fixture
def openrlhf_log():
    """What OpenRLHF's executor logs (its logger does not propagate)."""
    records: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    logger = logging.getLogger("openrlhf.utils.agent")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


def check_outputs(outputs, expected_rewards, expected_verdicts):
    experiences = [to_experience(output) for output in outputs]
    batch = make_experience_batch(experiences)
    assert batch.rewards.reshape(-1).tolist() == expected_rewards
    assert batch.scores.reshape(-1).tolist() == expected_rewards
    for name in VERDICT_NAMES:
        logged = [float(v.reshape(-1)[0]) for v in batch.info[f"verdict_{name}"]]
        assert logged == [float(v == name) for v in expected_verdicts], name
    assert [e.info["reward"].reshape(-1).tolist() for e in experiences] == [
        [r] for r in expected_rewards
    ]


# --- the two ways OpenRLHF calls the reward ---------------------------------------------------


@pytest.mark.parametrize("way", ["file", "url"])
def test_openrlhf_executor_scores_right_and_wrong_answers(way, tokenizer, server):
    target = reward_file() if way == "file" else remote_url(server)
    executor = SingleTurnAgentExecutor(target)
    assert (executor.reward_func is not None) == (way == "file")
    outputs = asyncio.run(run_samples(executor, tokenizer, [c[:3] for c in CASES]))
    for output, (question, *_rest) in zip(outputs, CASES, strict=True):
        query = tokenizer.decode(output["observation_tokens"], skip_special_tokens=False)
        assert query.startswith(prompt_of(tokenizer, question)) and query.endswith("<|im_end|>")
    check_outputs(outputs, [c[3] for c in CASES], [c[4] for c in CASES])


def test_a_closing_fence_glued_to_the_end_of_turn_token_is_still_code(tokenizer, server):
    """```` ```<|im_end|> ```` would open a new block if the token stayed."""
    response = f"```python\n{ADD}\n```"
    samples = [("Add two numbers.", TACO_STDIN, response)]
    for target in (reward_file(), remote_url(server)):
        [output] = asyncio.run(run_samples(SingleTurnAgentExecutor(target), tokenizer, samples))
        query = tokenizer.decode(output["observation_tokens"], skip_special_tokens=False)
        assert query.endswith("```<|im_end|>")
        assert float(torch.tensor([output["reward"]]).reshape(-1)[0]) == 1.0


def test_a_left_truncated_prompt_still_gives_the_response(tokenizer, server):
    """A prompt longer than ``max_len - max_tokens`` is cut from the left by OpenRLHF: the
    query no longer starts with the prompt."""
    question = "Add two numbers. " + "Read the input from stdin and write the answer. " * 30
    question += f"This one is right:\n```python\n{ADD}\n```"
    samples = [
        (question, TACO_STDIN, fenced(ADD)),
        (question, TACO_STDIN, fenced("print(0)")),
        (question, TACO_STDIN, "I will not write it."),
    ]
    prompt_tokens = len(tokenizer(prompt_of(tokenizer, question))["input_ids"])
    for target in (reward_file(), remote_url(server)):
        outputs = asyncio.run(
            run_samples(
                SingleTurnAgentExecutor(target),
                tokenizer,
                samples,
                max_length=512 + prompt_tokens - 100,
                max_tokens=512,
            )
        )
        query = tokenizer.decode(outputs[0]["observation_tokens"], skip_special_tokens=False)
        assert not query.startswith(prompt_of(tokenizer, question))
        check_outputs(outputs, [1.0, 0.0, 0.0], ["AC", "WA", "NO_CODE"])


def test_response_of_query_forms():
    prompt = "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n"
    answer = "```python\nprint(1)\n```"
    assert response_of_query(prompt + answer + "<|im_end|>", prompt) == answer
    assert response_of_query("<s>" + prompt + answer + "</s>", prompt) == answer  # a BOS added
    long = "<|im_start|>user\n" + "Solve it. " * 40 + "<|im_end|>\n<|im_start|>assistant\n"
    assert response_of_query(long[300:] + answer, long) == answer  # cut at the left
    assert response_of_query("\ufffd" + long[301:] + answer, long) == answer  # mid-character
    # a decode that does not give the prompt back: the chat template's assistant marker
    assert response_of_query("<|im_start|>user\nq \n<|im_start|>assistant\n" + answer, prompt) == (
        answer
    )
    llama = "<|start_header_id|>assistant<|end_header_id|>\n\n"
    assert response_of_query("x" + llama + answer + "<|eot_id|>", "y" + llama) == answer


# --- a label that cannot be read ------------------------------------------------------------------


def test_a_malformed_label_is_an_error_naming_it_in_process(tokenizer, openrlhf_log):
    with pytest.raises(ValueError, match=r"labels\[0\]: not valid JSON"):
        reward_func(["q" + fenced(ADD)], ["q"], ["{'input_output': 1}"])
    with pytest.raises(ValueError, match=r"labels\[0\]: .*no tests"):
        reward_func(["q" + fenced(ADD)], ["q"], [{"input_output": '{"inputs": [], "outputs": []}'}])
    # through OpenRLHF: it logs the message and leaves the sample without a reward (which stops
    # its trainer: "reward_model_group is required when rewards are not precomputed")
    executor = SingleTurnAgentExecutor(reward_file())
    [output] = asyncio.run(run_samples(executor, tokenizer, [("Add.", "42", fenced(ADD))]))
    assert output["reward"] is None
    assert any("labels[0]: expected a dataset row" in line for line in openrlhf_log), openrlhf_log


def test_a_malformed_label_can_be_skipped_as_zero(tokenizer, monkeypatch):
    monkeypatch.setenv("MICROCODER_ON_BAD_PROBLEM", "skip")
    executor = SingleTurnAgentExecutor(reward_file())
    samples = [("Add.", "not json", fenced(ADD)), ("Add.", TACO_STDIN, fenced(ADD))]
    outputs = asyncio.run(run_samples(executor, tokenizer, samples))
    check_outputs(outputs, [0.0, 1.0], ["ERROR", "AC"])


def test_a_malformed_label_by_url_is_a_400_naming_it(tokenizer, server, openrlhf_log):
    url = remote_url(server)
    body = {"query": ["q" + fenced(ADD)], "prompts": ["q"], "labels": [{"no": "tests"}]}
    reply = requests.post(url, json=body, timeout=60)
    assert reply.status_code == 400
    assert reply.json()["error"].startswith("field 'labels[0]': not a known problem record")
    for bad, field in [
        ({"prompts": ["q"], "labels": [TACO_STDIN]}, "'query'"),
        ({"query": ["q"], "prompts": ["q"]}, "'labels'"),
        ({"query": ["q", "r"], "prompts": ["q"], "labels": [TACO_STDIN]}, "'prompts'"),
        ({"query": [1], "prompts": ["q"], "labels": [TACO_STDIN]}, "'query[0]'"),
    ]:
        reply = requests.post(url, json=bad, timeout=60)
        assert reply.status_code == 400 and field in reply.json()["error"], reply.text
    # OpenRLHF's client: five tries, each logged with the status, then no reward
    executor = SingleTurnAgentExecutor(url)
    [output] = asyncio.run(run_samples(executor, tokenizer, [("Add.", [], fenced(ADD))]))
    assert output["reward"] is None
    assert sum("400" in line and "/get_reward" in line for line in openrlhf_log) == 5
    assert "field 'labels[0]'" in server.log.read_text()


# --- a batch of 256 -----------------------------------------------------------------------------


@pytest.mark.parametrize("way", ["file", "url"])
def test_a_batch_of_256_through_openrlhf(way, tokenizer, server):
    """256 samples (32 prompts x 8), each its own ``execute`` as the rollout actors run them
    (one reward call or request per sample), then OpenRLHF's experiences."""
    samples, rewards, verdicts = [], [], []
    for index in range(256):
        question, label, response, reward, verdict = CASES[index % len(CASES)]
        label = json.dumps(label) if index % 2 and not isinstance(label, str) else label
        samples.append((f"{question} ({index // 8})", label, response))
        rewards.append(reward)
        verdicts.append(verdict)
    target = reward_file() if way == "file" else remote_url(server)
    outputs = asyncio.run(run_samples(SingleTurnAgentExecutor(target), tokenizer, samples))
    check_outputs(outputs, rewards, verdicts)


# --- the pool stops with the rollout process -------------------------------------------------------

EXIT_SCRIPT = """
import asyncio, json, sys
import psutil
from openrlhf.utils.agent import SingleTurnAgentExecutor

path, query, prompt, label = json.loads(sys.argv[1])
executor = SingleTurnAgentExecutor(path)
[answer] = asyncio.run(executor._fetch_rewards_via_func([query], [prompt], [label]))
below = psutil.Process().children(recursive=True)
servers = [p.pid for p in below if "evaluator.sandbox.server" in " ".join(p.cmdline())]
print(json.dumps({"reward": float(answer["rewards"][0]), "servers": servers}))
"""


def test_the_shared_pool_stops_when_the_rollout_process_exits(tmp_path, exit_script=EXIT_SCRIPT):
    """OpenRLHF's rollout process loads the file and rewards a sample: the shared reward's
    fork servers start there, and when the process exits none is left, nor a temp dir."""
    tmp = tmp_path / "rollout-tmp"
    tmp.mkdir()
    prompt = "<|im_start|>user\nAdd.<|im_end|>\n<|im_start|>assistant\n"
    argument = json.dumps([reward_file(), prompt + fenced(ADD) + "<|im_end|>", prompt, TACO_STDIN])
    lines = run_python(["-c", exit_script, argument], tmp, timeout=300)
    answer = json.loads(lines[-1])
    assert answer["reward"] == 1.0
    assert_closed_at_exit(answer["servers"], tmp, left="*")
