"""Shared helpers for the format tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

DATA = Path("/work/shared/data")


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
    """The shared third-party data; tests that need it skip where it is absent."""
    if not DATA.is_dir():
        pytest.skip("shared data not available")
    return DATA
