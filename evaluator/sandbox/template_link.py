"""The fork server's side of its fork templates (:mod:`evaluator.sandbox.template`): the first
one, forked at start-up before the server read any job, and the heavy ones (packages too slow
to import in each child, one template per group: pool.py's ``heavy``), each forked by the first
on the first job whose code names the group's first package. A child is asked of a template
over its unix socket with the child's descriptors (``SCM_RIGHTS``); its pid comes back, a
child of the server (``CLONE_PARENT``)."""

from __future__ import annotations

import _socket
import array
import os
import re


class TemplateGone(RuntimeError):
    """The fork template died: the server exits and the pool replaces the worker."""


class TemplateLink:
    """The sockets to the server's fork templates (``link``: the first one's) and their pids."""

    def __init__(self, link: _socket.socket, template_pid: int, groups: list[list[str]]):
        self.link, self.template_pid = link, template_pid
        # a job goes to the first group it names
        self.heavy_triggers = [_names(group[0].split(".")[0]) for group in groups]
        self.heavy_links: dict[int, _socket.socket] = {}  # by group number, from 1
        self.heavy_pids: dict[int, int] = {}

    def pids(self) -> set[int]:
        """The templates' pids (children of the server that are no sandbox child)."""
        return {self.template_pid, *self.heavy_pids.values()}

    def heavy_group(self, code: str) -> int:
        """The number (from 1) of the first heavy group whose first package ``code`` names;
        0 for none."""
        for number, trigger in enumerate(self.heavy_triggers, 1):
            if trigger.search(code):
                return number
        return 0

    def fork(self, fds: list[int], heavy: int = 0) -> int:
        """Ask a template for a child holding ``fds`` (``heavy``: the number of the heavy
        template's group, 0 for the first template); its pid (it is this server's child)."""
        link = self._heavy_link(heavy) if heavy else self.link
        try:
            link.sendmsg([b"f"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))])
            answer = link.recv(4)
        except OSError as exc:
            raise TemplateGone(f"the fork template is gone: {exc}") from exc
        if len(answer) != 4:
            raise TemplateGone("the fork template is gone")
        pid = int.from_bytes(answer, "big", signed=True)
        if pid < 0:
            raise OSError(-pid, f"fork: {os.strerror(-pid)}")
        return pid

    def close(self) -> None:
        """Every template sees the end of its socket and exits: reaped here, so that its CPU
        time reaches the pool's rusage."""
        for number, link in self.heavy_links.items():
            link.close()
            os.waitpid(self.heavy_pids[number], 0)
        self.link.close()
        os.waitpid(self.template_pid, 0)

    def _heavy_link(self, number: int) -> _socket.socket:
        """The socket of group ``number``'s heavy template, started on first use: the first
        template forks it, so it never held a job either."""
        if number in self.heavy_links:
            return self.heavy_links[number]
        ours, theirs = _socket.socketpair(
            _socket.AF_UNIX, _socket.SOCK_SEQPACKET | _socket.SOCK_CLOEXEC
        )
        try:
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
            self.link.sendmsg([b"t" + bytes([number])], rights)
            answer = self.link.recv(4)
        except OSError as exc:
            raise TemplateGone(f"the fork template is gone: {exc}") from exc
        finally:
            theirs.close()
        pid = int.from_bytes(answer, "big", signed=True) if len(answer) == 4 else -1
        hello = ours.recv(1 << 16) if pid > 0 else b""
        if not hello:
            raise TemplateGone("the heavy fork template failed to start")
        self.heavy_links[number], self.heavy_pids[number] = ours, pid
        return ours


def _names(name: str) -> re.Pattern[str]:
    """``name`` as a word of a program's source (``import numpy``, ``numpy.array``)."""
    return re.compile(rf"\b{re.escape(name)}\b")
