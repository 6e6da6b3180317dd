"""The fork server's watchdog: while it waits for a sandbox child's report, it holds the
child to its limits (CPU, wall clock, memory) and refuses what the program forged.

:class:`Child` is a running child as the server sees it: its pid, the server's ends of its
pipes, its CPU clock, resident and peak memory, and the reports it sent.
:meth:`Watchdog.await_report` waits for its report of the test in progress and kills it past
a limit: its CPU time (the kernel's clock, which the program cannot forge), the wall-clock
limit less the time it waited for a CPU, or what it holds (its resident memory and its files
in the run directory, :class:`~evaluator.sandbox.run_dir.RunDir`).
"""

from __future__ import annotations

import os
import select
import signal
import time
from typing import TYPE_CHECKING, Any

from evaluator.sandbox import reports
from evaluator.sandbox.jobs import default_test_wall
from evaluator.sandbox.wire import FrameReader, frames_end, split_frames, stop_asked

if TYPE_CHECKING:
    from evaluator.sandbox.run_dir import RunDir

_INBOX = 256 << 10
# A wall limit leaves out a test's run-queue wait, up to this many wall limits in all (a
# program starved that long still ends)
_STARVED_CAP = 10
_REPORT_ROOM = 1 << 20  # a report's header, beyond its value (bounded by the memory limit)
_PAGE = os.sysconf("SC_PAGE_SIZE")


class Child:
    """A running sandbox child, the server's ends of its pipes, and what it has reported.

    Its reports count in the number and order its harness sends them: one per test, carrying
    the test's number (``test``: the test in progress, counted from the child's first). A
    report for another test, a second one for a test, one sent before its test started, a
    status only the sandbox gives, or more bytes on the channel than a report holds, is a
    forgery (``forged`` says which): the program wrote it, with the harness's own sender or
    its key, which it can reach (see :mod:`evaluator.sandbox.reports`)."""

    __slots__ = (
        "pid",
        "pidfd",
        "status_r",
        "ctrl_w",
        "key",
        "poller",
        "buffer",
        "clock",
        "brief_fd",
        "statm",
        "held",
        "test",
        "taken",
        "forged",
        "statuses",
        "proc_status",
        "started",
        "exited",
        "eof",
        "drained",
        "queued",
    )

    def __init__(self, pid: int, status_r: int, ctrl_w: int | None, key: bytes, brief_fd: int):
        self.pid, self.status_r, self.ctrl_w, self.key = pid, status_r, ctrl_w, key
        self.statm: int | None = None  # /proc/<pid>/statm, for a child held to resident memory
        self.proc_status: int | None = None  # /proc/<pid>/status: a batch child's peak memory
        self.held = 0  # bytes it held (memory and files) when killed over the memory limit
        self.test, self.taken = 0, False  # the test in progress; whether it has reported
        self.started = True  # a test is in progress (a batch child's starts at its go-ahead)
        self.exited = self.eof = False  # seen: its exit; the end of its report channel
        self.drained = False  # both: nothing more can arrive
        # (start of the test in progress, its run-queue wait then): see Watchdog.await_report
        self.queued: tuple[float, float] = (-1.0, 0.0)
        self.forged: str | None = None  # why a report on its channel was refused
        # the statuses its reports may give: a program's harness's (None: a trusted child's)
        self.statuses: frozenset[str] | None = reports.PROGRAM_STATUSES
        self.brief_fd = brief_fd  # the server's copy, back to the spares once the child is gone
        self.pidfd = os.pidfd_open(pid)
        self.poller = select.poll()
        self.poller.register(status_r, select.POLLIN)
        self.poller.register(self.pidfd, select.POLLIN)
        self.buffer = bytearray()  # report bytes read but not used yet
        # The child's process CPU clock (what glibc's clock_getcpuclockid(pid) returns: Linux
        # encodes the pid as ~pid << 3, CPUCLOCK_SCHED = 2): all its threads, nanoseconds,
        # a sixth of the cost of parsing /proc/<pid>/stat.
        self.clock = ((~pid) << 3) | 2

    def cpu(self) -> float:
        """User plus system CPU of the child's whole thread group, from the kernel (the
        program cannot forge it); 0.0 once it is gone."""
        try:
            return time.clock_gettime(self.clock)
        except OSError:
            return 0.0

    def watch_resident(self) -> None:
        """Open the child's ``statm`` now, once: it reads the process's memory whatever it
        executes later (unmeasured, 0, if it cannot be opened)."""
        try:
            self.statm = os.open(f"/proc/{self.pid}/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.statm = None

    def resident(self) -> int:
        """Bytes of the child's resident memory now (its RSS); 0 once it is gone."""
        if self.statm is None:
            return 0
        try:
            return int(os.pread(self.statm, 128, 0).split()[1]) * _PAGE  # type: ignore[arg-type]
        except (OSError, IndexError, ValueError):
            return 0

    def watch_peak(self) -> None:
        """Open the child's ``status`` now, as ``statm`` (a batch child's peak memory is read
        from it after each test; ``wait4`` gives it once the child has exited)."""
        try:
            self.proc_status = os.open(f"/proc/{self.pid}/status", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.proc_status = None

    def peak_kb(self) -> int:
        """The child's peak resident memory so far, in KB, as the kernel counts it (``VmHWM``:
        what ``wait4``'s ``ru_maxrss`` gives at its exit); its resident memory now when that
        cannot be read."""
        try:
            text = os.pread(self.proc_status, 4096, 0)  # type: ignore[arg-type]
            at = text.index(b"VmHWM:") + 6
            return int(text[at : text.index(b"kB", at)])
        except (OSError, TypeError, ValueError):
            return self.resident() >> 10


class Watchdog:
    """Waits for children's reports while holding them to their limits. ``requests``: the
    pool's frames (a stop wakes the wait); ``run_dir``: where a program's files count toward
    what it holds."""

    def __init__(self, requests: FrameReader, run_dir: RunDir) -> None:
        self.requests, self.run_dir = requests, run_dir
        self.inbox = bytearray(_INBOX)  # one read buffer, written into, never reallocated

    def await_report(
        self,
        child: Child,
        limits,
        start_wall: float,
        start_cpu: float,
        partner=None,
        until_exit=False,
        stop=False,
        fast=False,
    ):
        """Wait for the child's report of its test in progress while enforcing the CPU limit
        (the child's CPU clock, which the kernel keeps, from ``start_cpu``; with ``partner``,
        the candidate of a split test, the two together) and the wall-clock backstop.
        Returns (report, limit hit). With ``until_exit``, waits until the child has exited
        and returns the report it sent (None if it sent none). With ``stop`` (early exit), a
        stop from the pool kills the child: (None, "stop"). A forged report (see
        :class:`Child`) kills the child: (None, None), ``child.forged`` says why.

        The program (``partner`` when there is one, else the child) is killed ("memory")
        when what it holds grows past the memory limit: its resident memory (shared mappings
        too, which RLIMIT_DATA does not count) plus the files in the run directory. It is
        checked at each tick: every 10 ms with ``fast`` (an executed program, whose
        RLIMIT_DATA is only a backstop), else with the CPU check."""
        time_limit = limits["time_limit"]
        wall_limit = limits["wall_limit"] or default_test_wall(time_limit)
        # a wall limit (the default backstop, a reward's tight 1x + 0.5 s) leaves out the time
        # the program waited for a CPU, unless the caller made it a deadline (a service's run
        # timeout): a CPU-bound program within its CPU limit is never ended by load
        starved = 0 if limits.get("wall_counts_wait") else _STARVED_CAP - 1
        if starved and child.queued[0] != start_wall:  # the wait before the test: not the test's
            child.queued = (start_wall, _queued(child, partner))
        queued = child.queued[1]
        memory_bytes = limits["memory_limit"] << 20
        cap = memory_bytes + _REPORT_ROOM  # a report holds a return value the child held
        program = partner if partner is not None else child
        tick = 0.01 if fast else min(0.1, max(0.01, time_limit / 10))
        poller = child.poller
        last = None
        if stop:  # a stop from the pool wakes the wait (checked after each test as well)
            poller.register(self.requests.fd, select.POLLIN)
        while True:
            report = self.take_report(child, cap)
            if child.forged is not None:
                self.kill(child, partner)
                return None, None
            if report is not None:
                if not until_exit:
                    return report, None
                last = report
                continue
            if child.drained:  # it has exited and nothing more can arrive
                return last, None
            left = start_wall + wall_limit - time.monotonic()
            if left <= 0 and starved:  # past the backstop, less the time it waited for a CPU
                # (a loaded machine): a starved program ends by its CPU time, as it would alone
                left += min(_queued(child, partner) - queued, starved * wall_limit)
            if left <= 0:
                self.kill(child, partner)
                return last, "wall"
            events = dict(poller.poll(min(left, tick) * 1000))
            if stop and self.requests.fd in events:
                if stop_asked(self.requests):
                    self.kill(child, partner)
                    return None, "stop"
                events.pop(self.requests.fd)
            if child.status_r in events:
                if self.read_channel(child):
                    continue
                poller.unregister(child.status_r)  # EOF: only the exit is left to see
                child.eof = True
            if child.pidfd in events:
                poller.unregister(child.pidfd)
                child.exited = True
            if child.exited:
                child.drained = child.eof or child.status_r not in events
                continue
            held = self.holds(program, memory_bytes) if not events else 0
            if held > memory_bytes:  # first: a program over both limits at a tick crossed
                program.held = held  # this one first
                self.kill(child, partner)
                return last, "memory"
            if not events and _cpu(child, partner) - start_cpu > time_limit:
                self.kill(child, partner)
                return last, "cpu"

    def read_channel(self, child: Child) -> int:
        """What the child wrote on its report channel, read into its buffer: the number of
        bytes (0: the end of the channel). Raises ``BlockingIOError`` when nothing waits."""
        size = os.readv(child.status_r, [self.inbox])
        child.buffer += memoryview(self.inbox)[:size]
        return size

    def holds(self, program: Child, limit: int) -> int:
        """Bytes the program holds: its resident memory and its files in the run directory
        (on a tmpfs /tmp they are memory too; anywhere, a program must not fill a disk)."""
        resident = program.resident()
        return resident + self.run_dir.files_held(limit - resident)

    @staticmethod
    def take_report(child: Child, cap: int) -> dict[str, Any] | None:
        """The child's report of its test in progress, once complete in its buffer (its
        header and value frames); None until then. Frames without the run's key are skipped:
        bytes a program wrote on the channel by chance pass no test and shift no report. A
        signed report out of the harness's order (see :class:`Child`) sets ``forged``, and
        so do more bytes waiting than a report holds (``cap``)."""
        buffer = child.buffer
        while (end := frames_end(buffer, 2)) is not None:
            head, value = split_frames(buffer, 2)
            signed = reports.unpack_signed(head, value, child.key)
            if signed is None:  # drop the first frame: the report may start at the next
                del buffer[: frames_end(buffer, 1)]
                continue
            del buffer[:end]
            test, fields = signed
            child.forged = _out_of_order(child, test, fields)
            if child.forged is not None:
                return None
            child.taken = True
            if child.statuses is reports.PROGRAM_STATUSES:
                return reports.child_fields(fields)
            return fields
        if len(buffer) > cap:
            child.forged = "more bytes on the report channel than a report holds"
        return None

    @staticmethod
    def kill(*children: Child | None) -> None:
        for child in children:
            if child is None:
                continue
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:  # no group yet: killed before its setsid()
                try:
                    os.kill(child.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _out_of_order(child: Child, test: int, fields: dict[str, Any]) -> str | None:
    """Why a signed report ``child`` sent for test ``test`` is not one its harness sends
    now (None when it is)."""
    if not child.started:
        return "a report sent before its test started"
    if test != child.test:
        return "a report for a test other than the one in progress"
    if child.taken:
        return "a second report for one test"
    status = fields.get("status")
    if child.statuses is not None and status not in child.statuses:
        return f"a report with the status {str(status)[:40]!r}, which only the sandbox gives"
    return None


def _cpu(child: Child, partner: Child | None) -> float:
    return child.cpu() + (partner.cpu() if partner is not None else 0.0)


def _queued(child: Child, partner: Child | None) -> float:
    """Seconds the child (and ``partner``) waited on a run queue, runnable but not running:
    the second field of ``/proc/<pid>/schedstat`` (the main thread's, in ns), kept by the
    kernel; 0.0 where it cannot be read (the wall-clock backstop then counts all of it)."""
    total = 0
    for one in (child, partner):
        if one is None:
            continue
        try:
            with open(f"/proc/{one.pid}/schedstat", "rb") as fh:
                total += int(fh.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9
