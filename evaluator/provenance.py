"""Where a run comes from, as its summary records it, besides its files
(:func:`evaluator.summary.describe_file`: the path as given, its absolute path, size and
SHA-256): the grader itself, its installed version and, run from a git checkout, the commit
and whether the package had uncommitted changes.

The commit is read from the checkout's ``.git`` files (``HEAD``, the ref it names, loose or
packed; a worktree's ``.git`` file and ``commondir`` followed), so it needs no ``git``
program; whether the checkout is dirty needs one (``git status``), and is None (unknown)
without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

__all__ = ["PACKAGE_ROOT", "grader_source", "grader_version", "source_commit"]

_OBJECT_ID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1 or SHA-256 object names
_GIT_TIMEOUT = 10.0  # seconds `git status` may take before the dirty flag is unknown

# The folder that holds the ``evaluator`` package: a checkout's root when run from source.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def grader_version() -> str:
    """This grader's version, as installed (``unknown`` when run from a bare source tree)."""
    try:
        return version("microcoder")
    except PackageNotFoundError:
        return "unknown"


def _git_dir(root: Path) -> Path | None:
    """The git directory of the checkout at ``root``: ``root/.git``, or the folder a
    worktree's ``.git`` file names (``gitdir: ...``); None when ``root`` is no checkout."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        text = dot.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            folder = Path(text[len("gitdir:") :].strip())
            folder = folder if folder.is_absolute() else root / folder
            return folder if folder.is_dir() else None
    return None


def _common_dir(git_dir: Path) -> Path:
    """Where the shared refs are: a worktree's ``commondir``, else the git directory."""
    pointer = git_dir / "commondir"
    if pointer.is_file():
        folder = Path(pointer.read_text(encoding="utf-8").strip())
        return folder if folder.is_absolute() else git_dir / folder
    return git_dir


def _ref(git_dir: Path, name: str) -> str | None:
    """The object a ref names: its loose file (the worktree's own, then the shared one),
    else its line in ``packed-refs``."""
    common = _common_dir(git_dir)
    for folder in (git_dir, common):
        loose = folder / name
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == name:
                return parts[0]
    return None


def source_commit(root: Path = PACKAGE_ROOT) -> str | None:
    """The commit checked out at ``root`` (HEAD, a branch's or detached), read from the
    ``.git`` files; None when ``root`` is no git checkout or HEAD names no commit yet."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return None
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        commit = _ref(git_dir, head[len("ref:") :].strip()) if head.startswith("ref:") else head
    except (OSError, UnicodeDecodeError):
        return None
    return commit if commit and _OBJECT_ID.fullmatch(commit) else None


def _dirty(root: Path, package: str) -> bool | None:
    """Whether ``package`` (a folder under ``root``) differs from the commit: a tracked file
    changed, or a file git does not ignore added (``git status``, taking no lock); None when
    no ``git`` program can tell."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "--no-optional-locks", "-C", str(root), "status", "--porcelain", "--", package],
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def grader_source(root: Path = PACKAGE_ROOT, package: str = "evaluator") -> dict[str, Any]:
    """The grader's source where it runs from a git checkout: ``{"grader_commit": ...,
    "grader_dirty": True/False}`` (dirty: ``package`` differs from the commit; left out
    when unknown); ``{}`` for an installed grader (its version says which)."""
    commit = source_commit(root)
    if commit is None:
        return {}
    described: dict[str, Any] = {"grader_commit": commit}
    dirty = _dirty(root, package)
    if dirty is not None:
        described["grader_dirty"] = dirty
    return described
