"""Our own plain problem schema as a source: the ``ours`` format, one JSON object per problem,
one per line in a JSONL file.

The schema, its fields and its checks are :mod:`evaluator.formats.schema` (the one place a
:class:`~evaluator.problem.Problem` becomes a record and back); this module registers it as
a format, whose records' statement is ``metadata.question_content`` (else ``prompt``) and
whose reference solutions are ``metadata.reference_solution``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..fields import solutions_of
from ..registry import Format, solutions
from ..schema import PROBLEM_FIELDS, read_ours

__all__ = ["FORMAT", "problem_from_ours"]


def problem_from_ours(
    record: Mapping[str, Any], *, path: str | None = None, line: int | None = None
) -> Problem:
    """Convert one record of our schema (:mod:`evaluator.formats.schema`) into a
    :class:`Problem`.

    ``path`` and ``line`` only locate errors; the readers pass them.
    """
    return FORMAT.problem(record, path=path, line=line)


FORMAT = Format(
    name="ours",
    title="ours",
    shape="'id' with 'harness'",
    recognise=lambda record: "id" in record and "harness" in record,
    read=read_ours,
    fields=PROBLEM_FIELDS,
    rank=10,
    id_keys=("id",),
    statement=lambda record: str(
        (record.get("metadata") or {}).get("question_content") or record.get("prompt") or ""
    ),
    references=lambda record: solutions(
        solutions_of((record.get("metadata") or {}).get("reference_solution"))
    ),
    aliases=("microcoder",),
)
