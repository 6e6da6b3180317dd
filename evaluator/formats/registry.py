"""The problem formats: one module of :mod:`evaluator.formats.sources` per source defines its
``FORMAT``.

A :class:`Format` is everything the grader knows of one source's records: how a record of it
is recognised (by its keys), its reader to a :class:`~evaluator.problem.Problem` (with the
source's own grading rule as the problem's judge, ``docs/datasets.md``), the fields that
reader looks at (what the reward's cache hashes), a record's statement and reference
solutions (for ``mcevaluate dataset``). Every entry point asks this registry: ``grade
--problems`` and ``--format``, ``dataset convert --from``/``check``/``filter``, the service's
``/grade``, :class:`~evaluator.reward.CodeReward`'s dataset columns and verl's
``ground_truth``; no other module decodes a problem record. A new source is one more module
of ``sources/`` defining ``FORMAT`` (and its tests); nothing else names the formats. Lookups::

    formats()                   # every format, by name, in the order detection tries them
    get_format("taco")          # by name; ValueError naming the known ones
    detect_format(record)       # the first format whose keys the record has; InputError if none
    problem_from_record(record) # detect, then read (InputError naming the field)
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..problem import Problem
from .errors import InputError
from .fields import describe_type
from .statement import apply_statement

__all__ = [
    "Format",
    "Reader",
    "Solution",
    "detect_format",
    "file_fallback_id",
    "formats",
    "get_format",
    "problem_from_record",
    "solutions",
    "take_id",
]

Reader = Callable[[Mapping[str, Any], str | None], Problem]
"""``read(record, fallback_id)``: the problem of one record. ``fallback_id`` is the id of a
record that names none (:func:`take_id`): a file's reader passes ``<format>-<index>`` for a
format without an id field and None for one with (whose records must then name theirs); the
reward, which needs no ids, passes one always. Raises :class:`InputError` naming the field."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A program a source ships with a problem (a reference that must pass, or a known-wrong
    one that must fail), and its language (a name of :mod:`evaluator.languages`)."""

    code: str
    language: str = "python"


def solutions(codes: list[str], language: str = "python") -> list[Solution]:
    r"""``codes`` as :class:`Solution`\ s of one language."""
    return [Solution(code, language) for code in codes]


def _no_text(record: Mapping[str, Any]) -> str:
    return ""


def _no_solutions(record: Mapping[str, Any]) -> list[Solution]:
    return []


@dataclass(frozen=True, slots=True)
class Format:
    """One source's records. ``name`` is what ``--format`` and ``dataset convert --from``
    take; ``title`` names the source in messages and docs; ``shape`` says in a few words
    which keys recognise it (the "not a known problem record" message lists them).

    ``recognise(record)`` must look at keys only (it runs on every record of a file whose
    format is not yet known, and on every reward row); ``rank`` orders the tries, specific
    shapes first (a record with ``tests`` and ``problem`` is DeepCoder's before it is a
    plain ``tests`` record). ``fields`` are the keys ``read`` can look at: the reward hashes
    only these for its cache (a problem's long statement or solutions are never hashed).
    ``references``/``wrong_references`` are the source's own solutions that must pass, and
    must fail (``dataset check``); ``statement`` the problem text (``dataset filter``'s
    deduplication). A problem whose solutions must be in one language (PrimeIntellect's
    ``verification_info.language``) says so as ``metadata["language"]``. ``id_keys`` are the keys that name a record (the first present wins);
    in a file, a record of a format without one (or whose ids are not ``id_required``) that
    names none is named by its position (:func:`file_fallback_id`)."""

    name: str
    title: str
    shape: str
    recognise: Callable[[Mapping[str, Any]], bool]
    read: Reader
    fields: tuple[str, ...]
    rank: int = 50
    id_keys: tuple[str, ...] = ()
    id_required: bool = True
    statement: Callable[[Mapping[str, Any]], str] = _no_text
    references: Callable[[Mapping[str, Any]], list[Solution]] = _no_solutions
    wrong_references: Callable[[Mapping[str, Any]], list[Solution]] = _no_solutions
    aliases: tuple[str, ...] = field(default=())
    # Tests a source ships apart from its records (open-r1/codeforces' generated tests, one
    # parquet file per contest): ``attach_tests(problem, directory)`` returns the problem
    # with them added (the CLI's ``--tests DIR``); None: the format has none.
    attach_tests: Callable[[Problem, str], Problem] | None = None

    def problem(
        self, record: Mapping[str, Any], fallback_id: str | None = None, **where: Any
    ) -> Problem:
        """``read`` with the error located (``where``: ``path``, ``line``, ``unit``)."""
        if not isinstance(record, Mapping):
            raise InputError(f"expected a JSON object, got {type(record).__name__}").located(
                **where
            )
        try:
            return self.judged(self.read(record, fallback_id), record)
        except InputError as exc:
            raise exc.located(**where) from None

    def judged(self, problem: Problem, record: Mapping[str, Any]) -> Problem:
        """``problem``, read from ``record``, judged as the record's statement says (the
        source's rule where it says nothing; the record's own ``judge`` over both): see
        :mod:`evaluator.formats.statement`."""
        explicit = record.get("judge") is not None
        problem = apply_statement(problem, self.statement(record), explicit=explicit)
        if record.get("needs_checker") is True:  # marked so (``dataset check --unchecked flag``)
            problem.needs_checker = True
        return problem


@functools.cache
def formats() -> dict[str, Format]:
    """Every format, by name, in detection order: the modules of
    :mod:`evaluator.formats.sources` that define ``FORMAT``."""
    package = importlib.import_module(f"{__name__.rsplit('.', 1)[0]}.sources")
    found: list[Format] = []
    for module in pkgutil.iter_modules(package.__path__):
        value = getattr(
            importlib.import_module(f"{package.__name__}.{module.name}"), "FORMAT", None
        )
        if isinstance(value, Format):
            found.append(value)
        elif isinstance(value, tuple):  # a module may define several related formats
            found.extend(item for item in value if isinstance(item, Format))
    found.sort(key=lambda fmt: (fmt.rank, fmt.name))
    return {fmt.name: fmt for fmt in found}


@functools.cache
def _by_alias() -> dict[str, Format]:
    table: dict[str, Format] = {}
    for fmt in formats().values():
        for alias in (fmt.name, *fmt.aliases):
            table[alias.lower()] = fmt
    return table


def get_format(name: str) -> Format:
    """The format called ``name`` (or one of its aliases, any case). Raises ``ValueError``
    naming the known formats."""
    found = _by_alias().get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown format {name!r} (known: {', '.join(formats())})")
    return found


def detect_format(record: Mapping[str, Any]) -> Format:
    """The format of ``record``, from its keys. Raises :class:`InputError` listing what each
    known format looks like when none recognises it."""
    if isinstance(record, Mapping):
        for fmt in formats().values():
            if fmt.recognise(record):
                return fmt
    present = ", ".join(sorted(map(str, record))) if isinstance(record, Mapping) else "none"
    shapes = "; ".join(f"{fmt.title}: {fmt.shape}" for fmt in formats().values())
    raise InputError(
        f"not a known problem record (fields present: {present or 'none'}; expected one of "
        f"{shapes}; or name the format with --format)"
    )


def problem_from_record(
    record: Mapping[str, Any], *, format: str | Format | None = None, fallback_id: str | None = None
) -> Problem:
    """The problem of one record of any known format (detected when ``format`` is None),
    named as the first record of a file would be when it names none. Raises
    :class:`InputError` naming the field."""
    if isinstance(format, str):
        format = get_format(format)
    fmt = format or detect_format(record)
    return fmt.problem(record, fallback_id or file_fallback_id(fmt, 0))


def file_fallback_id(fmt: Format, index: int) -> str | None:
    """The id of the ``index``-th record (0-based) of a file when it names none:
    ``<format>-<index>``, or None where the format's records must name theirs."""
    return None if fmt.id_keys and fmt.id_required else f"{fmt.name}-{index}"


def take_id(
    record: Mapping[str, Any],
    keys: tuple[str, ...],
    fallback: str | None,
    *,
    numbers: bool = False,
) -> str:
    """The id a record names under the first of ``keys`` it has (a non-empty string, or with
    ``numbers`` an integer, such as APPS's ``problem_id``), else ``fallback``; an
    :class:`InputError` naming the first key when there is neither."""
    for key in keys:
        value = record.get(key)
        if value is None:
            continue
        if isinstance(value, str) and value.strip():
            return value
        if numbers and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise InputError(f"expected a string, got {describe_type(value)}", field=key)
    if fallback is not None:
        return fallback
    if not keys:
        raise InputError("the record names no id and none was given")
    if isinstance(record.get(keys[0]), str):
        raise InputError("must not be empty", field=keys[0])
    present = ", ".join(sorted(map(str, record))) or "none"
    raise InputError(f"missing required field (fields present: {present})", field=keys[0])
