"""The slime adapter called exactly as slime calls a reward (slime is not installable: its
shapes are read from THUDM/slime at commit 624b824a898ab0ec1fcb4d373004c7f3852bf515):

* ``--custom-rm-path evaluator.reward.frameworks.slime.rm``: slime imports the dotted path
  (``slime/utils/misc.py:39-47``, ``load_function``) and awaits ``rm(args, sample)`` per
  sample (``slime/rollout/rm_hub/__init__.py:55-63``, ``async_rm``, from
  ``slime/rollout/sglang_rollout.py:284-287``), or, with ``--group-rm``, the same path with
  the group's list (``rm_hub/__init__.py:99-110``, ``batched_async_rm``, from
  ``sglang_rollout.py:330-334``), assigning ``sample.reward`` from what it returns;
* ``--rm-type remote_rm --rm-url URL``: one ``POST`` of ``{"prompt", "response", "label"}`` per
  sample from a shared aiohttp session (``TCPConnector(limit=64)``, 120 s), the decoded JSON
  taken as the reward (``rm_hub/__init__.py:19-52``, ``remote_rm``), here against a real
  ``mcevaluate serve``.

The flags are the guide's, parsed by a parser with slime's reward and data flags
(``slime/utils/arguments.py:1329-1377``, ``--label-key`` at ``:660``); the samples are a
stand-in with exactly slime's ``Sample`` fields (``slime/utils/types.py:93-151``), their label
the dataset's ``--label-key`` value as slime's ``Dataset`` reads it (``slime/utils/data.py:
271-272``): a TACO row (stdin and call-based) or a LiveCodeBench row (call-based), as JSON text
or an object. Responses end with the end-of-turn token where slime's ``no_stop_trim`` keeps
it. Real programs in the real sandbox."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import shlex
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

import aiohttp
import pytest

from evaluator.reward import shared_reward
from tests.frameworks.readme import readme_snippet
from tests.frameworks.rows import ADD, EVENS, TACO_CALL, TACO_STDIN, fenced
from tests.frameworks.rows import LCB_EVENS as LCB_CALL
from tests.frameworks.rows import MULTIPLY_CODE as MULTIPLY

SLIME_COMMIT = "624b824a898ab0ec1fcb4d373004c7f3852bf515"
EOS = "<|im_end|>"


# (label as the dataset holds it, response, reward)
CASES = [
    (json.dumps(TACO_STDIN), fenced(ADD) + EOS, 1.0),
    (TACO_STDIN, fenced(ADD.replace("+", "*")), 0.0),
    (TACO_CALL, f"```python\n{MULTIPLY}\n```{EOS}", 1.0),  # the fence glued to the EOS
    (json.dumps(TACO_CALL), fenced(MULTIPLY.replace("*", "-")) + EOS, 0.0),
    (LCB_CALL, fenced(EVENS) + EOS, 1.0),
    (json.dumps(LCB_CALL), fenced(EVENS.replace("== 0", "== 1")), 0.0),
    (LCB_CALL, "No idea." + EOS, 0.0),
    (TACO_STDIN, fenced("while True:\n    pass"), 0.0),  # TACO's own 1 s limit: a TLE
]


# --- slime's shapes ------------------------------------------------------------------------------


@dataclass
class Sample:
    """slime's ``Sample`` (``slime/utils/types.py:93-151`` at SLIME_COMMIT): the same fields,
    types and defaults; none of its methods."""

    @dataclass
    class SpecInfo:
        spec_accept_token_num: int = 0
        spec_draft_token_num: int = 0
        spec_verify_ct: int = 0
        completion_token_num: int = 0

    @dataclass
    class PrefixCacheInfo:
        cached_tokens: int = 0
        total_prompt_tokens: int = 0

    class Status(Enum):
        PENDING = "pending"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        ABORTED = "aborted"
        FAILED = "failed"

    group_index: int | None = None
    index: int | None = None
    rollout_id: int | None = None
    prompt: str | list[dict[str, str]] = ""
    tokens: list[int] = field(default_factory=list)
    multimodal_inputs: dict[str, Any] | None = None
    multimodal_train_inputs: dict[str, Any] | None = None
    multimodal_train_input_id: str | None = None
    apply_chat_template_kwargs: dict = field(default_factory=dict)
    response: str = ""
    response_length: int = 0
    label: str | None = None
    reward: float | dict[str, Any] | None = None
    loss_mask: list[int] | None = None
    weight_versions: list[str] = field(default_factory=list)
    rollout_log_probs: list[float] | None = None
    rollout_top_p_token_ids: list[int] | None = None
    rollout_top_p_token_offsets: list[int] | None = None
    rollout_routed_experts: list[list[int]] | None = None
    remove_sample: bool = False
    teacher_log_probs: list[float] | None = None
    status: Status = Status.PENDING
    metadata: dict = field(default_factory=dict)
    generate_function_path: str | None = None
    custom_rm_path: str | None = None
    train_metadata: dict | None = None
    session_id: str | None = None
    non_generation_time: float = 0.0
    spec_info: SpecInfo = field(default_factory=SpecInfo)
    prefix_cache_info: PrefixCacheInfo = field(default_factory=PrefixCacheInfo)


def test_the_stand_in_has_slimes_fields():
    assert [f.name for f in fields(Sample)] == [
        "group_index", "index", "rollout_id", "prompt", "tokens", "multimodal_inputs",
        "multimodal_train_inputs", "multimodal_train_input_id", "apply_chat_template_kwargs",
        "response", "response_length", "label", "reward", "loss_mask", "weight_versions",
        "rollout_log_probs", "rollout_top_p_token_ids", "rollout_top_p_token_offsets",
        "rollout_routed_experts", "remove_sample", "teacher_log_probs", "status", "metadata",
        "generate_function_path", "custom_rm_path", "train_metadata", "session_id",
        "non_generation_time", "spec_info", "prefix_cache_info",
    ]  # fmt: skip


def slime_parser() -> argparse.ArgumentParser:
    """slime's reward-model flags (``add_reward_model_arguments``) and the data flags a
    reward reads (``--input-key``, ``--label-key``, ``--metadata-key``,
    ``--apply-chat-template``), with slime's names, types and defaults."""
    parser = argparse.ArgumentParser(prog="train.py")
    parser.add_argument("--input-key", type=str, default="input")
    parser.add_argument("--label-key", type=str, default=None)
    parser.add_argument("--metadata-key", type=str, default="metadata")
    parser.add_argument("--apply-chat-template", action="store_true", default=False)
    parser.add_argument("--rm-type", type=str, default=None)
    parser.add_argument("--reward-key", type=str, default=None)
    parser.add_argument("--eval-reward-key", type=str, default=None)
    parser.add_argument("--group-rm", action="store_true", default=False)
    parser.add_argument("--rm-url", type=str, default=None)
    parser.add_argument("--custom-rm-path", type=str, default=None)
    return parser


def readme_args(server_url: str | None = None) -> list[argparse.Namespace]:
    """Each ``python train.py ...`` line of the guide's slime snippet, parsed by slime's flags
    (the remote one pointed at the test server's port)."""
    snippet = readme_snippet("# slime: reward")
    commands = []
    for line in snippet.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] == ["python", "train.py"]:
            assert words[2] == "...", line
            args = slime_parser().parse_args(words[3:])
            if args.rm_url and server_url:
                assert args.rm_url.startswith("http://127.0.0.1:8080/"), args.rm_url
                args.rm_url = args.rm_url.replace("http://127.0.0.1:8080", server_url)
            commands.append(args)
    assert [a.custom_rm_path or a.rm_type for a in commands] == [
        "evaluator.reward.frameworks.slime.rm",
        "remote_rm",
    ], snippet
    assert all(a.label_key == "label" and a.reward_key is None for a in commands)
    assert "--group-rm" in snippet
    return commands


def load_function(path: str):
    """slime's ``load_function``: a dotted path, the module imported, the attribute taken."""
    module_path, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module_path), attr)


async def slime_rm(args, sample: Sample) -> None:
    """``generate_and_rm``'s per-sample reward with ``--custom-rm-path`` (``async_rm``)."""
    if sample.reward is None:
        sample.reward = await load_function(args.custom_rm_path)(args, sample)


async def slime_group_rm(args, group: list[Sample]) -> None:
    """``generate_and_rm_group``'s reward with ``--group-rm`` (``batched_async_rm`` with
    ``--custom-rm-path``: the same function, given the list)."""
    rewards = await load_function(args.custom_rm_path)(args, group)
    for sample, reward in zip(group, rewards, strict=False):
        sample.reward = reward


def slime_session() -> aiohttp.ClientSession:
    """``remote_rm``'s shared session."""
    connector = aiohttp.TCPConnector(limit=64, enable_cleanup_closed=True)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120))


async def slime_remote_rm(session: aiohttp.ClientSession, args, sample: Sample) -> Any:
    """``remote_rm``'s request (one try): the decoded answer is the reward."""
    payload = {"prompt": sample.prompt, "response": sample.response, "label": sample.label}
    async with session.post(args.rm_url, json=payload) as resp:
        resp.raise_for_status()
        return await resp.json()


def make_samples(cases, group_size: int = 8) -> list[Sample]:
    """Samples as slime's rollout leaves them: a prompt per group, the dataset's label,
    the generated response, status COMPLETED."""
    samples = []
    for index, (label, response, _) in enumerate(cases):
        prompt = (
            f"<|im_start|>user\nProblem {index // group_size}<|im_end|>\n<|im_start|>assistant\n"
        )
        samples.append(
            Sample(
                group_index=index // group_size,
                index=index,
                prompt=prompt,
                response=response,
                response_length=len(response.split()),
                label=label,
                status=Sample.Status.COMPLETED,
                metadata={},
            )
        )
    return samples


async def remote_rewards(args, samples: list[Sample]) -> list[Any]:
    async with slime_session() as session:
        return await asyncio.gather(*(slime_remote_rm(session, args, s) for s in samples))


# --- right and wrong answers, each way slime calls ---------------------------------------------


def test_custom_rm_per_sample():
    args, _ = readme_args()
    samples = make_samples(CASES)

    async def run():
        await asyncio.gather(*(slime_rm(args, sample) for sample in samples))

    asyncio.run(run())
    assert [s.reward for s in samples] == [c[2] for c in CASES]
    assert all(type(s.reward) is float for s in samples)
    assert shared_reward().last_verdicts  # the shared warm pool graded them


def test_custom_rm_with_group_rm():
    args, _ = readme_args()
    args.group_rm = True
    samples = make_samples(CASES, group_size=4)
    groups = [samples[:4], samples[4:]]

    async def run():
        await asyncio.gather(*(slime_group_rm(args, group) for group in groups))

    asyncio.run(run())
    assert [s.reward for s in samples] == [c[2] for c in CASES]
    verdicts = shared_reward().last_verdicts
    assert len(verdicts) == 4 and set(verdicts) <= {"AC", "WA", "NO_CODE", "TLE"}
    # the explicit group form, as --custom-rm-path evaluator.reward.frameworks.slime.batched_rm
    args.custom_rm_path = "evaluator.reward.frameworks.slime.batched_rm"
    for sample in samples:
        sample.reward = None
    asyncio.run(slime_group_rm(args, samples))
    assert [s.reward for s in samples] == [c[2] for c in CASES]


def test_remote_rm(server):
    _, args = readme_args(server.url)
    samples = make_samples(CASES)
    rewards = asyncio.run(remote_rewards(args, samples))
    assert rewards == [c[2] for c in CASES]
    assert all(type(r) is float for r in rewards)  # a bare JSON number: slime's reward as is
    # the prompt as a list of messages (no chat template) is accepted and not used
    samples[0].prompt = [{"role": "user", "content": "Add two numbers."}]
    assert asyncio.run(remote_rewards(args, samples[:1])) == [1.0]


# --- a label that cannot be read ------------------------------------------------------------------


def test_a_malformed_label_raises_naming_the_sample():
    args, _ = readme_args()
    [good, bad] = make_samples([CASES[0], ("{'input_output': oops}", fenced(ADD), None)])
    with pytest.raises(ValueError, match=r"sample\.label \(index 1\): not valid JSON"):
        asyncio.run(slime_rm(args, bad))
    with pytest.raises(ValueError, match=r"sample\.label \(index 1, group position 1\)"):
        asyncio.run(slime_group_rm(args, [good, bad]))
    bad.label = None  # no --label-key
    with pytest.raises(ValueError, match=r"sample\.label \(index 1\): missing"):
        asyncio.run(slime_rm(args, bad))
    assert good.reward is None and bad.reward is None  # nothing scored silently


def test_a_malformed_label_can_be_skipped_as_zero(monkeypatch):
    monkeypatch.setenv("MICROCODER_ON_BAD_PROBLEM", "skip")
    args, _ = readme_args()
    samples = make_samples([CASES[0], ('{"tests": []}', fenced(ADD), None)])
    asyncio.run(slime_group_rm(args, samples))
    assert [s.reward for s in samples] == [1.0, 0.0]
    assert shared_reward().last_verdicts == ["AC", "ERROR"]


def test_a_malformed_label_by_url_is_a_400_naming_it(server):
    _, args = readme_args(server.url)
    [sample] = make_samples([(json.dumps({"no": "tests"}), fenced(ADD), None)])
    with pytest.raises(aiohttp.ClientResponseError) as raised:
        asyncio.run(remote_rewards(args, [sample]))
    assert raised.value.status == 400  # slime retries, then stops the rollout with this

    async def post(body):
        async with slime_session() as session, session.post(args.rm_url, json=body) as resp:
            return resp.status, await resp.json()

    status, answer = asyncio.run(
        post({"prompt": "p", "response": fenced(ADD), "label": sample.label})
    )
    assert status == 400 and answer["error"].startswith("field 'label': not a known problem")
    for body, named in [
        ({"prompt": "p", "response": fenced(ADD), "label": None}, "field 'label': missing"),
        ({"prompt": "p", "label": json.dumps(TACO_STDIN)}, "field 'response': missing"),
        ({"prompt": "p", "response": 3, "label": TACO_STDIN}, "field 'response': expected"),
        ({"prompt": "p", "response": "", "label": "[]"}, "field 'label': "),
    ]:
        status, answer = asyncio.run(post(body))
        assert status == 400 and answer["error"].startswith(named), answer
    assert "field 'label'" in server.log.read_text()


# --- a batch of 256 -----------------------------------------------------------------------------


def batch_of_256() -> tuple[list[Sample], list[float]]:
    """256 samples, 32 groups of 8: every case, one looping program (its 1 s costs once)."""
    quick = CASES[:-1]
    cases = [CASES[-1]] + [quick[i % len(quick)] for i in range(255)]
    return make_samples(cases), [c[2] for c in cases]


def test_a_batch_of_256_per_sample_and_by_group():
    args, _ = readme_args()
    samples, expected = batch_of_256()

    async def per_sample():
        await asyncio.gather(*(slime_rm(args, sample) for sample in samples))

    asyncio.run(per_sample())
    assert [s.reward for s in samples] == expected
    args.group_rm = True
    samples, _ = batch_of_256()
    groups = [samples[i : i + 8] for i in range(0, 256, 8)]

    async def by_group():
        await asyncio.gather(*(slime_group_rm(args, group) for group in groups))

    asyncio.run(by_group())
    assert [s.reward for s in samples] == expected


def test_a_batch_of_256_by_url(server):
    _, args = readme_args(server.url)
    samples, expected = batch_of_256()
    assert asyncio.run(remote_rewards(args, samples)) == expected
