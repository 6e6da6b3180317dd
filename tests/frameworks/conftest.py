"""Environment for the framework tests (TRL's async trainer, verl's reward classes): offline,
no tokenizer threads, no experiment trackers, no Ray usage stats."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("WANDB_DISABLED", "true")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")
