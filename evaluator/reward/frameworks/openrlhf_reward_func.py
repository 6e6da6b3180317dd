"""The file OpenRLHF loads as its reward function: ``--reward.remote_url`` with this file's
path (``python -m evaluator.reward.frameworks.openrlhf`` prints it). OpenRLHF runs the file as
a module of its own and calls its ``reward_func(queries, prompts, labels)``; it is
:func:`evaluator.reward.frameworks.openrlhf.reward_func`, which grades on the process's shared
warm pool."""

from evaluator.reward.frameworks.openrlhf import reward_func

__all__ = ["reward_func"]
