"""Length-prefixed frames over pipes between the pool and its fork servers.

A frame is a 4-byte big-endian length and that many bytes. Only JSON and raw output bytes
travel this way: nothing is ever unpickled, so a compromised server cannot run code in the
caller."""

from __future__ import annotations

import os
import select
import struct

_HEADER = struct.Struct(">I")
STOP = b"0"  # the pool to a server mid-job, with early exit: run no test after this one


def write_frames(fd: int, *payloads: bytes) -> None:
    parts: list[bytes] = []
    for payload in payloads:
        parts.append(_HEADER.pack(len(payload)))
        parts.append(payload)
    data = memoryview(b"".join(parts))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def read_exact(fd: int, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None at end of file (the other side is gone)."""
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    header = read_exact(fd, _HEADER.size)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    return read_exact(fd, size) if size else b""


class FrameReader:
    """Frames from one fd, read in large chunks: one ``read`` usually brings a test's three
    frames (header, stdout, stderr) at once instead of two reads per frame."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def frame_waiting(self) -> bool:
        """Whether a whole frame can be read without blocking (what is buffered, or what a
        zero-timeout poll of the fd finds; the other side writes each small frame at once)."""
        if frames_end(self.buffer, 1) is not None:
            return True
        ready = select.select([self.fd], [], [], 0)[0]
        return bool(ready)

    def read_frame(self) -> bytes | None:
        """The next frame, or None at end of file (the other side is gone)."""
        buffer = self.buffer
        while (end := frames_end(buffer, 1)) is None:
            want = 1 << 16
            if len(buffer) >= _HEADER.size:  # a big frame: read the rest of it at once
                want = max(want, _HEADER.size + _HEADER.unpack_from(buffer)[0] - len(buffer))
            chunk = os.read(self.fd, want)
            if not chunk:
                return None
            buffer += chunk
        frame = bytes(buffer[_HEADER.size : end])
        del buffer[:end]
        return frame


def stop_asked(requests: FrameReader) -> bool:
    """Early exit: whether the pool asked a server to stop (it judged a test failed). Never
    waits for it: the pool judges while the next test runs, and tests run after a stop are
    not reported (the pool drops them as skipped)."""
    if not requests.frame_waiting():
        return False
    frame = requests.read_frame()
    return frame is None or frame == STOP  # None: the pool is gone, stop as well


def frames_end(buffer: bytearray, count: int) -> int | None:
    """Where the first ``count`` frames in ``buffer`` end, if they are all complete."""
    end = 0
    for _ in range(count):
        if len(buffer) < end + _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(buffer, end)
        end += _HEADER.size + size
        if len(buffer) < end:
            return None
    return end


def split_frames(buffer: bytearray, count: int) -> list[bytes]:
    """The first ``count`` frames of ``buffer`` (all complete: see :func:`frames_end`)."""
    frames, at = [], 0
    for _ in range(count):
        (size,) = _HEADER.unpack_from(buffer, at)
        at += _HEADER.size
        frames.append(bytes(buffer[at : at + size]))
        at += size
    return frames
