"""Shared fixtures: one real sandbox pool per test session (starting servers costs ~0.2 s)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evaluator.sandbox import SandboxPool  # noqa: E402


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared
