"""Emptying a directory the children write in (the run directory, between two children) and
removing a worker's directory: bounded, never following a link, never leaving the tree."""

from __future__ import annotations

import errno
import os
import stat
import time

from evaluator.sandbox.files.walk import DIR_FLAGS, Frame, Moved, Tree, Visitor, walk

CLEAR_ENTRIES = 200_000  # the most entries the server removes between two children ...
CLEAR_SECONDS = 5.0  # ... or the longest it spends on them: past either, the worker retires


class Unclean(Exception):
    """A directory could not be emptied (or its own attributes put back) within bounds: the
    worker that holds it retires."""


class _Clearer(Visitor):
    """Removes each file as it is listed and each directory once it is left empty, within
    a :class:`_Budget`; counts what it removed."""

    __slots__ = ("budget", "removed")

    def __init__(self, budget: _Budget) -> None:
        self.budget, self.removed = budget, 0

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        self.budget.charge()
        if entry.is_dir(follow_symlinks=False) or not _unlink(dir_fd, entry.name):
            return True
        self.removed += 1
        return False

    def enter(self, tree: Tree, name: str) -> None:
        info = _enter(tree, name)
        if info is None:  # not a directory any more: a file in its place
            self.removed += _unlink(tree.top.fd, name)
        elif info.st_mode & 0o700 != 0o700:
            os.fchmod(tree.top.fd, stat.S_IMODE(info.st_mode) | 0o700)

    def leave(self, tree: Tree, gone: Frame) -> None:
        try:
            os.rmdir(gone.name, dir_fd=tree.top.fd)
            self.removed += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
            tree.top.todo = None  # it filled again (a running program): list once more


def clear_dir(
    dir_fd: int,
    entries: int | None = CLEAR_ENTRIES,
    seconds: float | None = CLEAR_SECONDS,
    keep: frozenset[str] = frozenset(),
) -> int:
    """Remove everything below the directory open at ``dir_fd`` (it stays), at any depth,
    never following a link and never leaving it; the number of entries removed. Bounded:
    past ``entries`` entries seen or ``seconds`` spent (None: no bound), or on an entry that
    will not go, raises :class:`Unclean` (what is left stays for the caller to deal with).
    A directory whose owner took away its own rights is given them back (matters only when
    this process is not root). ``keep``: entries of ``dir_fd`` itself that stay (the
    sandbox's own, which a program cannot change)."""
    clearer = _Clearer(_Budget(entries, seconds))
    try:
        walk(dir_fd, clearer, keep)
    except Moved as exc:
        raise Unclean(f"a directory was moved during the cleanup ({exc})") from None
    except OSError as exc:
        raise Unclean(f"cannot remove {exc.filename or 'an entry'!r}: {exc.strerror}") from None
    return clearer.removed


class _Budget:
    __slots__ = ("left", "deadline", "entries", "seconds")

    def __init__(self, entries: int | None, seconds: float | None) -> None:
        self.entries, self.seconds = entries, seconds
        self.left = entries if entries is not None else -1
        self.deadline = time.monotonic() + seconds if seconds is not None else None

    def charge(self) -> None:
        self.left -= 1
        if self.left == -1:
            raise Unclean(f"more than {self.entries} entries")
        deadline = self.deadline
        if deadline is not None and not self.left & 1023 and time.monotonic() > deadline:
            raise Unclean(f"more than {self.seconds} s")


def _enter(tree: Tree, name: str) -> os.stat_result | None:
    """:meth:`Tree.descend`; a directory this process may not open (not root, its owner took
    its rights away) is given them back first."""
    try:
        return tree.descend(name)
    except PermissionError:
        _grant(tree.top.fd, name)
        return tree.descend(name)


def _grant(dir_fd: int, name: str) -> None:
    """Give the directory ``name`` its owner's rights back, through an O_PATH descriptor
    (which needs none, and never follows a link) and its /proc name."""
    fd = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.chmod(f"/proc/self/fd/{fd}", 0o700)
    finally:
        os.close(fd)


def _unlink(dir_fd: int, name: str) -> bool:
    """Remove a non-directory; False if ``name`` is a directory (now)."""
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        return False
    return True


def remove_tree(path: str) -> None:
    """Remove the directory ``path`` and everything below it, however deep, never following
    a link (``path`` itself included): :func:`clear_dir`'s walk, without bounds. Nothing to
    do if it is gone; raises OSError if something stays."""
    for attempt in range(3):
        try:
            fd = os.open(path, DIR_FLAGS)
        except FileNotFoundError:
            return
        try:
            clear_dir(fd, entries=None, seconds=None)
        except Unclean:
            if attempt == 2:
                raise
        finally:
            os.close(fd)
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY or attempt == 2:
                raise
