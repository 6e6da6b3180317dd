"""A real local Ray cluster for the Ray backend's tests: loopback only, no dashboard, no
usage stats; started once for the module that asks for it and shut down at the end."""

from __future__ import annotations

import os

import pytest

os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

from tests.conftest import local_ray  # noqa: E402 - after the environment above


@pytest.fixture(scope="module")
def ray_cluster():
    """Two CPUs, so two one-CPU grading actors (two worker processes) fit."""
    with local_ray(2) as started:
        yield started
