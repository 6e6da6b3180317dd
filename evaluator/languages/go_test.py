"""Go test files, built and run as ``go test main_test.go`` runs them (SandboxFusion's
``go_test``; HumanEval-X's and MultiPL-E's Go tests): the file is a ``_test.go`` file whose
``Test...`` functions are the tests, and the program passes when the test binary exits 0.

Build: ``go test -c -o solution main_test.go``, the very build ``go test`` makes, vet checks
included (a vet finding fails the build, as it fails ``go test``). Run: ``./solution
-test.paniconexit0`` (the flag ``go test`` passes: a test that calls ``os.Exit(0)`` fails),
executed in the sandbox as any native program. A failed test prints ``FAIL`` and exits 1.

Libraries: GOPATH mode over Debian's Go sources (``/usr/share/gocode``), which holds testify
(``golang-github-stretchr-testify-dev``: HumanEval-X's tests import its ``assert``) and its
dependencies; nothing is fetched. The go command reads that setting from its environment
file in the build's ``HOME`` (the build's environment is fixed).

Prepared once (:meth:`GoTest.prepare`): testify and the standard ``testing`` package compiled
into a build cache that later builds read (``GOCACHE``, read-only to them: a compile goes on
when it cannot store its own result). A cold build compiles testify and YAML: about 8 s of
CPU; warm, 0.7 s. It changes nothing a build makes."""

from __future__ import annotations

import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, Tool
from .go import Go
from .native import BINARY

__all__ = ["GOPATH", "LANGUAGE", "GoTest"]

GOPATH = "/usr/share/gocode"  # Debian's golang-*-dev packages install their sources here
GO_ENV = {"GO111MODULE": "off", "GOPATH": GOPATH, "GOPROXY": "off"}
CACHE_FLAG = "--gocache="  # ours, never the go command's: prepare's answer, read by build
WARM_UP = """package warm

import (
    "testing"

    "github.com/stretchr/testify/assert"
)

func TestWarm(t *testing.T) { assert.New(t).Equal(1, 1) }
"""


class GoTest(Go):
    name = "go_test"
    title = "Go tests (go test)"
    extensions = ()  # a _test.go file is Go's by its extension; this is asked for by name
    fence_tags = ("go_test",)
    source = "main_test.go"

    def command(self, flags: tuple[str, ...]) -> list[str]:
        return [self.compiler, "test", "-c", "-o", BINARY, *flags, self.source]

    def build(self, source: str, flags: tuple[str, ...], work: str, tool: Tool) -> Build:
        cache = [flag.removeprefix(CACHE_FLAG) for flag in flags if flag.startswith(CACHE_FLAG)]
        _write_go_env(work, cache[-1] if cache else None)
        return super().build(source, tuple(f for f in flags if not f.startswith(CACHE_FLAG)),
                             work, tool)  # fmt: skip

    def prepare(self, flags: tuple[str, ...], directory: str, tool: Tool) -> tuple[str, ...]:
        """Compile ``testing`` and testify into ``directory/cache``; the flag that makes a
        build read that cache. Nothing when testify is not installed or it fails."""
        cache = os.path.join(directory, "cache")
        _write_go_env(directory, cache)
        with open(os.path.join(directory, "warm_test.go"), "w") as file:
            file.write(WARM_UP)
        run = tool([self.compiler, "test", "-c", "-o", "warm", *flags, "warm_test.go"], directory)
        if run.status != 0 or run.limit is not None:
            return ()
        return (CACHE_FLAG + cache,)

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return ["./" + BINARY, "-test.paniconexit0"]


def _write_go_env(home: str, cache: str | None) -> None:
    """The go command's environment file in ``home`` (``$HOME/.config/go/env``)."""
    settings = {**GO_ENV, **({"GOCACHE": cache} if cache else {})}
    folder = os.path.join(home, ".config", "go")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "env"), "w") as file:
        file.write("".join(f"{key}={value}\n" for key, value in settings.items()))


LANGUAGE = GoTest()
