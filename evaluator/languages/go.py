"""Go, built with the go command and run as a contest judge runs it: ``go build -o solution
main.go`` (a statically linked program; Codeforces and AtCoder build alike), then
``./solution < input > output``, executed in the sandbox as a C++ binary is.

The build is offline and self-contained: the program's file is built alone (the package
``command-line-arguments``, the standard library only, as on a judge), with ``HOME`` the build
directory, so the go command's cache (``GOCACHE``) and ``GOPATH`` are the build's own and
are removed with it; Debian's Go ships its standard library compiled, so a build takes a
fraction of a second. Goroutines' stacks grow on the heap (to Go's own 1 GB limit), so deep
recursion is bounded by the memory limit, as in a plain run."""

from __future__ import annotations

from .native import BINARY, NativeLanguage

__all__ = ["LANGUAGE", "Go"]


class Go(NativeLanguage):
    name = "go"
    title = "Go (go build)"
    extensions = (".go",)
    fence_tags = ("go", "golang")
    # no flags: -trimpath, say, would rebuild the whole standard library (its build ids)
    compiler_name = "go"
    package = "golang-go"
    source = "main.go"

    def version_command(self) -> list[str]:
        return [self.compiler, "version"]  # "go version go1.19.8 linux/amd64"

    def command(self, flags: tuple[str, ...]) -> list[str]:
        return [self.compiler, "build", "-o", BINARY, *flags, self.source]


LANGUAGE = Go()
