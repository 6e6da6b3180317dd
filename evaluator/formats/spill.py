"""Tests kept on disk, read back when they are used: how a problem file of gigabytes is read
without holding its tests in memory.

DeepCoder-Preview (~24,000 problems) and TACO (~26,000) carry tests of megabytes; a run reads
every problem first (to plan, fingerprint and report) but needs a problem's tests only while
its programs are graded. :class:`TestSpill` appends tests' texts to an unnamed temporary
file and gives back a :class:`SpilledTests`, a read-only sequence of
:class:`~evaluator.problem.TestCase` that reads each test from the file when it is asked for
(``os.pread``: no shared file offset, safe from any thread, and nothing mapped, so nothing
stays resident). The file is deleted when the spill is closed or collected.
"""

from __future__ import annotations

import os
import tempfile
import threading
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from ..problem import TestCase

__all__ = ["SpilledTests", "TestSpill"]


def _bytes(text: str) -> bytes:
    # Lone surrogates (a "\ud800" escape in a problem file) travel as they are.
    return text.encode("utf-8", "surrogatepass")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


class TestSpill:
    """An append-only file of tests' texts (see the module docstring)."""

    __test__ = False  # not a pytest class

    def __init__(self, directory: str | None = None) -> None:
        self._file = tempfile.TemporaryFile(prefix="mc-tests-", dir=directory)  # noqa: SIM115 - kept open: read back on access
        self._fd = self._file.fileno()
        self._end = 0
        self._lock = threading.Lock()
        self.stored = 0  # bytes written

    def store(self, tests: Sequence[TestCase]) -> SpilledTests:
        """``tests`` written to the file; the sequence that reads them back."""
        chunks: list[bytes] = []
        spans = array("q")
        for test in tests:
            given, wanted = _bytes(test.input), _bytes(test.output)
            chunks += (given, wanted)
            spans.extend((len(given), len(wanted)))
        data = b"".join(chunks)
        with self._lock:
            start = self._end
            self._file.seek(start)
            self._file.write(data)
            self._file.flush()
            self._end += len(data)
            self.stored += len(data)
        return SpilledTests(self, start, spans)

    def read(self, offset: int, size: int) -> bytes:
        data = os.pread(self._fd, size, offset)
        while len(data) < size:  # pread may return less than asked
            more = os.pread(self._fd, size - len(data), offset + len(data))
            if not more:
                raise OSError(f"the tests' spill file ended at {offset + len(data)}")
            data += more
        return data

    def close(self) -> None:
        self._file.close()


class SpilledTests(Sequence[TestCase]):
    """A problem's tests, read from a :class:`TestSpill` on access; equal to the list of the
    same tests."""

    __slots__ = ("_offsets", "_spans", "_spill", "_start")

    def __init__(self, spill: TestSpill, start: int, spans: array) -> None:
        self._spill, self._start, self._spans = spill, start, spans
        offsets = array("q", [start])
        for size in spans:
            offsets.append(offsets[-1] + size)
        self._offsets = offsets  # where each input, then its output, starts

    def __len__(self) -> int:
        return len(self._spans) // 2

    def _one(self, index: int) -> TestCase:
        at = 2 * index
        data = self._spill.read(self._offsets[at], self._spans[at] + self._spans[at + 1])
        split = self._spans[at]
        return TestCase(_text(data[:split]), _text(data[split:]))

    @overload
    def __getitem__(self, index: int) -> TestCase: ...
    @overload
    def __getitem__(self, index: slice) -> list[TestCase]: ...
    def __getitem__(self, index: int | slice) -> TestCase | list[TestCase]:
        if isinstance(index, slice):
            return [self._one(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("test index out of range")
        return self._one(index)

    def __iter__(self) -> Iterator[TestCase]:
        return (self._one(i) for i in range(len(self)))

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, SpilledTests | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, as the list it stands for

    def __repr__(self) -> str:
        return f"SpilledTests({len(self)} tests)"

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a Ray or process boundary): a list
        return (list, (list(self),))
