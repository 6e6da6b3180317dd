"""The defaults of the paired statistics (:mod:`.stats`) and of ``mcevaluate compare``'s
``--resamples``, ``--level`` and ``--seed``, written once.

Plain constants in a module that imports nothing: the command line takes them when it starts
without importing NumPy (``evaluator.report`` exports its names lazily)."""

from __future__ import annotations

__all__ = ["DEFAULT_LEVEL", "DEFAULT_RESAMPLES", "DEFAULT_SEED"]

DEFAULT_RESAMPLES = 10_000
"""Bootstrap resamples of the problems (and random sign patterns of the paired test)."""
DEFAULT_LEVEL = 0.95
"""Confidence level of the bootstrap interval."""
DEFAULT_SEED = 0
"""Seed of NumPy's ``default_rng`` for the resampling: the same run gives the same interval."""
