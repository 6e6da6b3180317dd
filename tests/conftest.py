"""Shared fixtures: one real sandbox pool per test session (starting servers costs ~0.2 s)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Third-party data (../shared/data beside the checkout, as in CI; else the workplace's copy).
_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "data"
os.environ.setdefault(
    "MICROCODER_SHARED_DATA", str(_BESIDE if _BESIDE.is_dir() else Path("/work/shared/data"))
)

from evaluator.sandbox import SandboxPool  # noqa: E402


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(workers=2) as shared:
        yield shared
