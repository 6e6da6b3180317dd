"""LiveCodeBench releases: which problems a release holds, and loading them.

LiveCodeBench (``livecodebench/code_generation_lite`` on the Hugging Face hub) ships its
problems as shard files, one per update, and a release is the cumulative set of shards up to
it (``release_v6`` = ``test.jsonl`` + ``test2.jsonl`` + ... + ``test6.jsonl``). Each shard
adds the problems of the contests since the previous one, so a release is, approximately, the
problems whose ``contest_date`` lies in its window (all start in May 2023).

Sources (facts, not code): LiveCodeBench's README, "Dataset Versions" section (windows and
problem counts), and the version-tag to shard-file mapping of the dataset's loading script
``code_generation_lite.py`` (``release_vN`` = ``test.jsonl`` .. ``testN.jsonl``). The window
is the documented month range, first to last day inclusive.

Where the problems come from decides how exact a release is:

* the hub, or ``--dataset DIR`` holding the shard files: exactly the release's shards;
* ``--dataset FILE`` (one file with everything, e.g. a merged export): the release's date
  window. Shards overlap a little at their edges (a shard can hold a few problems dated before
  the previous shard's last one), so the window can differ from the shard set by a few
  problems near a boundary; the command says so when it is used.

``--start-date``/``--end-date`` (``YYYY-MM-DD``, both inclusive, whole days) narrow the
selection further, as LiveCodeBench's ``compute_scores`` does; ``--platform`` and
``--difficulty`` select by those fields (case-insensitive).

The hub path needs ``huggingface_hub`` (installed with ``datasets``). It downloads the shard
files themselves rather than calling ``datasets.load_dataset(..., version_tag=...)``: that
call runs the dataset's loading script, which ``datasets`` 4 and later no longer execute, and
the script only concatenates these same files. Downloads land in the usual Hugging Face cache,
so a second run (or ``HF_HUB_OFFLINE=1`` with a warm cache) needs no network.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from evaluator.formats import InputError, read_problem_files
from evaluator.formats.errors import BadProblem
from evaluator.problem import Problem

__all__ = [
    "HUB_DATASET",
    "RELEASES",
    "Release",
    "Selection",
    "DatasetUnavailable",
    "parse_release",
    "parse_date",
    "load_problems",
]

HUB_DATASET = "livecodebench/code_generation_lite"
PLATFORMS = ("atcoder", "codeforces", "leetcode")
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True, slots=True)
class Release:
    """One LiveCodeBench release: its shard files and its documented window and size."""

    tag: str
    shards: tuple[str, ...]
    start: dt.date
    end: dt.date  # inclusive
    problems: int  # as documented; a dataset file can differ slightly (see module docstring)


def _shards(n: int) -> tuple[str, ...]:
    return tuple("test.jsonl" if i == 1 else f"test{i}.jsonl" for i in range(1, n + 1))


_MAY_2023 = dt.date(2023, 5, 1)

# Source: LiveCodeBench README, "Dataset Versions" ("problems released between May 2023 and
# <month> containing <n> problems"); shards from code_generation_lite.py's version tags.
#   tag          shards                 contest_date window          problems
#   release_v1   test                   2023-05-01 .. 2024-03-31     400
#   release_v2   test .. test2          2023-05-01 .. 2024-05-31     511
#   release_v3   test .. test3          2023-05-01 .. 2024-07-31     612
#   release_v4   test .. test4          2023-05-01 .. 2024-09-30     713
#   release_v5   test .. test5          2023-05-01 .. 2025-01-31     880
#   release_v6   test .. test6          2023-05-01 .. 2025-04-30     1055
RELEASES: dict[str, Release] = {
    r.tag: r
    for r in (
        Release("release_v1", _shards(1), _MAY_2023, dt.date(2024, 3, 31), 400),
        Release("release_v2", _shards(2), _MAY_2023, dt.date(2024, 5, 31), 511),
        Release("release_v3", _shards(3), _MAY_2023, dt.date(2024, 7, 31), 612),
        Release("release_v4", _shards(4), _MAY_2023, dt.date(2024, 9, 30), 713),
        Release("release_v5", _shards(5), _MAY_2023, dt.date(2025, 1, 31), 880),
        Release("release_v6", _shards(6), _MAY_2023, dt.date(2025, 4, 30), 1055),
    )
}
LATEST = "release_v6"


class DatasetUnavailable(Exception):
    """The problems could not be obtained (hub unreachable, files missing)."""


def parse_release(text: str) -> Release:
    """``v6``, ``release_v6`` or ``release_latest`` (= the newest release in the table)."""
    name = text.strip().lower()
    if name in ("latest", "release_latest"):
        name = LATEST
    if re.fullmatch(r"v\d+", name):
        name = f"release_{name}"
    if name not in RELEASES:
        known = ", ".join(RELEASES)
        raise ValueError(f"unknown release {text!r} (known: {known}, release_latest; or vN)")
    return RELEASES[name]


def parse_date(text: str) -> dt.date:
    """A ``YYYY-MM-DD`` date."""
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a date of the form YYYY-MM-DD") from None


def _contest_day(value: Any) -> dt.date | None:
    """The day of a record's ``contest_date`` (ISO text, or a date/datetime from parquet)."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
        except ValueError:
            try:
                return dt.date.fromisoformat(text[:10])
            except ValueError:
                raise InputError(
                    f"not an ISO date or date-time: {value!r}", field="contest_date"
                ) from None
    if value is None or value == "":
        return None
    raise InputError(f"expected an ISO date string, got {value!r}", field="contest_date")


@dataclass(slots=True)
class Selection:
    """Which problems to grade, and what the loader saw."""

    release: Release | None = None
    start: dt.date | None = None
    end: dt.date | None = None
    platforms: frozenset[str] = frozenset()
    difficulties: frozenset[str] = frozenset()
    by_window: bool = False  # the release was applied by date window, not by shard files
    excluded: set[str] = field(default_factory=set)  # ids read but filtered out
    sources: list[str] = field(default_factory=list)

    def window(self) -> tuple[dt.date | None, dt.date | None]:
        """The effective contest-date bounds (inclusive) of the date filters."""
        start, end = self.start, self.end
        if self.by_window and self.release is not None:
            start = max(filter(None, (start, self.release.start)))
            end = min(filter(None, (end, self.release.end)))
        return start, end

    def admits(self, record: dict[str, Any]) -> bool:
        if self.platforms:
            platform = str(record.get("platform") or "").lower()
            if platform not in self.platforms:
                return False
        if self.difficulties:
            difficulty = str(record.get("difficulty") or "").lower()
            if difficulty not in self.difficulties:
                return False
        start, end = self.window()
        if start is None and end is None:
            return True
        day = _contest_day(record.get("contest_date"))
        if day is None:
            return False  # an undated problem is in no date window
        return (start is None or day >= start) and (end is None or day <= end)

    def describe(self) -> dict[str, Any]:
        start, end = self.window()
        return {
            "release": self.release.tag if self.release else None,
            "release_by": ("date window" if self.by_window else "shard files")
            if self.release
            else None,
            "start_date": start.isoformat() if start else None,
            "end_date": end.isoformat() if end else None,
            "platforms": sorted(self.platforms) or None,
            "difficulties": sorted(self.difficulties) or None,
            "sources": self.sources,
        }


def _read_lcb(
    paths: Iterable[str], selection: Selection, bad: list[BadProblem] | None = None
) -> list[Problem]:
    """Problems from LiveCodeBench record files, filtered before their tests are decoded.
    With ``bad``, records that cannot be converted are listed there instead of raised."""

    def admit(record: dict[str, Any]) -> bool:
        if "question_id" not in record:
            raise InputError("not a LiveCodeBench code_generation_lite record (no 'question_id')")
        if selection.admits(record):
            return True
        if isinstance(record["question_id"], str):
            selection.excluded.add(record["question_id"])
        return False

    problems = read_problem_files(paths, format="livecodebench", admit=admit, bad=bad)
    # an id the selection left out in one shard but admitted in another is not "outside"
    selection.excluded -= {p.id for p in problems}
    selection.excluded -= {b.problem_id for b in bad or () if b.problem_id is not None}
    return problems


_SHARD_SUFFIXES = ("", ".gz")


def _shard_files(directory: Path, names: Sequence[str] | None) -> list[str]:
    """The shard files in ``directory``: the named ones (each as .jsonl or .jsonl.gz), or
    every ``test*.jsonl[.gz]`` in shard order when ``names`` is None."""
    if names is None:
        found = [p for p in directory.iterdir() if re.fullmatch(r"test\d*\.jsonl(\.gz)?", p.name)]

        def order(p: Path) -> int:
            digits = re.sub(r"\D", "", p.name.split(".")[0])
            return int(digits) if digits else 1

        if not found:
            raise DatasetUnavailable(
                f"{directory}: no LiveCodeBench shard files (test.jsonl, test2.jsonl, ...)"
            )
        return [str(p) for p in sorted(found, key=order)]
    files, missing = [], []
    for name in names:
        for suffix in _SHARD_SUFFIXES:
            candidate = directory / f"{name}{suffix}"
            if candidate.is_file():
                files.append(str(candidate))
                break
        else:
            missing.append(name)
    if missing:
        raise DatasetUnavailable(
            f"{directory}: missing shard file(s) {', '.join(missing)} of this release"
        )
    return files


def _hub_host() -> str:
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    return urlparse(endpoint).hostname or "huggingface.co"


def _download_shards(names: Sequence[str]) -> list[str]:
    """The shard files from the hub (or its local cache)."""
    advice = (
        "download the dataset's files (test.jsonl, test2.jsonl, ...) where the hub is "
        "reachable and pass --dataset DIR (or --dataset FILE for one merged file)"
    )
    try:
        from huggingface_hub import hf_hub_download, try_to_load_from_cache
    except ImportError:
        raise DatasetUnavailable(
            f"loading {HUB_DATASET} needs the 'huggingface_hub' package; or {advice}"
        ) from None
    cached: list[str] = []
    for name in names:
        hit = try_to_load_from_cache(HUB_DATASET, name, repo_type="dataset")
        if not isinstance(hit, str):
            break
        cached.append(hit)
    else:
        return cached
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    if not offline:
        host = _hub_host()
        try:
            socket.getaddrinfo(host, 443)
        except OSError as exc:  # fail at once instead of after the client's retries
            raise DatasetUnavailable(
                f"cannot reach the Hugging Face hub ({host}: {exc.strerror or exc}) to load "
                f"{HUB_DATASET}; {advice}"
            ) from None
    paths = []
    for name in names:
        try:
            paths.append(hf_hub_download(HUB_DATASET, name, repo_type="dataset"))
        except Exception as exc:  # network, offline mode, missing file, auth...
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            hint = " (HF_HUB_OFFLINE is set and it is not cached)" if offline else ""
            raise DatasetUnavailable(
                f"cannot load {name} of {HUB_DATASET} from the Hugging Face hub{hint}: "
                f"{reason[:200]}; {advice}"
            ) from None
    return paths


def load_problems(
    dataset: str | None, selection: Selection, bad: list[BadProblem] | None = None
) -> list[Problem]:
    """The selected problems, from ``dataset`` (a file or a shard directory) or the hub.

    Raises :class:`DatasetUnavailable` when the problems cannot be obtained and
    :class:`InputError` for bad records (with ``bad``: records that cannot be converted are
    appended there instead, the others are read).
    """
    release = selection.release
    if dataset is None:
        names = release.shards if release else RELEASES[LATEST].shards
        paths = _download_shards(names)
        selection.sources = [f"hf://datasets/{HUB_DATASET}/{n}" for n in names]
    elif Path(dataset).is_dir():
        paths = _shard_files(Path(dataset), release.shards if release else None)
        selection.sources = paths
    elif Path(dataset).is_file():
        paths = [dataset]
        selection.sources = paths
        selection.by_window = release is not None
    else:
        raise DatasetUnavailable(f"{dataset}: no such file or directory")
    return _read_lcb(paths, selection, bad)
