"""Fixtures for the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from lcb_data import DATASET, GOOD, SHARDS, write_jsonl


@pytest.fixture
def lcb_file(tmp_path: Path) -> Path:
    """All problems in one JSONL file."""
    return write_jsonl(tmp_path / "lcb_all.jsonl", DATASET)


@pytest.fixture
def lcb_dir(tmp_path: Path) -> Path:
    """The hub layout: shard files test.jsonl, test2.jsonl, ..."""
    directory = tmp_path / "lcb"
    directory.mkdir()
    for name, rows in SHARDS.items():
        write_jsonl(directory / name, rows)
    return directory


@pytest.fixture
def lcb_samples(tmp_path: Path) -> Path:
    """One right and one wrong program per problem."""
    rows = [{"question_id": r["question_id"], "code_list": [GOOD, "print(3)"]} for r in DATASET]
    return write_jsonl(tmp_path / "samples.jsonl", rows)
