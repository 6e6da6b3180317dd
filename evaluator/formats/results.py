"""Writing results in LiveCodeBench's ``eval_all`` shape."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .record_files import PathLike, dumps_json

__all__ = ["write_lcb_results"]


def write_lcb_results(path: PathLike, results: Iterable[Mapping[str, Any]]) -> None:
    """Write LiveCodeBench ``eval_all``-like results: a JSON list, one object per question.

    Each item of ``results`` needs ``question_id`` and ``graded_list`` (one bool per sample);
    ``pass@1`` defaults to the fraction of ``True`` in ``graded_list`` and ``details`` (one
    dict per sample) to ``[]``. Other keys (``code_list``, ``platform``...) are kept after
    these. The file is replaced atomically so an interrupted run leaves no half-written JSON.
    Raises ``ValueError`` for malformed items: they come from code, not from users.
    """
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(results):
        if "question_id" not in item or "graded_list" not in item:
            raise ValueError(f"results[{index}] needs 'question_id' and 'graded_list'")
        graded = list(item["graded_list"])
        if not all(isinstance(g, bool) for g in graded):
            raise ValueError(f"results[{index}]['graded_list'] must hold only bools")
        details = list(item.get("details") or [])
        pass1 = item.get("pass@1")
        if pass1 is None:
            pass1 = sum(graded) / len(graded) if graded else 0.0
        row: dict[str, Any] = {
            "question_id": item["question_id"],
            "graded_list": graded,
            "pass@1": float(pass1),
            "details": details,
        }
        row.update({k: v for k, v in item.items() if k not in row})
        rows.append(row)
    data = dumps_json(rows, indent=True)
    # Write next to the target and rename: an interrupted run never leaves half a file.
    tmp = f"{os.fspath(path)}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.write(b"\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
