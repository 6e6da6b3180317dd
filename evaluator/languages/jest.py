"""Jest test files (SandboxFusion's ``jest``): a TypeScript or JavaScript file of Jest tests,
run by Jest 29 on Node.js, passing when Jest exits 0 (every test passed).

SandboxFusion writes the code to ``<tmp>.test.ts`` beside its ``package.json`` (Jest's
configuration) and ``babel.config.js`` (``@babel/preset-env`` for the current node and
``@babel/preset-typescript``) and runs ``npm run test``, that is ``jest``. Here the file is
staged as ``main.test.ts`` beside the same Babel configuration (its presets named by path),
and the run is Jest's own command line, node as the child's one exec::

    node <npm root>/jest/bin/jest.js --runInBand --ci --config <ours> --runTestsByPath main.test.ts

``--runInBand``: the tests run in Jest's own process (its workers would be processes, which the
sandbox refuses). ``--runTestsByPath``: Jest is told the file; its scan of a directory finds
nothing in the sandbox, where a program may not list the staged files. No cache (``cache:
false``): every run transforms the file afresh, as a first run does. ``require`` and
``import`` find the npm packages installed globally (``NODE_PATH``, as for JavaScript), Jest's
``@jest/globals`` among them. Jest and Babel are npm's (``setup.sh`` installs them): without
them the programs are ``UNSUPPORTED``, the message naming what to install."""

from __future__ import annotations

import functools
import json
import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Tool, ToolchainMissing
from .javascript import GLOBAL_FOLDERS, JavaScript

__all__ = ["LANGUAGE", "NPM_PACKAGES", "Jest"]

# what the run needs from npm (setup.sh installs these versions)
NPM_PACKAGES = ("jest", "babel-jest", "@babel/core", "@babel/preset-env",
                "@babel/preset-typescript", "@jest/globals")  # fmt: skip
TEST_FILE = "main.test.ts"
BABEL_FILE = "babel.config.js"
INSTALL = "npm install -g jest@29.7.0 babel-jest@29.7.0 @jest/globals@29.7.0 @babel/core@7 " \
    "@babel/preset-env@7 @babel/preset-typescript@7"  # fmt: skip


class Jest(JavaScript):
    name = "jest"
    title = "Jest tests (TypeScript or JavaScript, Jest 29)"
    extensions = ()  # a .ts file is TypeScript's: this language is asked for by name
    fence_tags = ("jest",)
    script = TEST_FILE

    @functools.cached_property
    def packages_folder(self) -> str | None:
        """npm's global folder that holds Jest, None when it is not installed."""
        for folder in GLOBAL_FOLDERS:
            if os.path.isfile(os.path.join(folder, "jest", "bin", "jest.js")):
                return folder
        return None

    def _folder(self) -> str:
        folder = self.packages_folder
        missing = [name for name in NPM_PACKAGES if not folder or not os.path.isdir(
            os.path.join(folder, name))]  # fmt: skip
        if missing or folder is None:
            raise ToolchainMissing(f"{', '.join(missing)} not installed: {self.title} needs "
                                   f"them from npm ({INSTALL})")  # fmt: skip
        return folder

    def version_command(self) -> list[str]:
        return [str(self.runtime()), os.path.join(self._folder(), "jest", "bin", "jest.js"),
                "--version"]  # fmt: skip

    def version_line(self, printed: str) -> str:
        return f"jest {printed.strip()}"

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        folder = self._folder()
        presets = [
            [os.path.join(folder, "@babel", "preset-env"), {"targets": {"node": "current"}}],
            os.path.join(folder, "@babel", "preset-typescript"),
        ]
        babel = f"module.exports = {json.dumps({'presets': presets})};\n"
        return Build(None, files={TEST_FILE: source.encode("utf-8", "surrogateescape"),
                                  BABEL_FILE: babel.encode()})  # fmt: skip

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        folder = self.packages_folder or GLOBAL_FOLDERS[-1]
        config = {
            "rootDir": "{program}",
            "transform": {
                r"\.[jt]sx?$": [
                    os.path.join(folder, "babel-jest"),
                    {"configFile": "{program}/" + BABEL_FILE},
                ]
            },
            "cache": False,
            "haste": {"forceNodeFilesystemAPI": True},
            "watchman": False,
        }
        return [self.runtime_name, os.path.join(folder, "jest", "bin", "jest.js"),
                "--runInBand", "--ci", "--config", json.dumps(config),
                "--runTestsByPath", "{program}/" + TEST_FILE]  # fmt: skip


LANGUAGE = Jest()
