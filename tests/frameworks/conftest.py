"""Environment for the framework tests (TRL's async trainer, verl's reward classes): offline,
no tokenizer threads, no experiment trackers, no Ray usage stats; and the service tests'
``server`` fixture (a module's ``mcevaluate serve``, two workers), which the frameworks'
URL paths post to."""

from __future__ import annotations

import os

from tests.service.conftest import server  # noqa: F401 - the fixture, shared

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("WANDB_DISABLED", "true")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")
