"""What the grader makes once per machine for a runtime, from its own trusted sources (the
JVM's class-data archive, Mono's main-stack shim), kept in the user's cache
(``$XDG_CACHE_HOME/microcoder``, else ``~/.cache/microcoder``; ``MICROCODER_CACHE`` names
another) under a name that says what it was made from: made in a private directory beside
it, then put in place by a rename, read-only. A program reads such a file, never writes it.
Where it cannot be made (no writable cache, a toolchain that fails) there is none, and a
warning says why: the runtime then runs without it."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Iterable

__all__ = ["cache_directory", "fingerprint", "made_once", "run_trusted"]

_SECONDS = 120


def cache_directory() -> str:
    """Where the grader keeps what it makes once per machine."""
    if os.environ.get("MICROCODER_CACHE"):
        return os.environ["MICROCODER_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "microcoder")


def fingerprint(files: Iterable[str], texts: Iterable[str] = ()) -> str:
    """A short name for what is made from ``files`` (their paths, sizes and times) and
    ``texts`` (our sources, in full)."""
    digest = hashlib.sha256()
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            continue
        digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    for text in texts:
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def made_once(kind: str, name: str, make: Callable[[str, str], None]) -> str | None:
    """The file ``<cache>/<kind>/<name>``, made now by ``make(work, target)`` (``work`` a
    private directory, ``target`` the file it must write there) if it is not there yet;
    None where it cannot be made (a warning says why)."""
    directory = os.path.join(cache_directory(), kind)
    path = os.path.join(directory, name)
    if os.path.isfile(path):
        return path
    try:
        os.makedirs(directory, mode=0o755, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=directory) as work:
            target = os.path.join(work, name)
            make(work, target)
            os.chmod(target, 0o444)
            os.replace(target, path)
    except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
        warnings.warn(f"no {kind} file {name}: {exc}", stacklevel=3)
        return None
    return path


def run_trusted(argv: list[str], step: str) -> None:
    """Run one step of making (a trusted toolchain on our own sources); ``RuntimeError``
    with its last line of output when it fails."""
    done = subprocess.run(argv, capture_output=True, timeout=_SECONDS, check=False)
    if done.returncode != 0:
        last = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"the {step} failed: {last[-1] if last else done.returncode}")
