"""Running a script as ``nobody``, a grader that is not root, with the interpreter and this
checkout within its reach: where either lives under a directory others may not search (root's
home here), a private mount namespace opens the way to just that path (a read-only tmpfs over
the closed directory, the path bind-mounted into it), as the sandbox does for its children."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

NOBODY = 65534
ROOT = str(Path(__file__).resolve().parents[1])

_AS_NOBODY = textwrap.dedent(f"""
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    def mount(source, target, kind, flags, data=None):
        args = [None if x is None else x.encode() for x in (source, target, kind, data)]
        if libc.mount(args[0], args[1], args[2], ctypes.c_ulong(flags), args[3]):
            raise OSError(ctypes.get_errno(), f"mount {{target}}")
    assert libc.unshare(0x20000) == 0  # CLONE_NEWNS: this process's view only
    mount(None, "/", None, 16384 | (1 << 18))  # MS_REC | MS_PRIVATE
    for wanted in (os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), {ROOT!r}):
        parts = wanted.split("/")
        for end in range(2, len(parts)):  # the first directory on the way that
            way = "/".join(parts[:end])  # others may not search: a tmpfs over it
            if not os.stat(way).st_mode & 1:  # with only the way on
                keep = os.open(way + "/" + parts[end], os.O_PATH)
                mount("tmpfs", way, "tmpfs", 0, "mode=755")
                os.mkdir(way + "/" + parts[end])
                mount(f"/proc/self/fd/{{keep}}", way + "/" + parts[end], None, 4096 | 16384)
                break
    os.setgroups([])
    os.setresgid({NOBODY}, {NOBODY}, {NOBODY})
    os.setresuid({NOBODY}, {NOBODY}, {NOBODY})
    os.chdir("/tmp")
    os.execve(sys.executable, [sys.executable, "-c", *sys.argv[1:]],
              {{"PATH": "/usr/bin:/bin", "PYTHONPATH": {ROOT!r}}})
""")


def run_as_nobody(script: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run ``python -c script args...`` as ``nobody`` (the caller must be root); its output
    as text."""
    return subprocess.run(
        [sys.executable, "-c", _AS_NOBODY, script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
