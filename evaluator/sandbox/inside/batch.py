"""A batch child's loop: one child runs a submission's tests one after another (isolation
``adaptive`` and ``submission``).

Each test's input reaches the child only when that test starts: the server writes it into the
stdin memfd after the previous test's report, then sends the test's index on the control
pipe. Before a test starts, nothing the program can reach holds a later test's input (no
descriptor, no file, nothing in memory); when it ends, the harness empties the memfd and wipes
what it decoded (:mod:`.wipe`). A program that reads the control pipe itself steals only the
go-ahead of its own next test: the harness then waits, and the server's backstop ends this
child.

- Stdin tests run as plain runs: a fresh ``__main__`` and streams per test, and what a fresh
  process has put back before each (:class:`.state.Baseline`); with ``adaptive`` a test that
  changed the interpreter's global state ends the child, and the rest run in a fresh one.
- Call-based tests run as a judge that keeps one process runs them: the module is executed
  once per child and each test gets a fresh instance of the job's ``entry_class`` (or the
  top-level function looked up again);
  class attributes, module globals and anything else the program changes carry from test to
  test, at both levels, the recursion and int/str digit limits included. What the harness
  owns never carries: its streams (put back when the program replaced them), its report
  channel, the room its own conversions take.

Each report says what the test's code did (its return value, exception or exit status) and
which test it was; nothing else. The server measures the test from the kernel (the child's CPU
clock from the end of the last test to this report, its peak memory) and reads what it wrote
from the stdio memfds; the child's last test ends when the child has exited.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from evaluator.sandbox.inside import harness, interpreter, state, wipe


def next_test(ctrl: int) -> int | None:
    """The index of the next test, once the server has put its input in place; None when the
    server has no more (or the channel broke)."""
    raw = os.read(ctrl, 4)
    return int.from_bytes(raw, "big") if len(raw) == 4 else None


def read_input(fd: int) -> bytearray:
    """The whole content of the stdin memfd, into a buffer the harness can wipe."""
    data = bytearray(os.fstat(fd).st_size)
    if data:
        os.preadv(fd, [data], 0)
    return data


class Channel:
    """The harness's descriptors of a batch child: the control pipe and spare copies of the
    stdio memfds (a test may close or replace fds 0-2)."""

    __slots__ = ("ctrl", "stdin", "stdout", "stderr", "program_fds")

    def __init__(self, layout: Any) -> None:
        self.program_fds = range(3, layout.lowest)  # where the program's own files open
        self.ctrl = layout.at(1)
        self.stdin, self.stdout, self.stderr = layout.at(2), layout.at(3), layout.at(4)

    def next_test(self) -> int | None:
        """The number of the next test (see :func:`next_test`); its report will say it."""
        index = next_test(self.ctrl)
        if index is not None:
            harness.begin_test(index)
        return index

    def restore_stdio(self) -> None:
        os.dup2(self.stdin, 0)
        os.dup2(self.stdout, 1)
        os.dup2(self.stderr, 2)

    @staticmethod
    def report(report: dict[str, Any]) -> bool:
        """Send the test's report (what it wrote stays in the memfds, for the server to read);
        False if the program broke the channel (it closed the harness's descriptors): this
        child then ends."""
        try:
            harness.send_report(report)
        except OSError:
            return False
        return True

    def forget_input(self) -> None:
        """The test is over: its input leaves the child."""
        try:
            os.ftruncate(self.stdin, 0)
        except OSError:
            pass


def run_batch(brief: dict[str, Any], layout: Any, run_dir: str, snapshot: Any) -> None:
    """Run the tests the server starts, until it has no more or a test ends this child."""
    channel = Channel(layout)
    if brief["mode"] == "call":
        _call_tests(brief, channel)
    elif brief["mode"] == "assertion":
        _assertion_tests(brief, channel)
    else:
        _script_tests(brief, channel, run_dir, snapshot)


def _assertion_tests(brief: dict[str, Any], channel: Channel) -> None:
    """Assertion programs joined with their tests (one test: ``check`` runs them all)."""
    func, last = brief.get("func_name") or "", brief["count"] - 1
    while (index := channel.next_test()) is not None:
        channel.restore_stdio()
        report = harness.run_assertion(module(brief), func, brief["check_name"])
        channel.forget_input()
        if not channel.report(report):
            interpreter.end_process(70)
        if index == last:
            return


# -- call-based tests: the module once, a fresh instance per test ------------------------------


class _Streams:
    """The harness's stdio objects, made once for a call-based child and kept from test to
    test (a judge that runs every test in one process has one set): put back when the program
    replaced them, and a fresh stdin when the program read the last test's input through it
    (its buffer would hold that input)."""

    __slots__ = ("own",)

    def __init__(self) -> None:
        harness.fresh_stdio()
        self.own = [getattr(sys, name) for name in _STD]

    @property
    def stderr(self) -> Any:
        return self.own[2]

    def before_test(self) -> None:
        if os.lseek(0, 0, os.SEEK_CUR):  # the last test read its input: a new stdin
            harness.fresh_stdio()
            self.own = [getattr(sys, name) for name in _STD]
            return
        for name, own in zip(_STD, self.own, strict=True):
            if getattr(sys, name, None) is not own:
                setattr(sys, name, own)
                setattr(sys, f"__{name}__", own)

    def after_test(self) -> None:
        harness.flush_streams(self.own[1], self.own[2])

    @staticmethod
    def rewind() -> None:
        """After the test's output was read (and its memfds emptied)."""
        os.lseek(1, 0, os.SEEK_SET)
        os.lseek(2, 0, os.SEEK_SET)


_STD = ("stdin", "stdout", "stderr")


def module(brief: dict[str, Any]) -> harness.Module:
    """The brief's program as a module not yet executed, with the job's names and class."""
    overlay = harness.builtins_with(brief.get("names"))
    return harness.Module(brief["code"], brief["program"], overlay, brief.get("entry_class"))


def _call_tests(brief: dict[str, Any], channel: Channel) -> None:
    program = module(brief)
    func, last = brief.get("func_name") or "", brief["count"] - 1
    output_arg = brief.get("output_arg")
    # The recursion and int/str digit limits are the program's, as any module state: set at
    # module level (or by a call), they stay for its later tests, as on a judge that runs the
    # module once in one process. The harness's own conversions take their room and
    # put the program's values back (harness._harness_room).
    streams = None
    while (index := channel.next_test()) is not None:
        channel.restore_stdio()
        if streams is None:
            streams = _Streams()
        else:
            streams.before_test()
        raw = read_input(0)
        report = harness.run_call(program, func, raw, streams.stderr, output_arg)
        streams.after_test()
        wipe.buffer(raw)
        del raw
        channel.forget_input()
        if not channel.report(report):
            interpreter.end_process(70)
        if index == last:
            return
        streams.rewind()


# -- stdin tests: a plain run per test ---------------------------------------------------------


def _script_tests(brief: dict[str, Any], channel: Channel, run_dir: str, snapshot: Any) -> None:
    code, program, last = brief["code"], brief["program"], brief["count"] - 1
    overlay = harness.builtins_with(brief.get("names"))
    adaptive = brief.get("isolation") == "adaptive"
    baseline = state.Baseline(snapshot, adaptive, channel.program_fds, run_dir)
    # The server empties the run dir, puts it and the stdio memfds back as made, and writes a
    # test's input file before announcing the test (and reads an output file after its
    # report): nothing of an earlier test's files or marks is left for this one to see.
    while (index := channel.next_test()) is not None:
        channel.restore_stdio()
        baseline.reset()
        final = index == last
        policy = "final" if final else ("adaptive" if adaptive else "continue")
        status, extra, ended = harness.run_script_test(code, program, policy, overlay)
        if status == interpreter.STATUS_SIGINT:  # dies by SIGINT: the server sees it
            interpreter.end_process(status)
        report = harness.script_report(status, extra)
        if ended and not final:  # its threads were joined as at interpreter exit
            report["changed"], final = "threads were started", True
        if adaptive and not final:
            changed = baseline.changed()
            if changed is not None:
                report["changed"], final = changed, True
        channel.forget_input()
        if not channel.report(report):
            # the program closed the harness's descriptors: this child ends, with the test's
            # exit status for the server's wait4 (its output is in the memfds the server
            # holds); the rest of the tests run in a fresh child
            interpreter.end_process(status)
        if final:
            return
