"""Shared helpers for the format tests."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

DATA = Path("/work/shared/data")


def write_jsonl(path: Path, records: list[object]) -> Path:
    """Write ``records`` one JSON document per line."""
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.fixture
def data_dir() -> Path:
    """The shared third-party data; tests that need it skip where it is absent."""
    if not DATA.is_dir():
        pytest.skip("shared data not available")
    return DATA
