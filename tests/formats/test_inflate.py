"""Bounded inflation (:mod:`evaluator.formats.inflate`): the bound is checked while the data
inflates, a megabyte at a time, and a request's fields share one bound (issue 51)."""

from __future__ import annotations

import zlib

import pytest

from evaluator.formats.inflate import (
    INFLATE_CAP,
    INFLATE_FACTOR,
    INFLATE_FLOOR,
    InflateError,
    inflate_zlib,
    shared_budget,
)
from tests.bombs import MB, zeros_compressed


def test_the_bounds_are_what_the_docs_say():
    assert (INFLATE_FACTOR, INFLATE_FLOOR, INFLATE_CAP) == (128, 32 * MB, 1024 * MB)


def test_inflation_stops_at_the_bound_not_after():
    """The bound is checked as the data inflates: a stream of 1 GB of zeros (1 MB of zlib)
    is refused having inflated its bound and a megabyte, never the gigabyte."""
    data = zeros_compressed(1024 * MB)
    with pytest.raises(InflateError, match=r"inflates past 12\d\.\d MiB"):
        inflate_zlib(data)
    assert inflate_zlib(zeros_compressed(INFLATE_FLOOR)) == b"0" * INFLATE_FLOOR  # the floor


def test_a_truncated_stream_is_a_zlib_error():
    with pytest.raises(zlib.error):
        inflate_zlib(zlib.compress(b"x" * 1000)[:-8])


def test_one_request_shares_one_bound():
    """Inside :func:`shared_budget`, small fields each under their own floor add up to one
    bound: many rows of one field each cannot take the floor many times over."""
    small = zeros_compressed(4 * MB)
    with shared_budget(cap=10 * MB):
        inflate_zlib(small)
        inflate_zlib(small)
        with pytest.raises(InflateError, match="with what else this request inflated"):
            inflate_zlib(small)
    inflate_zlib(small)  # outside the block: only the field's own bound
