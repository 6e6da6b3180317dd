"""JavaScript, run by Node.js as a judge runs it: ``node main.js < input > output``.

No build: the program is staged as ``main.js`` for the run, and a syntax error is the
program's runtime error (node exits 1 naming it), as in a plain run. The runtime is the
system's ``node`` (Debian's ``nodejs``, or NodeSource's), executed in the sandbox as the
child's one exec (``Job.runtime``); it reads its OpenSSL configuration at start, which the
sandbox lets it read. Memory is judged as for every program file: the peak resident set
(V8 reserves far more address space than it uses, which no limit counts).

Packages: ``require`` finds the npm packages installed globally (``npm install -g``:
``setup.sh`` installs those SandboxFusion's and HumanEval-X's environments give their
programs, :data:`PACKAGES`), through ``NODE_PATH`` set to npm's global folder
(``Job.program_environment``), which the program may read; node's own modules as always."""

from __future__ import annotations

import functools
import os

from .script import ScriptLanguage

__all__ = ["GLOBAL_FOLDERS", "LANGUAGE", "PACKAGES", "JavaScript"]

# SandboxFusion's runtime/node (its package.json) and HumanEval-X's JavaScript/162: the pure
# JavaScript ones (its jsdom, testing-library and puppeteer are a browser's)
PACKAGES = ("lodash", "js-md5", "seedrandom", "random-seed")
# where ``npm install -g`` puts packages (``npm root -g``): a /usr/local prefix, Debian's
GLOBAL_FOLDERS = ("/usr/local/lib/node_modules", "/usr/lib/node_modules")


class JavaScript(ScriptLanguage):
    name = "javascript"
    title = "JavaScript (Node.js)"
    extensions = (".js", ".cjs")
    fence_tags = ("javascript", "js", "nodejs", "node")
    runtime_name = "node"
    package = "nodejs"
    script = "main.js"

    @functools.cached_property
    def packages_folder(self) -> str | None:
        """npm's global folder that holds the packages (the first of :data:`GLOBAL_FOLDERS`
        with one of them), None when none is installed."""
        for folder in GLOBAL_FOLDERS:
            if any(os.path.isdir(os.path.join(folder, name)) for name in PACKAGES):
                return folder
        return None

    @property
    def runtime_reads(self) -> tuple[str, ...]:  # type: ignore[override]
        folder = self.packages_folder
        return ("/etc/ssl/openssl.cnf", *((folder,) if folder else ()))

    def run_environment(self) -> dict[str, str]:
        folder = self.packages_folder
        return {"NODE_PATH": folder} if folder else {}


LANGUAGE = JavaScript()
