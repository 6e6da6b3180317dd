"""JavaScript (node): one grader for the session (its pool started with every installed
runtime, as every grader's is)."""

from __future__ import annotations

import pytest

from tests.languages.runtime_plain import grader_for_runtimes


@pytest.fixture(scope="session")
def grader():
    with grader_for_runtimes() as shared:
        yield shared
