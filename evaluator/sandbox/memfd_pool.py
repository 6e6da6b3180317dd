"""The memfds the fork server gives its children: a job's stdio (stdin, stdout, stderr) and
each child's brief. None is ever reused from another job (a program can mark a memfd: its
mode, extended attributes, inode flags, times, and the owner, signal, flags and lease of the
description it shares with the server); keeping them cost more in putting them back as made
than in making them. Between the tests of a batch child, which keeps its stdio, they are put
back as made (:class:`~evaluator.sandbox.files.marks.Marks`)."""

from __future__ import annotations

import os

from evaluator.sandbox.files.marks import Marks


class MemfdPool:
    """The memfds made for the server's children, and those not given to one yet."""

    def __init__(self) -> None:
        probe = os.memfd_create("io", os.MFD_CLOEXEC)
        self.stream_marks = Marks(probe, stream=True)
        os.close(probe)
        self.unused: set[int] = set()  # memfds made and not yet given to a child

    def take(self, count: int) -> list[int]:
        """New memfds: a job's stdio, a child's brief."""
        fds = [os.memfd_create("io", os.MFD_CLOEXEC) for _ in range(count)]
        self.unused.update(fds)
        return fds

    def give(self, fds: list[int]) -> None:
        """Closed: every child that held them has been reaped. ``fds`` is emptied, so that
        giving the same list again (a job's, in its ``finally``) closes nothing."""
        for fd in fds:
            self.unused.discard(fd)
            os.close(fd)
        fds.clear()

    def fresh_streams(self, fds: list[int], held: bool) -> str | None:
        """The stdio memfds as a new child gets them. One no child held yet is as made; one
        a batch child holds (``held``) has its attributes put back (and checked); any other
        is replaced, at the same number, by a new memfd (as cheap, and nothing of the old
        one can remain). Why a held one could not be put back (the worker retires), or None."""
        for fd in fds:
            if fd in self.unused:
                self.unused.discard(fd)
            elif held:
                why = self.stream_marks.restore(fd)
                if why is not None:
                    return f"a stdio memfd could not be put back: {why}"
            else:
                new = os.memfd_create("io", os.MFD_CLOEXEC)
                os.dup2(new, fd, inheritable=False)
                os.close(new)
        return None
