"""The job's program, staged in the worker's program directory (beside ``run/``) for its
children: a program file (``Job.executable``), or the files a runtime reads
(``Job.program_files``: a script, class files).

The directory is root's (``0711``): a child may open a staged file by its name, never list
the directory or add, change or remove a file (Landlock gives it read and execute there,
no write). Everything is put there before the job's first child and removed after its last
one, so no test can change what a later test runs and no later job finds it.
"""

from __future__ import annotations

import os
import shutil

__all__ = ["clear", "stage", "stage_program"]

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _write(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, _CREATE, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)  # closed before any exec: an open writer makes a file ETXTBSY


def stage_program(directory: str, name: str, binary: bytes) -> int:
    """Write the program file ``name`` (read and execute only) and open it for the
    children's exec (``execveat`` of the descriptor); the descriptor."""
    path = os.path.join(directory, name)
    _write(path, binary, 0o555)
    return os.open(path, os.O_RDONLY | os.O_CLOEXEC)


def stage(directory: str, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative paths, checked by ``Job``) read-only under ``directory``,
    their directories made searchable and not listable."""
    for path, data in files.items():
        *parts, _ = path.split("/")
        below = directory
        for part in parts:
            below = os.path.join(below, part)
            if not os.path.isdir(below):
                os.mkdir(below, 0o711)
        _write(os.path.join(directory, path), data, 0o444)


def clear(directory: str) -> None:
    """Remove whatever a job staged in ``directory`` (the directory stays)."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
