"""The SkyRL adapter driven by skyrl-gym 0.4.0's own code: its registry (the environment is
registered when ``evaluator.reward.frameworks.skyrl`` is imported), ``make`` with the ``env_config`` and
``extras`` SkyRL's ``SkyRLGymGenerator`` passes (the dataset row without ``prompt`` and
``env_class``, plus ``max_turns``), ``init`` and ``step`` as the generator calls them (in its
environment executor's threads for the batch of 256), and skyrl-gym's metric aggregation.

SkyRL's trainer itself (``skyrl`` 0.4.0) needs Python 3.12 and GPUs: the guide's override is
read as SkyRL's entrypoint reads it, and :func:`main` runs against stand-ins for the
trainer's entry points (their names and calls as in ``skyrl/train/entrypoints/main_base.py``
and ``examples/train/multiply/main_multiply.py``, SkyRL a9564572): the environment is
registered in the task that makes the environments.
"""

from __future__ import annotations

import asyncio
import json
import sys
import types
from concurrent.futures import ThreadPoolExecutor

import pytest
import skyrl_gym
from skyrl_gym.metrics import aggregate_for_environment

import evaluator.reward.frameworks.skyrl as skyrl_adapter
from evaluator.reward import ProblemError, verl_compute_score
from evaluator.reward.frameworks.skyrl import ENV_ID, CodeEnv
from tests.frameworks.processes import assert_closed_at_exit, run_python
from tests.frameworks.readme import overrides, readme_snippet
from tests.frameworks.rows import APPEND, LOOP, fenced, solution
from tests.frameworks.rows import LCB_APPEND as LCB
from tests.frameworks.rows import TACO_CALL as MULTIPLY
from tests.frameworks.rows import TACO_STDIN as APLUSB

# SkyRL's own LiveCodeBench rows: the ground truth is JSON text of a list of tests
SKYRL_LCB = json.dumps(
    [
        {"input": "3\n", "output": "6\n", "testtype": "stdin"},
        {"input": "10\n", "output": "20\n", "testtype": "stdin"},
    ]
)


def row(ground_truth, name: str) -> dict:
    """A SkyRL dataset row (``skyrl/train/dataset/dataset.py``'s columns)."""
    return {
        "prompt": [{"role": "user", "content": f"Solve {name}."}],
        "env_class": ENV_ID,
        "reward_spec": {"method": "rule", "ground_truth": ground_truth},
        "extra_info": {"name": name},
        "data_source": name,
    }


# (row, response, verdict): ground truths as JSON text (TACO's input_output, SkyRL's lists)
# and as an object (a LiveCodeBench row)
CASES = [
    (row(APLUSB["input_output"], "taco"), fenced(solution(APLUSB)), "AC"),
    (row(APLUSB["input_output"], "taco"), fenced("print(1)"), "WA"),
    (row(APLUSB["input_output"], "taco"), fenced(LOOP), "TLE"),
    (row(MULTIPLY["input_output"], "taco"), fenced(solution(MULTIPLY)), "AC"),
    (row(MULTIPLY["input_output"], "taco"), "I give up.", "NO_CODE"),
    (row(LCB, "lcb"), fenced(APPEND), "AC"),
    (row(LCB, "lcb"), fenced(APPEND.replace("+ [x]", "")), "WA"),
    (row(SKYRL_LCB, "skyrl-lcb"), fenced("print(int(input()) * 2)") + "<|im_end|>", "AC"),
    (row(SKYRL_LCB, "skyrl-lcb"), fenced("print(int(input()) + 3)"), "WA"),
]


def episode(dataset_row: dict, response: str):
    """One episode as SkyRL's generator runs it: make, init, step; then the metrics."""
    extras = {k: v for k, v in dataset_row.items() if k not in ("prompt", "env_class")}
    extras["max_turns"] = 1
    env = skyrl_gym.make(dataset_row["env_class"], env_config={}, extras=extras)
    chat, _ = env.init([dict(m) for m in dataset_row["prompt"]])
    assert chat == dataset_row["prompt"]
    output = env.step(response)
    metrics = env.get_metrics()
    env.close()
    return env, output, metrics


def test_rows_of_different_sources_through_skyrl_gym():
    """Each response's reward, as skyrl-gym's ``make``/``init``/``step`` give it, is the
    direct call's; the episode ends; the verdict is in the step's metadata and metrics, which
    skyrl-gym's aggregation averages."""
    assert skyrl_gym.registry[ENV_ID].entry_point == "evaluator.reward.frameworks.skyrl:CodeEnv"
    all_metrics = []
    for dataset_row, response, verdict in CASES:
        env, output, metrics = episode(dataset_row, response)
        assert isinstance(env, CodeEnv)
        assert output["done"] is True and output["observations"] == []
        assert output["reward"] == float(verdict == "AC"), (response, output)
        assert output["metadata"]["verdict"] == verdict
        assert metrics[f"verdict_{verdict}"] == 1.0 and sum(metrics.values()) == 1.0
        ground_truth = dataset_row["reward_spec"]["ground_truth"]
        direct = verl_compute_score("skyrl", response.removesuffix("<|im_end|>"), ground_truth)
        assert output["reward"] == direct
        all_metrics.append(metrics)
    aggregated = aggregate_for_environment(ENV_ID, all_metrics)
    assert aggregated["verdict_AC"] == pytest.approx(4 / 9)
    assert aggregated["verdict_TLE"] == pytest.approx(1 / 9)


def test_malformed_rows_fail_when_the_environment_is_made(monkeypatch):
    """A row without a ground truth, or whose ground truth cannot be read, fails ``make``
    naming ``extras["reward_spec"]["ground_truth"]`` and the field; with
    ``MICROCODER_ON_BAD_PROBLEM=skip`` it scores 0.0, verdict ERROR."""
    broken = dict(APLUSB, input_output='{"inputs": ["1 2\\n"], "outputs": []}')
    cases = [
        ({"data_source": "x"}, 'extras["reward_spec"]: missing'),
        ({"reward_spec": {"method": "rule"}}, 'extras["reward_spec"]["ground_truth"]: missing'),
        (row("{not json", "x"), 'extras["reward_spec"]["ground_truth"]: not valid JSON'),
        (row({"x": 1}, "x"), 'extras["reward_spec"]["ground_truth"]: not a known problem'),
        (row(broken, "x"), "TACO record: field 'input_output': 1 inputs but 0 outputs"),
    ]
    for extras, message in cases:
        extras = {k: v for k, v in extras.items() if k not in ("prompt", "env_class")}
        with pytest.raises(ProblemError) as raised:
            skyrl_gym.make(ENV_ID, env_config={}, extras=extras)
        assert message in str(raised.value), str(raised.value)

    monkeypatch.setenv("MICROCODER_ON_BAD_PROBLEM", "skip")
    for extras in ({"data_source": "x"}, row(broken, "x")):
        extras = {k: v for k, v in extras.items() if k not in ("prompt", "env_class")}
        env = skyrl_gym.make(ENV_ID, env_config={}, extras=extras)
        output = env.step(fenced(solution(APLUSB)))
        assert output["reward"] == 0.0 and output["metadata"]["verdict"] == "ERROR"
        assert env.get_metrics()["verdict_ERROR"] == 1.0


def test_a_missing_response_raises():
    """A step without the model's text (None, token ids) is the caller's mistake: a
    TypeError, never a 0.0 scored as the model's empty answer."""
    extras = {k: v for k, v in row(SKYRL_LCB, "x").items() if k not in ("prompt", "env_class")}
    env = skyrl_gym.make(ENV_ID, env_config={}, extras=extras)
    for action in (None, [101, 102]):
        with pytest.raises(TypeError, match="takes the model's response text"):
            env.step(action)
    assert env.step(fenced("print(int(input()) * 2)"))["reward"] == 1.0


def test_256_episodes_in_the_generators_executor():
    """256 episodes stepped as SkyRL's generator steps them with ``max_env_workers``: each
    ``init`` and ``step`` in its environment executor's threads, awaited by one event loop;
    all graded in the shared pool, every reward right."""
    batch = [
        (row(APLUSB["input_output"], "taco"), fenced(solution(APLUSB)), 1.0),
        (row(APLUSB["input_output"], "taco"), fenced("print(0)"), 0.0),
        (row(LCB, "lcb"), fenced(APPEND), 1.0),
        (row(SKYRL_LCB, "skyrl-lcb"), fenced("print(0)"), 0.0),
    ] * 64

    async def run_all():
        loop = asyncio.get_running_loop()
        with ThreadPoolExecutor(max_workers=32) as executor:  # SkyRL's default max_env_workers

            async def one(dataset_row, response):
                extras = {k: v for k, v in dataset_row.items() if k not in ("prompt", "env_class")}
                env = skyrl_gym.make(ENV_ID, env_config={}, extras=extras)
                await loop.run_in_executor(executor, env.init, dataset_row["prompt"])
                output = await loop.run_in_executor(executor, env.step, response)
                return output["reward"], env.get_metrics()

            return await asyncio.gather(*(one(r, text) for r, text, _ in batch))

    results = asyncio.run(run_all())
    assert [reward for reward, _ in results] == [expected for _, _, expected in batch]
    aggregated = aggregate_for_environment(ENV_ID, [metrics for _, metrics in results])
    assert aggregated["verdict_AC"] == 0.5


# --- SkyRL's entrypoint ----------------------------------------------------------------------


def test_readme_override_runs_skyrls_training_with_the_environment_registered(monkeypatch):
    """The guide's override, read as SkyRL's ``main_base.main`` reads it, names this module,
    whose ``main`` parses the other overrides as SkyRL's entrypoint does (with
    ``environment.env_class`` defaulting to ours) and runs training in a Ray task that
    registers the environment before SkyRL makes any (SkyRL's trainer is a stand-in here)."""
    import importlib

    import ray
    from ray import cloudpickle

    snippet = overrides(readme_snippet("# skyrl: environment"))
    assert snippet == [
        "trainer.override_entrypoint=evaluator.reward.frameworks.skyrl",
        "environment.env_class=microcoder",
    ]
    entry = snippet[0].split("=", 1)[1]  # as main_base.main finds and imports it
    assert importlib.import_module(entry) is skyrl_adapter

    seen: dict = {}

    class Config:
        @staticmethod
        def from_cli_overrides(args):
            seen["args"] = list(args)
            return types.SimpleNamespace(args=list(args))

    class BasePPOExp:
        def __init__(self, cfg):
            seen["cfg"] = cfg

        def run(self):  # what SkyRL's generator does first with each row
            env = skyrl_gym.make(
                ENV_ID, env_config={}, extras={"reward_spec": {"ground_truth": SKYRL_LCB}}
            )
            seen["reward"] = env.step(fenced("print(int(input()) * 2)"))["reward"]

    def remote(**options):
        def wrap(function):
            seen["pickled"] = cloudpickle.dumps(function)  # how Ray ships it to its worker
            return types.SimpleNamespace(remote=lambda cfg: function(cfg))

        return wrap

    modules = {
        "skyrl": types.ModuleType("skyrl"),
        "skyrl.train": types.ModuleType("skyrl.train"),
        "skyrl.train.config": types.SimpleNamespace(SkyRLTrainConfig=Config),
        "skyrl.train.entrypoints": types.ModuleType("skyrl.train.entrypoints"),
        "skyrl.train.entrypoints.main_base": types.SimpleNamespace(
            BasePPOExp=BasePPOExp, validate_cfg=lambda cfg: seen.setdefault("validated", cfg)
        ),
        "skyrl.train.utils": types.SimpleNamespace(
            initialize_ray=lambda cfg: seen.setdefault("ray", cfg)
        ),
    }
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(ray, "remote", remote)
    monkeypatch.setattr(ray, "get", lambda value: value)
    # a fresh registry, as in the Ray worker before the function is unpickled there
    monkeypatch.setattr(skyrl_gym.envs.registration, "registry", {})
    monkeypatch.setattr(sys, "argv", ["main_base.py", "trainer.policy.model.path=m", snippet[0]])

    skyrl_adapter.main()
    assert seen["args"] == ["trainer.policy.model.path=m", "environment.env_class=microcoder"]
    assert seen["validated"] is seen["ray"] is seen["cfg"]
    assert seen["reward"] == 1.0
    # Ray ships the task by reference: unpickling it imports this module, which registers
    assert b"evaluator.reward.frameworks.skyrl" in seen["pickled"] and len(seen["pickled"]) < 200
    skyrl_adapter.main(["environment.env_class=other"])
    assert seen["args"] == ["environment.env_class=other"]


EXIT_SCRIPT = """
import json, psutil, skyrl_gym
import evaluator.reward.frameworks.skyrl
env = skyrl_gym.make("microcoder", env_config={{}}, extras={{"reward_spec": {{"ground_truth": {gt!r}}}}})
print(env.step({response!r})["reward"])
print(json.dumps([p.pid for p in psutil.Process().children(recursive=True)]))
"""


def test_the_shared_pool_closes_when_the_process_exits(tmp_path):
    """A process that made and stepped environments leaves no sandbox server and no temp dir
    when it exits (the shared reward closes its pool at exit)."""
    script = EXIT_SCRIPT.format(gt=SKYRL_LCB, response=fenced("print(int(input()) * 2)"))
    score, pids = run_python(["-c", script], tmp_path)[-2:]
    assert score == "1.0"
    assert_closed_at_exit(json.loads(pids), tmp_path)
