"""Reading raw records (JSON objects) from the file layouts datasets ship in.

Supported, chosen by the file name:

* ``*.jsonl`` (and any unknown suffix): one JSON object per line; blank lines are skipped.
* ``*.jsonl.gz`` / ``*.json.gz`` / any ``*.gz``: the same, gzip-compressed, inflated within
  bounds (:mod:`.inflate`): each line, and the whole file, at most 128 times the compressed
  bytes read for it (a line at least 32 MiB, at most 1 GiB).
* ``*.json``: one JSON array of objects (e.g. LiveCodeBench ``eval_all`` files).
* ``*.parquet``: a table; each row becomes a dict (needs ``pyarrow``). A column chunk whose
  pages inflate past 128 times their compressed size is refused before anything is read, and
  the rows decoded, in all, at most 128 times the file's size.

:func:`read_records` yields ``(position, record)``. For JSONL the position is the 1-based
line number; a JSON array or parquet file has no useful line numbers, so there it is the
1-based record number and :func:`position_unit` says ``"record"``. Errors are
:class:`~evaluator.formats.errors.InputError` naming file and position.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError, json_error_detail, position_unit
from .inflate import InflateBudget, InflateError, check_parquet_sizes

__all__ = ["dumps_json", "loads_json", "parquet_batches", "position_unit", "read_records"]

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


def _is_gzip(path: PathLike) -> bool:
    return str(path).lower().endswith(".gz")


_GZIP_CHUNK = 1 << 20  # bytes inflated at a time


def _gunzipped_chunks(path: PathLike) -> Iterator[tuple[bytes, int]]:
    """A gzip file's inflated bytes, a megabyte at a time (``GzipFile.read(n)`` inflates at
    most ``n``), each with how many compressed bytes were read so far; the whole within
    :func:`~.inflate.inflate_bound` of them, uncapped (:class:`~.inflate.InflateError`)."""
    whole = InflateBudget(cap=None)
    with open(path, "rb") as raw, gzip.GzipFile(fileobj=raw) as inflating:
        while chunk := inflating.read(_GZIP_CHUNK):
            whole.compressed = raw.tell()
            whole.spend(len(chunk))
            yield chunk, whole.compressed


def _gunzipped_lines(path: PathLike) -> Iterator[bytes]:
    """A gzip file's lines, each within its own bound too (:func:`~.inflate.inflate_bound`
    of the compressed bytes read while it was): a line of gigabytes of one byte is refused
    once past its bound, never held whole."""
    line = bytearray()
    budget = InflateBudget()
    started = 0  # compressed bytes read before the line began
    for chunk, read in _gunzipped_chunks(path):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            budget.compressed = read - started
            budget.inflated = len(line)
            budget.spend(end + 1 - start)
            line += chunk[start : end + 1]
            yield bytes(line)
            line.clear()
            started, start = read, end + 1
        budget.compressed = read - started
        budget.inflated = len(line)
        budget.spend(len(chunk) - start)
        line += chunk[start:]
    if line:
        yield bytes(line)


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
    lineno = 0
    try:
        if _is_gzip(path):
            opened: Any = contextlib.closing(_gunzipped_lines(path))
        else:
            opened = open(path, "rb")  # noqa: SIM115 - closed by the with below
        with opened as lines:
            for lineno, raw in enumerate(lines, start=1):
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
    except InflateError as exc:  # in the line after the last one read
        raise InputError(f"gzip data {exc}", path=path, line=lineno + 1) from None
    except (OSError, EOFError, zlib.error) as exc:
        # gzip.BadGzipFile is an OSError; a truncated .gz raises EOFError mid-iteration.
        raise _io_error(path, exc) from None


def _read_json_array(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        if _is_gzip(path):
            data = b"".join(chunk for chunk, _ in _gunzipped_chunks(path))
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except InflateError as exc:
        raise InputError(f"gzip data {exc}", path=path) from None
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


def parquet_batches(
    path: PathLike, columns: list[str] | None = None, parquet: Any = None
) -> Iterator[Any]:
    """A parquet file's record batches (of ``columns``, default all; ``parquet``: the file
    already opened as a ``pyarrow.parquet.ParquetFile``), decoded within bounds: a column
    chunk whose pages inflate past :func:`~.inflate.inflate_bound` of their compressed size
    is an :class:`InputError` naming it and its first row before anything is read, and the
    batches' decoded bytes stay within the bound of the file's size, uncapped (what the
    footer cannot show: a dictionary's value repeated in every row). Raises ``OSError`` and
    pyarrow's own errors for a file it cannot read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    # No read-ahead (pre_buffer reads whole row groups ahead: 2-3x the memory), and
    # batches of about _PARQUET_BATCH_BYTES, sized from the file's own row groups, keep
    # memory bounded whatever a row holds (DeepCoder's and TACO's rows carry tests of
    # megabytes); Arrow's pool gives back what each batch used.
    parquet = parquet if parquet is not None else pq.ParquetFile(path, pre_buffer=False)
    metadata = parquet.metadata
    refused = check_parquet_sizes(metadata)
    if refused is not None:
        row, column, why = refused
        raise InputError(why, path=path, line=row + 1, unit="record", field=column)
    rows, size = metadata.num_rows, 0
    for group in range(metadata.num_row_groups):
        size += metadata.row_group(group).total_byte_size
    per_row = size / rows if rows else 1
    batch = int(max(1, min(256, _PARQUET_BATCH_BYTES // max(per_row, 1))))
    decoded = InflateBudget(cap=None)
    decoded.compressed = os.path.getsize(path)
    pool = pa.default_memory_pool()
    first = 1
    for record_batch in parquet.iter_batches(batch_size=batch, columns=columns):
        # Values a dictionary (or a run) repeats count as what they become: the rows
        # (to_pylist) hold every repetition.
        plain = pa.schema([f.with_type(_plain_type(pa, f.type)) for f in record_batch.schema])
        if plain != record_batch.schema:
            record_batch = record_batch.cast(plain)
        try:
            decoded.spend(record_batch.nbytes)
        except InflateError as exc:
            raise InputError(f"decoding {exc}", path=path, line=first, unit="record") from None
        first += record_batch.num_rows
        yield record_batch
        del record_batch
        pool.release_unused()


def _plain_type(pa: Any, kind: Any) -> Any:
    """``kind`` with every dictionary and run-end-encoded type, at any depth, replaced by the
    type of its values (Arrow cannot cast the latter: such a file is refused, as one it
    cannot read, rather than expanded unmeasured)."""
    types = pa.types
    if types.is_dictionary(kind) or types.is_run_end_encoded(kind):
        return _plain_type(pa, kind.value_type)
    if types.is_struct(kind):
        return pa.struct([field.with_type(_plain_type(pa, field.type)) for field in kind])
    if types.is_map(kind):
        key, item = kind.key_field, kind.item_field
        return pa.map_(
            key.with_type(_plain_type(pa, key.type)), item.with_type(_plain_type(pa, item.type))
        )
    lists = {
        types.is_list: pa.list_,
        types.is_large_list: pa.large_list,
        types.is_list_view: pa.list_view,
        types.is_large_list_view: pa.large_list_view,
    }
    for is_kind, make in lists.items():
        if is_kind(kind):
            return make(kind.value_field.with_type(_plain_type(pa, kind.value_type)))
    if types.is_fixed_size_list(kind):
        field = kind.value_field.with_type(_plain_type(pa, kind.value_type))
        return pa.list_(field, kind.list_size)
    return kind


def _iter_parquet_rows(path: PathLike) -> Iterable[dict[str, Any]]:
    try:
        import pyarrow  # noqa: F401 - said missing here, as one line
    except ImportError:  # pragma: no cover - pyarrow is a dependency of `datasets`
        raise InputError("reading .parquet files needs the 'pyarrow' package", path=path)
    try:
        for record_batch in parquet_batches(path):
            rows = record_batch.to_pylist()
            del record_batch
            yield from rows
    except InputError:
        raise
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
