"""A child writes only in its run directory (emptied after each child), never in the worker's
directory around it: a file left there would outlive the submission, and the next one, on the
same worker, could read it (a channel between sibling completions)."""

from __future__ import annotations

from evaluator.sandbox import Isolation, Job

LEAVE = """
import os
for path in ("../stash", "../program/stash", "../run/stash"):
    try:
        open(path, "w").write("SECRET")
        print(path, "written")
    except OSError as exc:
        print(path, type(exc).__name__)
try:
    print(sorted(os.listdir("..")))
except OSError as exc:
    print("..", type(exc).__name__)
"""
LOOK = """
import os
for path in ("../stash", "../program/stash", "stash"):
    try:
        print(path, open(path).read())
    except OSError as exc:
        print(path, type(exc).__name__)
try:
    print(os.listdir("../program"))
except OSError as exc:
    print("../program", type(exc).__name__)
"""


def test_nothing_is_written_outside_the_run_directory(pool):
    for isolation in Isolation:
        left = pool.run(Job(LEAVE, [""], isolation=isolation)).runs[0]
        assert left.stdout.decode().splitlines() == [
            "../stash PermissionError",
            "../program/stash PermissionError",
            "../run/stash written",  # its own run directory, by another name
            ".. PermissionError",
        ]
        seen = pool.run(Job(LOOK, [""], isolation=isolation)).runs[0]
        # the program directory is root's (0711): a child may open a staged file by its name
        # (a runtime's script), never list the directory or write there
        assert seen.stdout.decode().splitlines() == [
            "../stash FileNotFoundError",
            "../program/stash FileNotFoundError",
            "stash FileNotFoundError",  # emptied with the run directory
            "../program PermissionError",
        ]
