"""The RL frameworks' reward adapters, each a thin layer over
:class:`~evaluator.reward.code_reward.CodeReward`'s public API in the shape the framework calls
(README's "Other RL frameworks"): :mod:`.verl` (``compute_score``; verl loads it as
``pkg://evaluator.reward``, which re-exports it), :mod:`.openrlhf` (``reward_func``;
:mod:`.openrlhf_reward_func` is the file OpenRLHF loads), :mod:`.slime` (``rm``,
``batched_rm``), :mod:`.verifiers` (``load_environment``, the v1 taskset), :mod:`.open_r1`
(open-r1's code rewards), :mod:`.skyrl` (the ``microcoder`` skyrl-gym environment) and
:mod:`.areal` (AReaL's reward function).

They import the generic reward (:mod:`evaluator.reward.code_reward`,
:mod:`evaluator.reward.columns`, :mod:`evaluator.reward.labels`,
:mod:`evaluator.reward.shared`); nothing generic imports them but ``evaluator.reward``'s own
``__init__``, for verl's names (tests/test_layering.py holds both rules).
"""
