"""The plain run the sandbox reproduces, measured once per interpreter.

``python3 solution.py < input > output`` with the environment a sandbox child gets: this
module runs a probe that way (same interpreter, stdin and stdout redirected to files, a fresh
directory) and records what the interpreter set up: ``sys.flags``, the import path (and the
virtual environment's prefixes, which ``site`` sets), the streams' encoding and error handler, the recursion limit and the int/str digit limit. The fork
template copies these into every child (:mod:`evaluator.sandbox.inside.interpreter`), so a program
finds a plain run's values even though the fork server itself runs with ``-I -S``.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

# The environment of every fork server (and so of every child, which adds its run directory
# as HOME and TMPDIR and single-threaded BLAS): nothing of the caller's.
SERVER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
CHILD_ENV_EXTRA = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}

_PROBE = """\
import json, sys
streams = {
    name: {"encoding": s.encoding, "errors": s.errors, "line_buffering": s.line_buffering}
    for name, s in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))
}
json.dump({
    "flags": list(sys.flags),
    "path": sys.path[1:],
    "streams": streams,
    "recursion_limit": sys.getrecursionlimit(),
    "int_max_str_digits": sys.get_int_max_str_digits(),
    "argv": sys.argv,
    "prefix": sys.prefix,
    "exec_prefix": sys.exec_prefix,
}, sys.stdout)
"""


def child_environment(run_dir: str) -> dict[str, str]:
    """The environment variables a sandbox child (and so the reference run) has."""
    return {**SERVER_ENV, "HOME": run_dir, "TMPDIR": run_dir, **CHILD_ENV_EXTRA}


@functools.lru_cache(maxsize=4)
def plain_run(executable: str = sys.executable) -> dict[str, Any]:
    """What ``executable`` sets up for ``python3 solution.py`` (see the module docstring).
    Falls back to this process's own view when the probe cannot run."""
    with tempfile.TemporaryDirectory(prefix="mcref-") as where:
        script = os.path.join(where, "solution.py")
        with open(script, "w", encoding="utf-8") as file:
            file.write(_PROBE)
        with (
            open(os.path.join(where, "in"), "w+b") as stdin,
            open(os.path.join(where, "out"), "w+b") as stdout,
        ):
            try:
                subprocess.run(
                    [executable, "solution.py"],
                    stdin=stdin,
                    stdout=stdout,
                    stderr=subprocess.DEVNULL,
                    cwd=where,
                    env=child_environment(where),
                    timeout=60,
                    check=True,
                )
                stdout.seek(0)
                return json.loads(stdout.read())
            except (OSError, ValueError, subprocess.SubprocessError):
                return _fallback()


def _fallback() -> dict[str, Any]:
    flags = list(sys.flags)
    for name in ("no_user_site", "no_site", "ignore_environment", "isolated", "safe_path"):
        at = type(sys.flags).__match_args__.index(name)
        flags[at] = type(flags[at])(0)
    stream = {"encoding": "utf-8", "errors": "surrogateescape", "line_buffering": False}
    return {
        "flags": flags,
        "path": sys.path[1:],
        "streams": {
            "stdin": stream,
            "stdout": stream,
            "stderr": {**stream, "errors": "backslashreplace", "line_buffering": True},
        },
        "recursion_limit": 1000,
        "int_max_str_digits": 4300,
        "argv": ["solution.py"],
        "prefix": sys.prefix,
        "exec_prefix": sys.exec_prefix,
    }
