"""Decompression bombs, made in code: small compressed input that inflates to far more.

zlib (and gzip, its container) reaches about 1030:1 on a run of one byte, so each bomb here is
about a thousandth of what it inflates to. The LiveCodeBench bomb is what a crafted row or a
client can send: a valid ``base64(zlib(pickle(json)))`` private-tests value whose one test's
output is ``inflated`` zeros, so that a reader without a bound decodes it whole (and grades a
problem of one huge test) rather than failing early on garbage."""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

__all__ = [
    "MB",
    "gzip_bomb_file",
    "lcb_bomb_row",
    "parquet_bomb_file",
    "parquet_repeated_value_file",
    "run_measured",
    "zeros_compressed",
]

MB = 1 << 20
_CHUNK = b"0" * MB


def _compress_stream(head: bytes, zeros: int, tail: bytes, compressor) -> bytes:
    """``head + b"0" * zeros + tail`` through ``compressor``, a megabyte at a time."""
    parts = [compressor.compress(head)]
    left = zeros
    while left > 0:
        parts.append(compressor.compress(_CHUNK[: min(left, MB)]))
        left -= MB
    parts.append(compressor.compress(tail))
    parts.append(compressor.flush())
    return b"".join(parts)


def zeros_compressed(inflated: int) -> bytes:
    """zlib data of ``inflated`` ``"0"`` bytes."""
    return _compress_stream(b"", inflated, b"", zlib.compressobj(9))


def lcb_private_tests_bomb(inflated: int) -> str:
    """A ``private_test_cases`` value in LiveCodeBench's compressed form that is a valid
    pickle of valid JSON, inflating to about ``inflated`` bytes."""
    head = b'[{"input": "1\\n", "output": "'
    tail = b'", "testtype": "stdin"}]'
    length = len(head) + inflated + len(tail)
    # pickle protocol 4: PROTO 4, BINUNICODE8 <8-byte length> <utf-8 text>, STOP
    pickle_head = b"\x80\x04\x8d" + struct.pack("<Q", length) + head
    data = _compress_stream(pickle_head, inflated, tail + b".", zlib.compressobj(9))
    return base64.b64encode(data).decode("ascii")


def lcb_bomb_row(question_id: str = "bomb", inflated: int = 300 * MB, **extra) -> dict:
    """A LiveCodeBench row whose ``private_test_cases`` inflate to about ``inflated`` bytes
    (300 MB from about 290 KB of zlib, 390 KB of base64)."""
    return {
        "question_id": question_id,
        "public_test_cases": json.dumps([{"input": "1\n", "output": "1\n", "testtype": "stdin"}]),
        "private_test_cases": lcb_private_tests_bomb(inflated),
        "metadata": "{}",
        **extra,
    }


def gzip_bomb_file(path: Path, inflated: int, *, line_before: str = "") -> Path:
    """A ``.jsonl.gz`` file of one JSON line whose string is ``inflated`` zeros (after
    ``line_before``, a line of its own when given): a single line of hundreds of MB."""
    head = (line_before + "\n" if line_before else "").encode() + b'{"question_id": "'
    tail = b'", "public_test_cases": "[]"}\n'
    data = _compress_stream(head, inflated, tail, zlib.compressobj(9, zlib.DEFLATED, 31))
    path.write_bytes(data)
    return path


_MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"\\nPEAK_KB {peak}", file=sys.stderr)
sys.exit(done.returncode)
"""


def run_measured(argv: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, float]:
    """``argv`` run to its end as the only child of a fresh interpreter, and the peak resident
    memory (MB) of it and every process it waited for (``RUSAGE_CHILDREN`` of that
    interpreter: this test process's own children would include earlier tests')."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv], capture_output=True, text=True, **kwargs
    )
    stderr, _, peak = done.stderr.rpartition("\nPEAK_KB ")
    done.stderr = stderr
    return done, int(peak) / 1024


def parquet_bomb_file(path: Path, rows: int = 3, each: int = 96 * MB) -> Path:
    """A LiveCodeBench-shaped parquet file: one fine row in its own row group, then ``rows``
    rows whose ``public_test_cases`` are ``each`` zeros (zstd: a few KB each; its footer
    says so). Written a row at a time: one value in memory at once."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("question_id", pa.string()), ("public_test_cases", pa.string())])
    with pq.ParquetWriter(path, schema, compression="zstd", use_dictionary=False) as writer:
        fine = json.dumps([{"input": "1\n", "output": "1\n", "testtype": "stdin"}])
        writer.write_table(pa.table({"question_id": ["fine"], "public_test_cases": [fine]}))
        for index in range(rows):
            tests = '[{"input": "1\\n", "output": "' + "0" * each + '", "testtype": "stdin"}]'
            row = {"question_id": [f"bomb{index}"], "public_test_cases": [tests]}
            writer.write_table(pa.table(row, schema=schema))
            del tests, row
    return path


def parquet_repeated_value_file(path: Path, rows: int = 300, each: int = MB // 2) -> Path:
    """A parquet file of ``rows`` rows that all hold one random ``each``-byte value through a
    dictionary: its footer shows one value (about the file's size), its rows hold
    ``rows * each`` bytes."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    value = "".join(random.Random(51).choices("0123456789", k=each))
    tests = pa.DictionaryArray.from_arrays(
        pa.array([0] * rows, pa.int32()),
        pa.array([json.dumps([{"input": value, "output": "1\n", "testtype": "stdin"}])]),
    )
    ids = pa.array([f"q{index}" for index in range(rows)])
    pq.write_table(pa.table({"question_id": ids, "public_test_cases": tests}), path)
    return path
