"""Reading raw records (JSON objects) from the file layouts datasets ship in.

Supported, chosen by the file name:

* ``*.jsonl`` (and any unknown suffix): one JSON object per line; blank lines are skipped.
* ``*.jsonl.gz`` / ``*.json.gz`` / any ``*.gz``: the same, gzip-compressed.
* ``*.json``: one JSON array of objects (e.g. LiveCodeBench ``eval_all`` files).
* ``*.parquet``: a table; each row becomes a dict (needs ``pyarrow``).

:func:`read_records` yields ``(position, record)``. For JSONL the position is the 1-based
line number; a JSON array or parquet file has no useful line numbers, so there it is the
1-based record number and :func:`position_unit` says ``"record"``. Errors are
:class:`~evaluator.formats.errors.InputError` naming file and position.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .errors import InputError, json_error_detail, position_unit

__all__ = ["dumps_json", "loads_json", "position_unit", "read_records"]

PathLike = str | os.PathLike[str]


def loads_json(data: bytes | str) -> Any:
    """Parse one JSON document: orjson for speed, the standard library as the fallback.

    Real datasets hold non-standard JSON that orjson refuses: MBPP+ inputs contain
    ``Infinity``, ``-Infinity`` and ``NaN`` (Python's ``json`` writes them). When orjson fails
    the standard parser decides, and its error (``Expecting value``...) is the one reported.
    Raises ``ValueError`` (``json.JSONDecodeError`` with ``msg``/``pos`` for syntax errors).
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    if isinstance(data, bytes | bytearray | memoryview):
        # Decode ourselves so a bad byte is reported as such, not as a JSON syntax error.
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"not UTF-8 text: byte {exc.start} is {bytes(data)[exc.start]:#04x}"
            ) from None
    return json.loads(data)


def dumps_json(value: Any, *, indent: bool = False) -> bytes:
    """``value`` as JSON bytes, for any value a reader or the grader produced: orjson for
    speed; where it refuses (lone surrogates from a ``"\\ud800"`` escape in an input file,
    integers beyond 64 bits, NaN kept as ``NaN``) the standard library writes it, escaping
    what is not UTF-8 (``\\ud800``), so no result is ever lost to its own text. Values of
    other types (dates from parquet, NumPy scalars) are written by orjson or as ``str``."""
    option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, option=option)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        pass
    text = json.dumps(value, indent=2 if indent else None, default=_as_text, allow_nan=True)
    return text.encode("ascii")


def _as_text(value: Any) -> Any:
    """What :func:`dumps_json` writes for a value the standard library cannot: NumPy data
    as its ``tolist()``, anything else as ``str``."""
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and type(value).__module__ == "numpy":
        return tolist()
    return str(value)


def _layout(path: PathLike) -> str:
    """``"jsonl"``, ``"json"`` or ``"parquet"`` for ``path``."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    last = suffixes[-1] if suffixes else ""
    if last == ".parquet":
        return "parquet"
    if last == ".json":
        return "json"
    # .jsonl, .ndjson and anything unknown: line-delimited is the common case for datasets.
    return "jsonl"


def _open_binary(path: PathLike) -> BinaryIO:
    if str(path).lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _io_error(path: PathLike, exc: BaseException) -> InputError:
    """Turn an OS or decompression failure into a one-line message."""
    if isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror
    else:
        reason = str(exc) or type(exc).__name__
    return InputError(f"cannot read file: {reason}", path=path)


def _check_object(record: Any, path: PathLike, pos: int, unit: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        kind = type(record).__name__ if record is not None else "null"
        raise InputError(f"expected a JSON object, got {kind}", path=path, line=pos, unit=unit)
    return record


def _read_jsonl(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with _open_binary(path) as fh:
            for lineno, raw in enumerate(fh, start=1):
                if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]  # UTF-8 BOM written by some Windows editors
                if not raw.strip():
                    continue
                try:
                    record = loads_json(raw)
                except ValueError as exc:
                    raise InputError(
                        f"not valid JSON ({json_error_detail(exc)})", path=path, line=lineno
                    ) from None
                yield lineno, _check_object(record, path, lineno, "line")
    except (OSError, EOFError, zlib.error) as exc:
        # gzip.BadGzipFile is an OSError; a truncated .gz raises EOFError mid-iteration.
        raise _io_error(path, exc) from None


def _read_json_array(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with _open_binary(path) as fh:
            data = fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise _io_error(path, exc) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        document = loads_json(data)
    except ValueError as exc:
        # Report the text line so the user can jump to it.
        line = getattr(exc, "lineno", None)
        raise InputError(
            f"not valid JSON ({json_error_detail(exc)})", path=path, line=line
        ) from None
    if not isinstance(document, list):
        raise InputError(
            "expected a JSON array of records "
            "(a file with one JSON object per line should be named .jsonl)",
            path=path,
        )
    for index, record in enumerate(document, start=1):
        yield index, _check_object(record, path, index, "record")


_PARQUET_BATCH_BYTES = 8 << 20  # bytes of rows decoded at a time (tests of MBs per row)


def _iter_parquet_rows(path: PathLike) -> Iterable[dict[str, Any]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is a dependency of `datasets`
        raise InputError("reading .parquet files needs the 'pyarrow' package", path=path)
    try:
        # No read-ahead (pre_buffer reads whole row groups ahead: 2-3x the memory), and
        # batches of about _PARQUET_BATCH_BYTES, sized from the file's own row groups, keep
        # memory bounded whatever a row holds (DeepCoder's and TACO's rows carry tests of
        # megabytes); Arrow's pool gives back what each batch used.
        parquet = pq.ParquetFile(path, pre_buffer=False)
        metadata = parquet.metadata
        rows, size = metadata.num_rows, 0
        for group in range(metadata.num_row_groups):
            size += metadata.row_group(group).total_byte_size
        per_row = size / rows if rows else 1
        batch = int(max(1, min(256, _PARQUET_BATCH_BYTES // max(per_row, 1))))
        pool = pa.default_memory_pool()
        for record_batch in parquet.iter_batches(batch_size=batch):
            rows = record_batch.to_pylist()
            del record_batch
            pool.release_unused()
            yield from rows
    except OSError as exc:
        raise _io_error(path, exc) from None
    except Exception as exc:  # pyarrow raises ArrowInvalid etc. for corrupt files
        raise InputError(f"cannot read parquet file: {exc}", path=path) from None


def _read_parquet(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    yield from enumerate(_iter_parquet_rows(path), start=1)


def read_records(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(position, record)`` for each JSON object in ``path``.

    The layout comes from the file name (see the module docstring). Raises
    :class:`InputError` for unreadable files, malformed JSON (with its line) and records that
    are not JSON objects. The file is read lazily except for JSON arrays.
    """
    layout = _layout(path)
    if layout == "parquet":
        return _read_parquet(path)
    if layout == "json":
        return _read_json_array(path)
    return _read_jsonl(path)
