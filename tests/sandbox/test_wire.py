"""Length-prefixed frames between the pool and its fork servers, over real pipes."""

from __future__ import annotations

import os
import threading

from evaluator.sandbox.wire import FrameReader, frames_end, write_frames


def test_frames_written_together_are_read_one_by_one():
    r, w = os.pipe()
    try:
        write_frames(w, b'{"status": "ok"}', b"out\n", b"")
        write_frames(w, b"second")
        reader = FrameReader(r)
        assert [reader.read_frame() for _ in range(4)] == [
            b'{"status": "ok"}',
            b"out\n",
            b"",
            b"second",
        ]
    finally:
        os.close(r)
        os.close(w)


def test_a_frame_bigger_than_the_pipe_arrives_whole():
    r, w = os.pipe()
    big = os.urandom(3 << 20)  # far more than a pipe holds: the writer blocks until read
    writer = threading.Thread(target=write_frames, args=(w, big, b"after"))
    writer.start()
    try:
        reader = FrameReader(r)
        assert reader.read_frame() == big
        assert reader.read_frame() == b"after"
    finally:
        writer.join()
        os.close(r)
        os.close(w)


def test_end_of_file_mid_frame_is_none():
    r, w = os.pipe()
    os.write(w, (10).to_bytes(4, "big") + b"short")
    os.close(w)
    try:
        assert FrameReader(r).read_frame() is None
    finally:
        os.close(r)


def test_frames_end_needs_every_frame_complete():
    buffer = bytearray((3).to_bytes(4, "big") + b"abc" + (2).to_bytes(4, "big") + b"x")
    assert frames_end(buffer, 1) == 7
    assert frames_end(buffer, 2) is None
    buffer += b"y"
    assert frames_end(buffer, 2) == 13
