"""Bounded decompression: what a dataset row, a file or a client sends is inflated a piece at a
time and refused past its bound, never inflated whole and measured afterwards.

zlib (and gzip, its container) turns about 1 KB into 1 MB of one repeated byte: without a
bound, a 400 KB LiveCodeBench row inflated to 400 MB and a 64 MiB request body could ask for
some 64 GB. Each compressed thing may inflate to:

* :data:`INFLATE_FACTOR` times its own compressed size, at least :data:`INFLATE_FLOOR`, at
  most :data:`INFLATE_CAP` (:func:`inflate_bound`). Real data is far below the factor:
  LiveCodeBench's compressed private tests inflate 2-4x (random numbers; a row of 24 KB of
  zlib holds 58 KB of tests, a whole release about twice its compressed size), a gzipped
  dataset 3-10x; the floor lets a small row whose tests repeat one line go through, and the
  cap is past the largest real rows (some hundreds of MB).
* Where several things are inflated for one request (a service's body), they share one
  :class:`InflateBudget` as well (:func:`shared_budget`): a request's compressed tests
  inflate, in all, to the same bound over their summed compressed size.

A file streamed line by line (a ``.jsonl.gz``) has no cap in all (datasets of gigabytes are
read so), but each line is bounded as one thing, and the whole by the factor over what was
read. A parquet file: see :func:`check_parquet_sizes`.
"""

from __future__ import annotations

import contextvars
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "INFLATE_CAP",
    "INFLATE_FACTOR",
    "INFLATE_FLOOR",
    "InflateBudget",
    "InflateError",
    "check_parquet_sizes",
    "inflate_bound",
    "inflate_zlib",
    "shared_budget",
]

INFLATE_FACTOR = 128  # bytes inflated per compressed byte (zlib's best is about 1030)
INFLATE_FLOOR = 32 << 20  # bytes any one thing may inflate to, however small
INFLATE_CAP = 1 << 30  # bytes one thing (or one request's things) may inflate to, at most

_CHUNK = 1 << 20  # bytes inflated at a time


class InflateError(ValueError):
    """Compressed input that inflates past its bound (the message says the bound)."""


def inflate_bound(compressed: int, cap: int | None = INFLATE_CAP) -> int:
    """How many bytes ``compressed`` bytes may inflate to (``cap`` None: no cap)."""
    bound = max(INFLATE_FLOOR, INFLATE_FACTOR * compressed)
    return bound if cap is None else min(bound, cap)


def _size(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count / 1024:.1f} KiB"


class InflateBudget:
    """Bytes inflated so far against what the compressed bytes seen so far allow
    (:func:`inflate_bound` of their sum, ``cap`` as there)."""

    def __init__(self, cap: int | None = INFLATE_CAP, scope: str = "") -> None:
        self.cap = cap
        self.scope = scope  # what is counted, when more than the thing refused
        self.compressed = 0
        self.inflated = 0

    @property
    def allowed(self) -> int:
        return inflate_bound(self.compressed, self.cap)

    def spend(self, inflated: int) -> None:
        """Count ``inflated`` more bytes; :class:`InflateError` once past the bound."""
        self.inflated += inflated
        if self.inflated > self.allowed:
            cap = "" if self.cap is None else f", at most {_size(self.cap)}"
            raise InflateError(
                f"inflates past {_size(self.allowed)}{self.scope} (the bound: {INFLATE_FACTOR} times "
                f"{_size(self.compressed)} compressed, at least {_size(INFLATE_FLOOR)}{cap}): "
                "refused as a decompression bomb"
            )


_SHARED: contextvars.ContextVar[InflateBudget | None] = contextvars.ContextVar(
    "evaluator_inflate_budget", default=None
)


@contextmanager
def shared_budget(cap: int = INFLATE_CAP) -> Iterator[InflateBudget]:
    """Every :func:`inflate_zlib` inside the block (this context: the thread, or the task and
    the threads it hands work to with ``asyncio.to_thread``) also counts against one budget,
    so that one request's compressed fields together stay within one bound."""
    budget = InflateBudget(cap, scope=" with what else this request inflated")
    token = _SHARED.set(budget)
    try:
        yield budget
    finally:
        _SHARED.reset(token)


def inflate_zlib(data: bytes, wbits: int = zlib.MAX_WBITS) -> bytes:
    """``data`` inflated (zlib's ``decompress``), a megabyte at a time, within its own bound
    and the shared budget's (:func:`shared_budget`) when there is one. Raises
    :class:`InflateError` past a bound, ``zlib.error`` for data that is not zlib's or ends
    early."""
    budgets = [InflateBudget()]
    shared = _SHARED.get()
    if shared is not None:
        budgets.append(shared)
    for budget in budgets:
        budget.compressed += len(data)
    decompressor = zlib.decompressobj(wbits)
    chunks: list[bytes] = []
    tail = data
    while not decompressor.eof:
        chunk = decompressor.decompress(tail, _CHUNK)
        tail = decompressor.unconsumed_tail
        if not chunk and not tail:
            raise zlib.error("incomplete or truncated stream")
        for budget in budgets:
            budget.spend(len(chunk))
        chunks.append(chunk)
    return b"".join(chunks)


def check_parquet_sizes(metadata: Any) -> tuple[int, str, str] | None:
    """The first column chunk of a parquet file (its ``pyarrow`` ``FileMetaData``) whose
    pages inflate past :func:`inflate_bound` of their compressed size, as ``(its first row,
    0-based; its column; why)``; None when every chunk is within its bound. Checked before
    any row group is read, so that an honest bomb's pages are never inflated. What the footer
    cannot show (page headers that contradict it, a dictionary's value repeated in every row)
    the reader bounds by the rows' decoded size (:func:`inflate_bound` of the file's size,
    uncapped), checked after each batch: there one batch may overshoot before the refusal."""
    first_row = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            column = row_group.column(index)
            bound = inflate_bound(column.total_compressed_size)
            if column.total_uncompressed_size > bound:
                return (
                    first_row,
                    column.path_in_schema,
                    (
                        f"row group {group}'s pages inflate to "
                        f"{_size(column.total_uncompressed_size)} from "
                        f"{_size(column.total_compressed_size)}, past its bound of {_size(bound)}: "
                        "refused as a decompression bomb"
                    ),
                )
        first_row += row_group.num_rows
    return None
