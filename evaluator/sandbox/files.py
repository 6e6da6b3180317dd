"""File helpers shared by the fork server and the sandbox children: what a test wrote on a
memfd, and emptying the run directory (without ``shutil``, which imports compression modules
that every fork would pay for)."""

from __future__ import annotations

import os

STDERR_KEEP = 16 << 10  # keep the end of stderr, where the traceback is


def read_output(fd: int, limit: int) -> bytes:
    """What a test wrote on a memfd (at most ``limit`` bytes), which is then emptied."""
    size = min(os.fstat(fd).st_size, limit)
    if not size:
        return b""
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, 0)
    return data


def read_all(fd: int) -> bytes:
    """The whole content of a memfd or regular file, from offset 0."""
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def fill(fd: int, data: bytes) -> None:
    """Replace the content of a memfd with ``data``."""
    os.ftruncate(fd, 0)
    view, offset = memoryview(data), 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)


def tree_bytes(path: str, enough: int) -> int:
    """Bytes the files under ``path`` hold (their allocated blocks: a sparse file holds
    what it wrote), not following symlinks; the count stops once it passes ``enough``."""
    total, todo = 0, [path]
    while todo and total <= enough:
        try:
            entries = list(os.scandir(todo.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                pass
    return total


def clear_dir(path: str) -> None:
    """Remove what is inside ``path`` (not following symlinks); errors are ignored."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                remove_tree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            pass


def remove_tree(path: str) -> None:
    """``shutil.rmtree`` without importing shutil."""
    clear_dir(path)
    try:
        os.rmdir(path)
    except OSError:
        pass
