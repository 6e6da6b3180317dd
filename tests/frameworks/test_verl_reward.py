"""The verl adapter driven by verl 0.9.1's own reward classes, on a ``DataProto`` batch laid
out as verl's datasets and rollouts lay it out (prompt left-padded, response right-padded,
``data_source``, ``reward_model.ground_truth`` and ``extra_info`` per sample).

* the reward loop, as verl's trainer uses it: ``RewardLoopWorker`` (in this process, where
  the shared pool can be watched) and ``RewardLoopManager`` (its Ray actors, as in training),
  configured from verl's ``reward.yaml`` with the guide's overrides, awaiting
  ``verl_compute_score_async`` through its ``NaiveRewardManager``;
* the ``BatchRewardManager`` selected by verl's legacy reward config with the guide's overrides
  (migrated by verl's own ``migrate_legacy_reward_impl``), calling
  ``verl_compute_score_batch``.

Each score equals the direct call's; a looping completion costs its own time limit and the
rest of the batch is not held behind it; the async function keeps at most
``$MICROCODER_VERL_MAX_CONCURRENT`` solutions in the pool at once.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
import verl
from omegaconf import OmegaConf
from verl import DataProto

from evaluator.reward import (
    VERL_MAX_CONCURRENT_ENV,
    ProblemError,
    problem_from_ground_truth,
    shared_reward,
    verl_compute_score,
    verl_compute_score_async,
    verl_compute_score_batch,
)
from tests.conftest import local_ray, make_tokenizer
from tests.frameworks.readme import overrides, readme_snippet

VERL_CONFIG = Path(verl.__file__).parent / "trainer" / "config"

# Ground truths in the forms verl's code datasets use, plus our optional "time_limit" (1 s: the
# looping completion costs 1 s of CPU).
STDIN_IO = {"inputs": ["1 2\n", "5 7\n"], "outputs": ["3\n", "12\n"], "time_limit": 1}
CALL_IO = {"fn_name": "add", "inputs": ["1\n2", "5\n7"], "outputs": ["3", "12"], "time_limit": 1}
LCB_RECORD = {
    "question_id": "lcb-double",
    "public_test_cases": json.dumps([{"input": "3\n", "output": "6\n", "testtype": "stdin"}]),
    "private_test_cases": json.dumps([{"input": "10\n", "output": "20\n", "testtype": "stdin"}]),
    "metadata": json.dumps({}),
    "time_limit": 1,
}
SUM = "print(sum(map(int, input().split())))"
ADD = "class Solution:\n    def add(self, a, b):\n        return a + b"
LOOP = "while True:\n    pass"


def fenced(code: str) -> str:
    return f"Here you go.\n```python\n{code}\n```"


# (data_source, response, ground_truth as verl stores it: JSON text or a dict)
SAMPLES = [
    ("codecontests", fenced(LOOP), json.dumps(STDIN_IO)),  # first in, must not hold the rest
    ("codecontests", fenced(SUM), json.dumps(STDIN_IO)),
    ("codecontests", fenced("print(0)"), json.dumps(STDIN_IO)),
    ("apps", fenced(ADD), json.dumps(CALL_IO)),
    ("apps", fenced(ADD.replace("a + b", "a - b")), json.dumps(CALL_IO)),
    ("livecodebench", fenced("print(int(input()) * 2)"), LCB_RECORD),
    ("livecodebench", "no code at all", LCB_RECORD),
]
EXPECTED = [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
EXPECTED_VERDICTS = ["TLE", "AC", "WA", "AC", "WA", "AC", "NO_CODE"]
# A dataset's defect: raises by default; scores 0.0 (verdict ERROR) with on_bad_problem=skip
BROKEN = ("codecontests", fenced(SUM), json.dumps({"inputs": ["1"], "outputs": []}))


@pytest.fixture(scope="module")
def tokenizer():
    return make_tokenizer()


def make_batch(tokenizer, samples=SAMPLES, prompt_length=32, response_length=256) -> DataProto:
    """A rollout batch as verl's trainer hands it to reward computation: ``prompts``
    (left-padded), ``responses`` (right-padded), ``input_ids``, ``attention_mask`` and
    ``position_ids`` over both, and the dataset's non-tensor fields."""
    pad = tokenizer.pad_token_id
    prompts, responses, masks = [], [], []
    for index, (_, response, _) in enumerate(samples):
        prompt_ids = tokenizer.encode(f"Problem {index}: solve it.")
        response_ids = tokenizer.encode(response) + [tokenizer.eos_token_id]
        assert len(prompt_ids) <= prompt_length and len(response_ids) <= response_length
        left, right = prompt_length - len(prompt_ids), response_length - len(response_ids)
        prompts.append([pad] * left + prompt_ids)
        responses.append(response_ids + [pad] * right)
        masks.append([0] * left + [1] * len(prompt_ids) + [1] * len(response_ids) + [0] * right)
    prompts, responses = torch.tensor(prompts), torch.tensor(responses)
    attention_mask = torch.tensor(masks)
    position_ids = (attention_mask.cumsum(dim=1) - 1).clamp(min=0)
    return DataProto.from_dict(
        tensors={
            "prompts": prompts,
            "responses": responses,
            "input_ids": torch.cat([prompts, responses], dim=1),
            "attention_mask": attention_mask,
            "position_ids": position_ids,
        },
        non_tensors={
            "data_source": np.array([s[0] for s in samples], dtype=object),
            "reward_model": np.array(
                [{"ground_truth": s[2], "style": "rule"} for s in samples], dtype=object
            ),
            "extra_info": np.array(
                [{"split": "train", "index": i} for i in range(len(samples))], dtype=object
            ),
        },
    )


def scores_at_last_token(batch: DataProto, tensor: torch.Tensor) -> list[float]:
    """verl puts each sample's score on its last response token; read them back."""
    prompt_length = batch.batch["prompts"].shape[1]
    lengths = batch.batch["attention_mask"][:, prompt_length:].sum(dim=1)
    assert int((tensor != 0).sum()) <= len(batch)  # nothing anywhere else
    return [float(tensor[i, lengths[i] - 1]) for i in range(len(batch))]


def direct_scores(tokenizer, samples=SAMPLES) -> list[float]:
    """``verl_compute_score`` called directly on what verl decodes from the batch."""
    decoded = [tokenizer.decode(tokenizer.encode(s[1]), skip_special_tokens=True) for s in samples]
    return [verl_compute_score(s[0], text, s[2]) for s, text in zip(samples, decoded, strict=True)]


def reward_loop_config(model_dir, num_workers: int = 1):
    """verl's own ``reward.yaml`` with the guide's reward-loop overrides, plus what
    ``main_ppo``'s other arguments give the reward loop (the model's tokenizer path)."""
    snippet = overrides(readme_snippet("# verl: reward loop"))
    assert snippet == [
        "reward.custom_reward_function.path=pkg://evaluator.reward",
        "reward.custom_reward_function.name=verl_compute_score_async",
    ]
    config = OmegaConf.create(
        {
            "reward": OmegaConf.load(VERL_CONFIG / "reward" / "reward.yaml"),
            "actor_rollout_ref": {"model": {"path": str(model_dir), "tokenizer_path": None}},
        }
    )
    config.reward.num_workers = num_workers
    return OmegaConf.merge(config, OmegaConf.from_dotlist(snippet))


# --- the ground truth forms -----------------------------------------------------------------


def test_verl_forms_score_as_verls_own_prime_code_scorer(tokenizer):
    """verl's ``prime_code`` scorer (what verl runs for ``codecontests``/``apps``, unsandboxed)
    and ours agree on both layouts of its ``{"inputs", "outputs", "fn_name"}`` JSON."""
    from verl.utils.reward_score import default_compute_score

    cases = [
        ("codecontests", fenced(SUM), STDIN_IO),
        ("codecontests", fenced("print(0)"), STDIN_IO),
        ("apps", fenced(ADD), CALL_IO),
        ("apps", fenced(ADD.replace("a + b", "a * b")), CALL_IO),
    ]
    for source, response, gt in cases:
        gt_text = json.dumps({k: v for k, v in gt.items() if k != "time_limit"})
        theirs = default_compute_score(source, response, gt_text)
        assert verl_compute_score(source, response, gt_text) == float(theirs == 1.0), response
    call = problem_from_ground_truth(CALL_IO)
    assert [(t.input, t.output) for t in call.tests] == [("1\n2", "3"), ("5\n7", "12")]
    assert call.time_limit == 1


# --- the reward loop ----------------------------------------------------------------------------


@pytest.fixture
def watched_pool(monkeypatch):
    """The shared reward's grader, counting the solutions in its pool at any moment and
    recording the order in which calls finish."""
    monkeypatch.setenv(VERL_MAX_CONCURRENT_ENV, "2")
    reward = shared_reward()
    grader = reward.grader
    lock = threading.Lock()
    state = {"now": 0, "peak": 0, "finished": []}
    submit, finish = grader.submit, reward._finish

    def counting_submit(problem, code, language=None):
        future = submit(problem, code, language)
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])

        def done(_):
            with lock:
                state["now"] -= 1

        future.add_done_callback(done)
        return future

    def recording_finish(pending, outcomes, started, log_metric):
        details = finish(pending, outcomes, started, log_metric)
        with lock:
            state["finished"].extend(details.verdicts)
        return details

    monkeypatch.setattr(grader, "submit", counting_submit)
    monkeypatch.setattr(reward, "_finish", recording_finish)
    return reward, state


def test_reward_loop_worker_awaits_the_async_score(tokenizer, tiny_model_dir, watched_pool):
    """verl's ``RewardLoopWorker`` (its trainer's reward path, minus the Ray actor around it)
    with the guide's config: it picks up ``verl_compute_score_async`` as an async score and
    awaits one task per sample. Scores equal the direct calls; the looping completion,
    submitted first, finishes last (the batch went on without it); never more than 2
    solutions (``$MICROCODER_VERL_MAX_CONCURRENT``) are in the pool, all from one pool."""
    from verl.experimental.reward_loop import RewardLoopWorker

    reward, state = watched_pool
    grader = reward.grader
    worker = RewardLoopWorker(reward_loop_config(tiny_model_dir))
    manager = worker.reward_manager
    assert type(manager).__name__ == "NaiveRewardManager" and manager.is_async_reward_score
    assert inspect.iscoroutinefunction(verl_compute_score_async)

    batch = make_batch(tokenizer)
    outputs = worker.loop.run_until_complete(worker.compute_score_batch(batch))

    assert [out["reward_score"] for out in outputs] == EXPECTED
    assert state["finished"][-1] == "TLE"  # submitted first, finished last
    assert sorted(state["finished"]) == sorted(EXPECTED_VERDICTS)
    assert state["peak"] == 2
    assert reward.grader is grader  # the sync and async functions share one pool
    assert direct_scores(tokenizer) == EXPECTED
    assert reward.grader is grader


def test_async_score_never_blocks_the_event_loop(watched_pool):
    """While the looping program runs into its time limit, the event loop keeps ticking."""
    reward, state = watched_pool

    async def main():
        ticks = 0
        task = asyncio.ensure_future(verl_compute_score_async(*SAMPLES[0]))
        while not task.done():
            await asyncio.sleep(0.01)
            ticks += 1
        return await task, ticks

    score, ticks = asyncio.run(main())
    assert score == 0.0 and reward.last_verdicts == ["TLE"]
    assert ticks >= 10


def test_reward_loop_manager_with_ray_actors(tokenizer, tiny_model_dir):
    """verl's ``RewardLoopManager``, as its trainer builds it: Ray actors running
    ``RewardLoopWorker`` (each with its own shared pool, started in the actor) score the
    batch; ``rm_scores`` carries the direct calls' scores at each response's last token."""
    from verl.experimental.reward_loop import RewardLoopManager

    with local_ray(2):
        manager = RewardLoopManager(reward_loop_config(tiny_model_dir, num_workers=2))
        batch = make_batch(tokenizer)
        scored = manager.compute_rm_score(batch)
    assert scores_at_last_token(batch, scored.batch["rm_scores"]) == EXPECTED
    assert list(scored.non_tensor_batch["acc"]) == EXPECTED
    assert direct_scores(tokenizer) == EXPECTED


# --- the batch reward manager ------------------------------------------------------------------


def test_batch_reward_manager(tokenizer, watched_pool):
    """The guide's batch-manager overrides on verl's legacy reward config, migrated by verl's
    ``migrate_legacy_reward_impl`` and loaded by its ``get_custom_reward_fn``, select
    ``BatchRewardManager`` over ``verl_compute_score_batch``: one call grades the whole batch
    in parallel, the looping completion included, and the scores equal the direct calls."""
    from verl.experimental.reward_loop import migrate_legacy_reward_impl
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import BatchRewardManager, get_reward_manager_cls

    reward, state = watched_pool
    snippet = overrides(readme_snippet("# verl: batch reward manager"))
    assert snippet == [
        "reward_model.reward_manager=batch",
        "custom_reward_function.path=pkg://evaluator.reward",
        "custom_reward_function.name=verl_compute_score_batch",
    ]
    config = OmegaConf.merge(
        OmegaConf.load(VERL_CONFIG / "legacy_reward_impl.yaml"),
        {"reward": OmegaConf.load(VERL_CONFIG / "reward" / "reward.yaml")},
        OmegaConf.from_dotlist(snippet),
    )
    config = migrate_legacy_reward_impl(config)
    manager_cls = get_reward_manager_cls(config.reward.reward_manager.name)
    assert manager_cls is BatchRewardManager
    manager = manager_cls(tokenizer, 0, get_custom_reward_fn(config), reward_fn_key="data_source")

    batch = make_batch(tokenizer)
    result = manager(batch, return_dict=True)

    assert scores_at_last_token(batch, result["reward_tensor"]) == EXPECTED
    assert batch.batch["acc"].tolist() == EXPECTED
    assert reward.last_verdicts == EXPECTED_VERDICTS  # one call for the whole batch
    assert state["peak"] >= 2  # graded in parallel
    assert direct_scores(tokenizer) == EXPECTED
    assert verl_compute_score_batch(*zip(*SAMPLES, strict=True)) == EXPECTED


def test_a_broken_ground_truth_raises_unless_reward_kwargs_say_skip(tokenizer, watched_pool):
    """A ground truth that cannot be read is a dataset's defect: verl's call raises naming the
    field (no silent 0.0); verl's ``reward_kwargs`` can ask for a 0.0 and a logged ERROR."""
    from verl.experimental.reward_loop import migrate_legacy_reward_impl
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import get_reward_manager_cls

    with pytest.raises(ProblemError, match=r"field 'ground_truth': 1 inputs but 0 outputs"):
        verl_compute_score(*BROKEN)
    reward, _ = watched_pool
    skip = "custom_reward_function.reward_kwargs.on_bad_problem=skip"
    snippet = overrides(readme_snippet("# verl: batch reward manager")) + [skip]
    config = OmegaConf.merge(
        OmegaConf.load(VERL_CONFIG / "legacy_reward_impl.yaml"),
        {"reward": OmegaConf.load(VERL_CONFIG / "reward" / "reward.yaml")},
        OmegaConf.from_dotlist(snippet),
    )
    config = migrate_legacy_reward_impl(config)
    manager_cls = get_reward_manager_cls(config.reward.reward_manager.name)
    manager = manager_cls(tokenizer, 0, get_custom_reward_fn(config), reward_fn_key="data_source")
    batch = make_batch(tokenizer, samples=[SAMPLES[1], BROKEN])
    result = manager(batch, return_dict=True)
    assert scores_at_last_token(batch, result["reward_tensor"]) == [1.0, 0.0]
    assert reward.last_verdicts == ["AC", "ERROR"]


def test_a_missing_solution_raises():
    """A solution that is not the decoded text (None, token ids) raises in every form, never
    a 0.0 scored as the model's empty answer (a missing ground truth raises as above)."""
    truth = json.dumps({"inputs": ["1"], "outputs": ["3"]})
    assert verl_compute_score("x", "```python\nprint(3)\n```", truth) == 1.0
    for solution in (None, [101, 102]):
        with pytest.raises(TypeError, match=r"solution_strs\[0\]: .*decoded response"):
            verl_compute_score("x", solution, truth)
        with pytest.raises(TypeError, match="decoded response"):
            verl_compute_score_batch(
                ["x", "x"], ["```python\nprint(3)\n```", solution], [truth] * 2
            )
        with pytest.raises(TypeError, match="decoded response"):
            asyncio.run(verl_compute_score_async("x", solution, truth))


def test_prime_reward_managers_fresh_process_pool_after_the_parent_graded():
    """verl's ``PrimeRewardManager`` scores each batch in a fresh fork ``ProcessPoolExecutor``
    (``run_reward_scoring``) calling ``verl_compute_score`` once per sample. The trainer
    process has graded before (its shared reward's pool is warm), so every worker is forked
    with a copy of that pool: each must grade with servers of its own. Before, every sample
    waited out verl's 300 s timeout and scored 0."""
    from verl.workers.reward_manager.prime import run_reward_scoring

    cases = [sample for sample in SAMPLES if LOOP not in sample[1]]
    sources, responses, truths = (list(column) for column in zip(*cases, strict=True))
    direct = verl_compute_score_batch(sources, responses, truths)  # the parent's pool, warm
    assert shared_reward().grader is not None and 1.0 in direct and 0.0 in direct
    for _ in range(2):  # two batches: two fresh executors
        scores = _with_deadline(
            60, run_reward_scoring, verl_compute_score, responses, truths, sources, None, 3
        )
        assert scores == direct
    assert verl_compute_score_batch(sources, responses, truths) == direct  # the parent goes on


def _with_deadline(seconds: float, function, *args):
    """``function(*args)`` in a thread, failing the test (not hanging it) past ``seconds``."""
    from concurrent.futures import ThreadPoolExecutor

    runner = ThreadPoolExecutor(1)
    try:
        return runner.submit(function, *args).result(timeout=seconds)
    finally:
        runner.shutdown(wait=False)
