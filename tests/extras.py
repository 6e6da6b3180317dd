"""Which tests need which optional extra, and the skip that says so.

A user who installs only ``pip install -e ".[dev]"`` and runs ``python -m pytest`` gets every
test that needs an extra skipped with one line naming it, never a collection error. CI
installs everything and sets ``MICROCODER_FORBID_SKIPS=1``: a skipped test then fails the run
(:func:`forbid_skips`), so nothing silently stops being tested there."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# A test directory or module (relative to tests/) -> the extra it needs and the modules that
# show the extra is installed. The longest matching prefix decides.
NEEDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "frameworks": ("train and verl", ("torch", "trl", "transformers", "verl", "omegaconf")),
    "backends": ("ray", ("ray",)),
    "trainer_addon": ("train", ("torch", "trl", "transformers", "peft", "gguf", "matplotlib")),
    "cli/test_generate.py": ("train", ("torch", "transformers")),
    "frameworks/test_openrlhf.py": (
        "openrlhf",
        ("openrlhf", "pylatexenc", "sympy", "aiohttp", "torch", "transformers", "uvicorn"),
    ),
    "frameworks/test_slime.py": ("serve", ("uvicorn", "starlette", "aiohttp")),
    "frameworks/test_verifiers.py": (
        "verifiers",
        ("verifiers", "prime_sandboxes", "renderers", "mcp", "openai", "anthropic", "datasets"),
    ),
    "frameworks/test_skyrl.py": ("skyrl", ("skyrl_gym", "ray")),
    "frameworks/test_areal.py": (
        "areal",
        ("areal", "torch", "transformers", "hydra", "torchdata", "numba", "uvloop"),
    ),
    "service": ("serve", ("uvicorn", "starlette", "pydantic", "sandbox_fusion")),
    "harness/test_platform_libraries.py": (
        "platforms",
        ("sortedcontainers", "numpy", "networkx", "atcoder"),
    ),
    "service/test_verl_sandbox_fusion.py": (
        "serve and verl",
        ("uvicorn", "starlette", "sandbox_fusion", "verl", "omegaconf"),
    ),
}
INSTALL = {
    "train and verl": 'pip install -e ".[train,verl]" and pip install --no-deps verl==0.9.1',
    "ray": 'pip install -e ".[ray]"',
    "train": 'pip install -e ".[train]"',
    "serve": 'pip install -e ".[dev,serve]"',
    "openrlhf": 'pip install -e ".[dev,serve,openrlhf]" and pip install --no-deps openrlhf==0.11.2',
    "serve and verl": 'pip install -e ".[dev,serve,verl]" and pip install --no-deps verl==0.9.1',
    "verifiers": 'pip install -e ".[dev,verifiers]" and pip install --no-deps verifiers==0.3.1',
    "skyrl": 'pip install -e ".[dev,ray,skyrl]"',
    "areal": 'pip install -e ".[dev,train,areal]" and pip install --no-deps areal==1.0.4',
    "platforms": 'pip install -e ".[dev,platforms]"',
}


def missing_extra(path: Path) -> str | None:
    """Why the tests in ``path`` cannot run here (one line naming the extra), or None."""
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return None
    prefixes = [key for key in NEEDS if relative == key or relative.startswith(key + "/")]
    if not prefixes:
        return None
    extra, modules = NEEDS[max(prefixes, key=len)]
    absent = [name for name in modules if importlib.util.find_spec(name) is None]
    if not absent:
        return None
    return f"needs the {extra} extra ({', '.join(absent)} missing): {INSTALL[extra]}"


def missing_browser(*programs: str) -> str | None:
    """Why the browser tests cannot run here (``programs``: the browser and its driver), or
    None."""
    absent = [path for path in programs if shutil.which(path) is None]
    if not absent:
        return None
    return f"needs Chromium ({', '.join(absent)} missing): ./setup.sh, or apt-get install chromium chromium-driver"


class SkippedModule(pytest.Module):
    """A test module whose extra is missing: collected as one skip, never imported."""

    reason = ""

    def collect(self):
        pytest.skip(f"{self.path.relative_to(TESTS.parent)} {self.reason}")


def forbid_skips(session: pytest.Session) -> None:
    """With ``MICROCODER_FORBID_SKIPS`` set (CI), a run that skipped anything fails."""
    if not os.environ.get("MICROCODER_FORBID_SKIPS"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and session.exitstatus == 0:
        where = sorted({report.nodeid or str(report.fspath) for report in skipped})
        print(f"\nMICROCODER_FORBID_SKIPS: {len(skipped)} skipped, which CI does not allow:")
        for nodeid in where[:20]:
            print(f"  {nodeid}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
