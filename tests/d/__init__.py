"""D's tests: skipped, naming the package, where gdc is not installed (``setup.sh`` installs
it; CI, which forbids skips, runs them all)."""

from __future__ import annotations

import pytest

from evaluator.languages import get_language

try:
    get_language("d").compiler  # noqa: B018 (raises naming the package when gdc is missing)
    _MISSING = ""
except OSError as exc:
    _MISSING = f"{exc}; setup.sh installs it"

needs_gdc = pytest.mark.skipif(bool(_MISSING), reason=_MISSING)
