"""What the files and directories a program made hold, counted toward its memory limit (on a
tmpfs they are memory; anywhere, a program must not fill a disk)."""

from __future__ import annotations

import os

from evaluator.sandbox.files.walk import Moved, Tree, Visitor, walk

ENTRY_BYTES = 4096
"""What a file or directory in the run directory counts at least toward what a program holds:
an empty file or directory takes no block, but its inode and directory entry take kernel memory
(about 1.3 KB on ext4) and an inode of the file system; a page is what a one-byte file takes."""


def held_bytes(info: os.stat_result) -> int:
    """What one entry counts toward the files a program holds (:data:`ENTRY_BYTES` at least)."""
    return max(info.st_blocks * 512, ENTRY_BYTES)


def tree_bytes(dir_fd: int, enough: int, keep: frozenset[str] = frozenset()) -> int:
    """What the files and directories below the directory open at ``dir_fd`` hold (each entry
    its allocated blocks, :data:`ENTRY_BYTES` at least: :func:`held_bytes`), at any depth,
    never following a link; the count stops once it passes ``enough``, so a walk costs at
    most ``enough / ENTRY_BYTES`` entries. A directory that cannot be listed, or a tree that
    keeps moving under the walk, counts as more than ``enough``: a program cannot hide what
    it holds that way. ``keep``: entries of the top directory left out (the sandbox's own)."""
    for _ in range(3):
        try:
            return _count(dir_fd, enough, keep)
        except Moved:
            continue
        except OSError:
            break
    return enough + 1


class _Enough(Exception):
    """The count passed what it had to know: the walk stops."""


class _Counter(Visitor):
    """Adds up what the entries hold (:func:`held_bytes`); raises :class:`_Enough` past
    ``enough``."""

    __slots__ = ("total", "enough")

    def __init__(self, enough: int) -> None:
        self.total, self.enough = 0, enough

    def add(self, info: os.stat_result) -> None:
        self.total += held_bytes(info)
        if self.total > self.enough:
            raise _Enough

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        if entry.is_dir(follow_symlinks=False):
            return True
        try:
            self.add(entry.stat(follow_symlinks=False))
        except FileNotFoundError:
            pass
        return False

    def enter(self, tree: Tree, name: str) -> None:
        info = tree.descend(name)
        if info is not None:
            self.add(info)


def _count(dir_fd: int, enough: int, keep: frozenset[str]) -> int:
    counter = _Counter(enough)
    try:
        walk(dir_fd, counter, keep)
    except _Enough:
        pass
    return counter.total
