"""The harness wipes its own copies of a test's input (evaluator/sandbox/inside/wipe.py): the
text it decoded and the strings of the arguments nobody else holds; never an object the
program kept, an interned string, or a shared one-character string."""

from __future__ import annotations

import json
import sys

from evaluator.sandbox.inside import wipe


def _fresh(text: str) -> str:
    return "".join(list(text))  # a new str object with the same characters


def test_unshared_argument_strings_are_wiped_at_any_depth():
    args = json.loads('["SECRET-a1", ["SECRET-b2", {"SECRET-k3": "SECRET-v4"}], 5]')
    lengths = [len(args[0]), len(args[1][0])]
    wipe.objects(args)
    assert args[0] == "\0" * lengths[0]
    assert args[1][0] == "\0" * lengths[1]
    key, value = next(iter(args[1][1].items()))
    assert set(key) == {"\0"} and set(value) == {"\0"}
    assert args[2] == 5


def test_what_the_program_kept_is_left_alone():
    args = json.loads('["SECRET-a1", ["SECRET-b2"], "SECRET-c3"]')
    kept_list, kept_string = args[1], args[2]
    interned = sys.intern(args[0])
    wipe.objects(args)
    assert kept_list == ["SECRET-b2"] and kept_string == "SECRET-c3"
    assert interned == "SECRET-a1"


def test_non_ascii_text_and_buffers():
    text = _fresh("caf\u00e9 \u4e2d\u6587 SECRET \U0001f600")
    wipe.text(text)
    assert set(text) == {"\0"}
    data = bytearray(b"SECRET-bytes")
    wipe.buffer(data)
    assert data == bytearray(len(data))


def test_shared_and_tiny_strings_are_never_touched():
    one = "x"
    wipe.objects([one, ""])
    assert one == "x"
    held = _fresh("SECRET-held")
    also = [held]
    wipe.text(held)  # another reference (the list) holds it
    assert held == "SECRET-held" and also == ["SECRET-held"]
