"""Where commands write: checked in one line each before anything is loaded or graded."""

from __future__ import annotations

import os
import tempfile
from typing import Any

import click

from evaluator.runner.journal import journal_path

__all__ = ["check_paths", "writable"]


def check_paths(options: dict[str, Any]) -> None:
    """Refuse, in one line and before anything is loaded or graded, an --output, --summary,
    --report or journal location that cannot be written, and an existing OUTPUT the options
    do not allow replacing (see --force and --resume in --help)."""
    output, summary_path = options.get("output"), options.get("summary_path")
    report_path = options.get("report_path")
    resume, force = options.get("resume"), options.get("force")
    if resume and not output:
        raise click.UsageError("--resume needs --output (the journal is OUTPUT.partial.jsonl)")
    if output:
        journal = journal_path(output)
        writable(output, "--output")
        writable(str(journal), "--output's journal")
        if os.path.lexists(journal) and not os.path.isfile(journal):
            raise click.ClickException(f"{journal} (the journal of --output) is not a file")
        if os.path.exists(journal) and not resume:
            raise click.ClickException(
                f"{journal} holds results of an earlier, unfinished run: rerun with --resume to "
                "grade only the rest, or delete it to start over"
            )
        if os.path.exists(output) and not force and not (resume and os.path.exists(journal)):
            hint = " (there is no unfinished run to resume)" if resume else ""
            raise click.ClickException(
                f"{output} exists{hint}: pass --force to replace it, or choose another --output"
            )
    if summary_path:
        writable(summary_path, "--summary")
        if output and os.path.abspath(summary_path) == os.path.abspath(output):
            raise click.UsageError("--summary and --output name the same file")
    if report_path:
        writable(report_path, "--report")
        for other, option in ((output, "--output"), (summary_path, "--summary")):
            if other and os.path.abspath(report_path) == os.path.abspath(other):
                raise click.UsageError(f"--report and {option} name the same file")


def writable(path: str, option: str) -> None:
    """Raise a one-line error unless a file can be created (or replaced) at ``path``: its
    directory exists and takes a new file (probed, so read-only mounts are caught too)."""
    if os.path.isdir(path):
        raise click.ClickException(f"{path} ({option}) is a directory")
    if os.path.lexists(path) and not os.path.isfile(path):
        raise click.ClickException(f"{path} ({option}) exists and is not a regular file")
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.exists(parent) and not os.path.isdir(parent):
        raise click.ClickException(f"{path} ({option}): {parent} is not a directory")
    if not os.path.isdir(parent):
        raise click.ClickException(f"{path} ({option}): no such directory {parent}")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".mcevaluate-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.ClickException(f"{path} ({option}): cannot write in {parent}: {reason}")
