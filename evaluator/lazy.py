"""Lazy package exports: a package's public names, imported from their modules on first use,
so that importing the package stays cheap (``import evaluator`` never imports torch, the fork
template imports only the sandbox modules it runs).

A leaf module: the standard library only, so every layer may use it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[list[str], Callable[[str], Any]]:
    """``(__all__, __getattr__)`` for ``package``: ``exports`` maps each public name to the
    module that defines it (absolute, or relative to the package with a leading dot).

    >>> __all__, __getattr__ = lazy_exports(__name__, {"Grader": ".runner"})  # doctest: +SKIP
    """
    table = dict(exports)

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    return sorted(table), __getattr__
