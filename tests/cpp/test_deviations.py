"""The C++ deviations documented in ``docs/plain-run.md`` are the ones the tests name."""

from __future__ import annotations

from pathlib import Path

from tests.cpp.deviations import DEVIATIONS

DOC = Path(__file__).resolve().parents[2] / "docs" / "plain-run.md"


def test_every_cpp_deviation_is_in_the_table():
    section = DOC.read_text(encoding="utf-8").split("### C++ deviations", 1)[1]
    for name in DEVIATIONS:
        assert f"`{name}`" in section, name
