"""The walk of a tree a program made, below a directory the caller holds open, as the
byte count (:mod:`.sizes`) and the cleanup (:mod:`.clearing`) use it.

Every open is relative to the directory above it, with O_NOFOLLOW | O_DIRECTORY: a symbolic
link is never followed and nothing outside the tree is ever opened, whatever the program
renames while the walk goes on. No full paths (a chain deeper than PATH_MAX is walked like
any other) and no recursion (a chain deeper than the interpreter's recursion limit too): no
tree a program can make defeats it. Without ``shutil``, which imports compression modules
that every fork would pay for."""

from __future__ import annotations

import errno
import os

DIR_FLAGS = (
    os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
)
_KEEP = 16  # directories held open on the way down; those above are reopened through ".."


class Moved(Exception):
    """A directory on the walk's path was moved (only a running program can): the walk stops
    rather than follow ``..`` anywhere it was not."""


class Frame:
    __slots__ = ("fd", "name", "dev", "ino", "todo")

    def __init__(self, fd: int, name: str, dev: int, ino: int) -> None:
        self.fd, self.name, self.dev, self.ino = fd, name, dev, ino  # fd -1: closed
        self.todo: list[str] | None = None  # subdirectories still to visit, once listed


class Tree:
    """An iterative depth-first walk below a directory the caller holds open. At most
    :data:`_KEEP` descriptors stay open on the way down; a directory above them is reopened
    through ``..`` on the way up, and only if it is the same directory (device and inode) as
    on the way down."""

    __slots__ = ("stack",)

    def __init__(self, root_fd: int) -> None:
        self.stack = [Frame(root_fd, "", -1, -1)]  # the root is never reopened

    @property
    def top(self) -> Frame:
        return self.stack[-1]

    def descend(self, name: str) -> os.stat_result | None:
        """Enter the subdirectory ``name`` of the top directory; its stat, or None when it is
        not a directory (any more: a running program may have replaced it) or is gone. Raises
        PermissionError for one this process may not open."""
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=self.top.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                return None
            raise
        try:
            info = os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        self.stack.append(Frame(fd, name, info.st_dev, info.st_ino))
        if len(self.stack) > _KEEP + 1:
            far = self.stack[-_KEEP - 1]
            if far.fd >= 0:
                os.close(far.fd)
                far.fd = -1
        return info

    def ascend(self) -> Frame:
        """Leave the top directory (closed); the frame it had (its name in its parent)."""
        child = self.stack.pop()
        parent = self.stack[-1]
        try:
            if parent.fd < 0:
                fd = os.open("..", DIR_FLAGS, dir_fd=child.fd)
                info = os.fstat(fd)
                if (info.st_dev, info.st_ino) != (parent.dev, parent.ino):
                    os.close(fd)
                    raise Moved(parent.name)
                parent.fd = fd
        finally:
            os.close(child.fd)
            child.fd = -1
        return child

    def close(self) -> None:
        for frame in self.stack[1:]:
            if frame.fd >= 0:
                os.close(frame.fd)
                frame.fd = -1
        del self.stack[1:]


class Visitor:
    """What a walk (:func:`walk`) does at each entry of a directory it lists, at each
    subdirectory it enters, and at each it leaves."""

    __slots__ = ()

    def entry(self, dir_fd: int, entry: os.DirEntry[str]) -> bool:
        """Deal with one entry of the directory open at ``dir_fd``; True when it is a
        directory to walk into."""
        raise NotImplementedError

    def enter(self, tree: Tree, name: str) -> None:
        """Walk into the subdirectory ``name`` of ``tree.top`` (``tree.descend``)."""
        raise NotImplementedError

    def leave(self, tree: Tree, gone: Frame) -> None:
        """The walk came back up from ``gone`` (``tree.top`` is its parent again)."""


def walk(dir_fd: int, visitor: Visitor, keep: frozenset[str] = frozenset()) -> None:
    """Walk the tree below the directory open at ``dir_fd``, depth first, each directory
    listed when first reached (again when its ``todo`` is reset to None), ``visitor`` told
    of each entry, each descent and each ascent; the entries of ``dir_fd`` named in ``keep``
    are passed over."""
    tree = Tree(dir_fd)
    try:
        while True:
            top = tree.top
            if top.todo is None:
                top.todo = []
                skip = keep if len(tree.stack) == 1 else ()
                with os.scandir(top.fd) as listing:
                    for entry in listing:
                        if entry.name in skip:
                            continue
                        if visitor.entry(top.fd, entry):
                            top.todo.append(entry.name)
            if top.todo:
                visitor.enter(tree, top.todo.pop())
                continue
            if len(tree.stack) == 1:
                return
            visitor.leave(tree, tree.ascend())
    finally:
        tree.close()
