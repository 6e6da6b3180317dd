"""A memfd's bytes, as the pool, the fork server, the template and the children use them:
what a test wrote on one (stdout, stderr), a whole one (a child's brief), one filled anew."""

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
