"""SkyRL (NovaSky-AI/SkyRL): the grader as a skyrl-gym environment, :class:`CodeEnv`,
registered in skyrl-gym's registry as ``"microcoder"`` when this module is imported.

SkyRL's generator makes one environment per rollout, ``skyrl_gym.make(env_class,
env_config=..., extras=<the dataset row's other columns>)``, and calls its synchronous
``step`` with the model's response text. The problem is the row's
``reward_spec.ground_truth``, where SkyRL's code datasets carry it: a row of any source the
format registry reads (LiveCodeBench's, TACO's ``input_output``, verl's ``prime_code``
``{"inputs", "outputs", "fn_name"?}``, ...), as JSON text or an object, or a list of tests
(SkyRL's own LiveCodeBench rows: :mod:`evaluator.reward.labels`). It is read when the
environment is made: a missing or unreadable ground truth raises naming
``extras["reward_spec"]["ground_truth"]`` and the field before anything is generated
(``MICROCODER_ON_BAD_PROBLEM=skip`` scores such rows 0.0 instead, with one logged warning).

``step`` grades the response's last fenced code block (special tokens at its end stripped) in
the process's shared warm pool (:func:`~evaluator.reward.shared.shared_reward`, closed at
exit; many environments stepping in SkyRL's executor threads are graded in parallel) and
ends the episode: binary reward (1.0 when every test passes), the verdict and its reason in
the step's ``metadata``. ``get_metrics`` gives ``verdict_<NAME>`` (1.0 for the episode's
verdict), which SkyRL averages over the environment's episodes into its logged metrics.

Registration must happen in the process that makes the environments (SkyRL's training
entrypoint task): run SkyRL through :func:`main`, which does it there, with the one override
``trainer.override_entrypoint=evaluator.reward.frameworks.skyrl`` (``environment.env_class``
defaults to ``microcoder`` there), or import this module in your own entrypoint.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from evaluator.reward.code_reward import VERDICT_NAMES
from evaluator.reward.columns import ProblemError
from evaluator.reward.labels import LabelError, bad_label_action, grade_labelled, label_problem
from evaluator.reward.shared import shared_reward

__all__ = ["ENTRY_POINT", "ENV_ID", "GROUND_TRUTH", "CodeEnv", "main", "register_env"]

ENV_ID = "microcoder"
"""The id :class:`CodeEnv` is registered under (``environment.env_class``, a row's
``env_class``)."""
ENTRY_POINT = "evaluator.reward.frameworks.skyrl:CodeEnv"
GROUND_TRUTH = 'extras["reward_spec"]["ground_truth"]'
"""Where the problem is, as errors name it."""


def _ground_truth(extras: Any) -> Any:
    if not isinstance(extras, Mapping):
        raise LabelError(
            "extras", f"expected the dataset row's fields, got {type(extras).__name__}"
        )
    spec = extras.get("reward_spec")
    if not isinstance(spec, Mapping):
        got = "missing" if spec is None else f"a {type(spec).__name__}"
        raise LabelError(
            'extras["reward_spec"]',
            f"{got} (the row's reward_spec column must be an object whose ground_truth is the "
            f"problem; the row has {', '.join(sorted(map(str, extras))) or 'no fields'})",
        )
    if spec.get("ground_truth") is None:
        raise LabelError(GROUND_TRUTH, "missing (expected a problem record or a list of tests)")
    return spec["ground_truth"]


class CodeEnv(BaseTextEnv):
    """One rollout of a code problem: ``step(response)`` grades it and ends the episode (see
    the module docstring). ``env_config`` is accepted and not used; ``extras`` is the dataset
    row's fields, ``reward_spec.ground_truth`` the problem."""

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        try:
            self.ground_truth = _ground_truth(extras if extras is not None else {})
        except LabelError:
            if bad_label_action() == "raise":
                raise
            self.ground_truth = None  # scored 0.0 (verdict ERROR), logged once
        found = label_problem(shared_reward(), self.ground_truth)
        if isinstance(found, ProblemError) and bad_label_action() == "raise":
            raise LabelError(GROUND_TRUTH, str(found))
        self.verdict: str | None = None
        self.reason = ""

    def step(self, action: str) -> BaseTextEnvStepOutput:
        if not isinstance(action, str):  # a missing response is no model's answer: never a 0.0
            raise TypeError(
                f"CodeEnv.step takes the model's response text, got {type(action).__name__}"
            )
        self.turns += 1
        details = grade_labelled(shared_reward(), [action], [self.ground_truth], [GROUND_TRUTH])
        self.verdict, self.reason = details.verdicts[0], details.reasons[0]
        reward = float(details.rewards[0] or 0.0)
        return BaseTextEnvStepOutput(
            observations=[],
            reward=reward,
            done=True,
            metadata={"verdict": self.verdict, "reason": self.reason},
        )

    def get_metrics(self) -> dict[str, Any]:
        if self.verdict is None:
            return {}
        return {f"verdict_{name}": float(name == self.verdict) for name in VERDICT_NAMES}

    def close(self) -> None:
        """Nothing of the episode's to close: the shared pool stays warm for the next one and
        closes when the process exits."""


def register_env(env_id: str = ENV_ID) -> None:
    """Register :class:`CodeEnv` in skyrl-gym's registry as ``env_id`` (once per process;
    again is a no-op). An id registered to another environment is an error."""
    from skyrl_gym.envs.registration import register, registry

    spec = registry.get(env_id)
    if spec is None:
        register(id=env_id, entry_point=ENTRY_POINT)
    elif spec.entry_point not in (ENTRY_POINT, CodeEnv):
        raise ValueError(f"skyrl-gym id {env_id!r} is registered to {spec.entry_point!r}")


register_env()


# --- SkyRL's training entrypoint with the environment registered ----------------------------

OVERRIDE = "trainer.override_entrypoint="


def _run(cfg: Any) -> None:
    """SkyRL's training, in the Ray task SkyRL runs it in (importing this module there, to
    run this function, registered the environment)."""
    from skyrl.train.entrypoints.main_base import BasePPOExp

    register_env()
    BasePPOExp(cfg).run()


def main(argv: Sequence[str] | None = None) -> None:
    """SkyRL's training entrypoint with :class:`CodeEnv` registered where environments are
    made: ``python -m skyrl.train.entrypoints.main_base
    trainer.override_entrypoint=evaluator.reward.frameworks.skyrl ...`` (SkyRL imports this
    module and calls this) or ``python -m evaluator.reward.frameworks.skyrl ...``.
    ``environment.env_class`` defaults to ``microcoder``."""
    import ray
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import validate_cfg
    from skyrl.train.utils import initialize_ray

    args = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith(OVERRIDE)]
    if not any(a.startswith("environment.env_class=") for a in args):
        args.append(f"environment.env_class={ENV_ID}")
    cfg = SkyRLTrainConfig.from_cli_overrides(args)
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(ray.remote(num_cpus=1)(_run).remote(cfg))


if __name__ == "__main__":  # run the module's own copy: Ray pickles its functions by name
    from evaluator.reward.frameworks.skyrl import main as _main

    _main()
