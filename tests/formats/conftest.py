"""Shared helpers for the format tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

DATA = Path(os.environ["MICROCODER_TEST_DATA"])


def _write_jsonl(path: Path, records: list[object]) -> Path:
    """Write ``records`` one JSON document per line."""
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.fixture
def write_jsonl() -> Callable[[Path, list[object]], Path]:
    """``write_jsonl(path, records) -> path``: a JSONL fixture file. A fixture rather than an
    import, because ``tests/conftest.py`` makes ``import conftest`` ambiguous."""
    return _write_jsonl


@pytest.fixture
def data_dir() -> Path:
    """The vendored subsets of the third-party data (``tests/data``)."""
    return DATA
