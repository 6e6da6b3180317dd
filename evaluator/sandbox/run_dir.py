"""The worker's run directory, as the fork server keeps it: the children's working directory
(and their /tmp, where the template could mount one), emptied by the server, never a child,
and put back as made; a test's input file and given files written there before it starts,
its output file and fetched files read back once it has ended (regular files only, never a
link followed), and what a program's files there hold counted for the watchdog."""

from __future__ import annotations

import base64
import json
import os
import time
from typing import Any

from evaluator.sandbox import template
from evaluator.sandbox.files.clearing import CLEAR_ENTRIES, CLEAR_SECONDS, Unclean, clear_dir
from evaluator.sandbox.files.marks import Marks
from evaluator.sandbox.files.run_files import (
    OVER_LIMIT,
    is_plain_name,
    is_relative_path,
    read_path,
    read_regular,
    write_file,
    write_path,
)
from evaluator.sandbox.files.sizes import tree_bytes


class RunDir:
    """The run directory under ``tmp_root`` (made by the server's ``main``), opened once.
    Test files are made and read through its descriptor: a program that renamed the
    directory and left a symlink in its place cannot point the server elsewhere.

    Nothing a program can mark is reused from one child to the next as it left it: the
    directory's own attributes are put back (and checked) whenever it is emptied
    (:meth:`clean`). What cannot be put back is kept in ``unclean``: the server then retires
    once the current test's result is out."""

    def __init__(self, config: dict[str, Any], template_info: dict[str, Any]) -> None:
        tmp_root: str = config["tmp_root"]
        self.path = os.path.join(tmp_root, "run")  # reused: put back after each child
        self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.marks = Marks(self.fd)
        self.staged = 0  # bytes of the test's input and given files (not the program's)
        # The children's /tmp (template._private_tmp), where the template could mount it:
        # emptied and counted with the run dir, the mount points it keeps for paths left in
        # the host's /tmp passed over.
        self.tmp_fd: int | None = None
        self.tmp_keep = frozenset(template_info.get("tmp_keep") or ())
        if template_info.get("private_tmp"):
            tmp_dir = os.path.join(tmp_root, template.TMP_DIR)
            self.tmp_fd = os.open(tmp_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self.tmp_marks = Marks(self.tmp_fd)
        self.dirty = False  # a child may have written in it since it was emptied
        self.unclean: str | None = None  # why it could not be put back: retire
        self.clear_limits = (
            config.get("clear_entries", CLEAR_ENTRIES),
            config.get("clear_seconds", CLEAR_SECONDS),
        )
        self.counted = 0  # the last count of its files ...
        self.next_walk = 0.0  # ... and when they are counted again (see files_held)

    def clean(self) -> None:
        """Empty the run dir (always listed: a coarse mtime can miss a quick change) and put
        its own attributes back as it was made (:class:`~evaluator.sandbox.files.marks.Marks`:
        mode, owner, times, extended attributes, inode flags...), checked. The walk is bounded
        (``clear_limits``) and cannot be defeated by a deep or odd tree. What cannot be put
        back (a tree past the bounds; on ext4, a directory a program made grow, which never
        shrinks) is kept in ``unclean``: once the current test's result is out the server
        retires (its _put_input, _end_job) and the pool gives the next test a fresh worker."""
        why = put_back(self.fd, self.marks, self.clear_limits)
        if why is not None and self.unclean is None:
            self.unclean = f"its run directory could not be put back: {why}"
        if self.tmp_fd is not None:
            why = put_back(self.tmp_fd, self.tmp_marks, self.clear_limits, self.tmp_keep)
            if why is not None and self.unclean is None:
                self.unclean = f"its /tmp could not be put back: {why}"
        self.dirty = False
        self.staged = 0
        self.counted, self.next_walk = 0, 0.0

    def stage(self, job: dict[str, Any], data: bytes) -> None:
        """The test's files written in the emptied run dir: with ``input_file``, that file
        holding ``data`` (the test's input); the job's given files. What they hold is the
        test's, not the program's to pay (``staged``)."""
        name = job.get("input_file")
        self.staged = 0 if name is None else write_file(self.fd, name, data)
        for path, blob in (job.get("files") or {}).items():
            self.staged += write_path(self.fd, path, blob)

    def files_held(self, room: int) -> int:
        """Bytes the program's files hold in the run dir (and the children's /tmp), beyond
        the test's staged files; the count stops past ``room`` more than those. The walk (at
        any depth, each entry a page at least: sandbox/files/sizes.py) takes at most a third
        of the server's time: a tree so big that its walk takes longer than a tick is counted
        every few ticks, the last count standing in between."""
        now = time.monotonic()
        if now >= self.next_walk:
            enough = room + 1 + self.staged
            self.counted = tree_bytes(self.fd, enough)
            if self.tmp_fd is not None and self.counted <= enough:
                self.counted += tree_bytes(self.tmp_fd, enough - self.counted, self.tmp_keep)
            self.next_walk = now + 2 * (time.monotonic() - now)
        return max(0, self.counted - self.staged)  # the input file is the test's

    def with_file_output(self, job, header: dict[str, Any], out: bytes, err: bytes, clean=False):
        """A test's result frames with ``output_file``'s bytes as its stdout (read once the
        program has ended or waits for its next test; what it wrote on fd 1 was read within
        the output limit and is dropped); with ``clean`` (its child is gone) the run dir is
        emptied after. A file that is missing or not a regular file is ``file_error``; one
        over the output limit, an OLE."""
        name = job.get("output_file")
        if name is None and not job.get("fetch_files"):
            return header, out, err
        limit = job["limits"]["output_bytes"]
        try:
            if job.get("fetch_files"):
                header["value"] = self.fetch(job["fetch_files"], job["fetch_bytes"])
            if name is None:
                return header, out, err
            out, why = read_regular(self.fd, name, limit)
        finally:
            if clean:
                self.clean()
        if why == OVER_LIMIT:
            header["limit"] = header.get("limit") or "output"
        elif why == "missing":
            header["file_error"] = f"the program wrote no {name}"
        elif why is not None:
            header["file_error"] = f"{name} is {why}, not a regular file: not read"
        header["stdout_truncated"] = why == OVER_LIMIT or len(out) >= limit
        return header, out, err

    def fetch(self, paths: list[str], budget: int) -> str:
        """``Job.fetch_files`` read back from the run dir (regular files only, never through
        a link: :func:`~evaluator.sandbox.files.run_files.read_path`), ``budget`` bytes in
        all, as the JSON :meth:`RunResult.fetched <evaluator.sandbox.jobs.RunResult.fetched>`
        reads: ``{"files": {path: base64}, "not_read": {path: why}}``."""
        files: dict[str, str] = {}
        not_read: dict[str, str] = {}
        for path in dict.fromkeys(paths):  # a path asked twice is read once
            data, why = read_path(self.fd, path, budget)
            if why is None:
                budget -= len(data)
                files[path] = base64.b64encode(data).decode()
            else:
                not_read[path] = why
        return json.dumps({"files": files, "not_read": not_read})


def put_back(
    dir_fd: int, marks: Marks, limits: tuple[Any, Any], keep: frozenset[str] = frozenset()
) -> str | None:
    """Empty a directory the children write in and put its own attributes back
    (:meth:`RunDir.clean`); why it could not be, or None."""
    try:
        clear_dir(dir_fd, *limits, keep=keep)
        why = None
    except Unclean as exc:  # once more with its attributes back (its mode, say)
        why = str(exc)
        if marks.restore(dir_fd) is None:
            try:
                clear_dir(dir_fd, *limits, keep=keep)
                why = None
            except Unclean as again:
                why = str(again)
    return why or marks.restore(dir_fd)


def has_files(job: dict[str, Any]) -> bool:
    """Whether the job's tests have files in the run dir: an input or output file (checked
    plain names: the server opens them under its run dir's descriptor), given or fetched
    files (checked relative paths)."""
    names = [job.get("input_file"), job.get("output_file")]
    if any(name is not None and not is_plain_name(name) for name in names):
        raise ValueError(f"a test file is a plain name, not {names!r}")
    paths = [*(job.get("files") or ()), *(job.get("fetch_files") or ())]
    if any(not is_relative_path(path) for path in paths):
        raise ValueError(f"a test's files are relative paths, not {paths!r}")
    return any(name is not None for name in names) or bool(paths)


def reads_back(job: dict[str, Any]) -> bool:
    """Whether the run dir is read once a test ends (its output file, its fetched files):
    then it is emptied after that, not when the child is reaped."""
    return bool(job.get("output_file") or job.get("fetch_files"))
