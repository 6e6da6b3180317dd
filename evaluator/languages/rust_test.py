"""Rust tests, built and run as ``cargo test`` runs them (HumanEval-X's Rust problems): the
program is a ``main.rs`` whose tests are ``#[test]`` functions (a ``#[cfg(test)] mod
tests``; its ``main`` is not run), and it passes when the test binary exits 0 (libtest exits
101 when a test fails).

Build: ``rustc --test --edition=2021 -C strip=debuginfo -o solution main.rs`` linked
against the crates such programs import (``use rand::Rng; use regex::Regex; use md5;``),
given to rustc as ``-L dependency=... --extern rand=... --extern regex=... --extern
md5=...``. No ``-O``: ``cargo test``'s dev profile, so debug assertions and overflow checks
are on, as they are there. ``-C strip=debuginfo`` only drops the debug information the
crates' dev build carries (a program of 16 MB becomes 4 MB; nothing it does changes: a
panic's location is not debug information). Run: ``./solution``, executed in the sandbox as
any native program, libtest's own default threads.

The crates are Debian's sources (``/usr/share/cargo/registry``: ``librust-rand-dev`` 0.8,
``librust-regex-dev`` with ``librust-regex+default-dev``, ``librust-md5-dev`` 0.7), built
once per builder by :meth:`RustTest.prepare`: a Cargo project depending on ``rand = "0.8"``,
``regex = "1"``, ``md5 = "0.7"``, whose Cargo configuration replaces crates.io by that
directory, built offline (``cargo build --offline``, the dev profile, as ``cargo test``
builds dependencies) by the toolchain's own cargo, confined as a build is. A program cannot
build without them, so a build waits for that work
(:attr:`~evaluator.languages.base.Language.needs_prepared`); when the crates are not
installed its programs are ``UNSUPPORTED``, the message naming the packages. The crates'
build takes 10 to 20 s of CPU; a program's about 0.3 s.

Rand is 0.8 (HumanEval-X's authors pin rand 0.4): a program that calls the 0.4 API
(``gen_range(0, 2)``, HumanEval-X's Rust/50 test) does not compile."""

from __future__ import annotations

import glob
import os

from .base import Tool, ToolchainMissing
from .native import BINARY
from .rust import Rust

__all__ = [
    "CRATES",
    "LANGUAGE",
    "PACKAGES",
    "REGISTRY",
    "RustTest",
    "installed_crates",
    "missing_crates",
]

REGISTRY = "/usr/share/cargo/registry"  # where Debian's librust-*-dev install crate sources
CRATES = (("rand", "0.8"), ("regex", "1"), ("md5", "0.7"))  # name, Cargo version requirement
PACKAGES = ("librust-rand-dev", "librust-regex-dev", "librust-regex+default-dev",
            "librust-md5-dev")  # fmt: skip
INSTALL = f"Debian: apt-get install {' '.join(PACKAGES)}"
MISSING = f"the rand, regex and md5 crates are not installed in {REGISTRY} ({INSTALL})"
FAILED = f"the rand, regex and md5 crates could not be built ({INSTALL})"
# cargo's words when a dependency is not in the registry (regex without aho-corasick, say)
_UNRESOLVED = ("no matching package", "failed to select a version")

MANIFEST = """[package]
name = "judge-crates"
version = "0.1.0"
edition = "2021"

[lib]
path = "lib.rs"

[dependencies]
{dependencies}
"""
CONFIG = """[source.crates-io]
replace-with = "installed"

[source.installed]
directory = "{registry}"

[net]
offline = true

[build]
rustc = "{rustc}"
"""


def installed_crates(registry: str | None = None) -> dict[str, list[str]]:
    """For each crate of :data:`CRATES`, its versions in ``registry`` (default
    :data:`REGISTRY`) that meet its requirement (``rand-0.8.5`` meets ``0.8``), as directory
    names."""
    registry = registry or REGISTRY
    return {
        name: sorted(os.path.basename(path)
                     for path in glob.glob(os.path.join(registry, f"{name}-{wanted}.*")))
        for name, wanted in CRATES
    }  # fmt: skip


def missing_crates(registry: str | None = None) -> list[str]:
    """The crates of :data:`CRATES` with no version in ``registry`` that meets their
    requirement; empty when all are there."""
    return [name for name, found in installed_crates(registry).items() if not found]


class RustTest(Rust):
    name = "rust_test"
    title = "Rust tests (rustc --test)"
    extensions = ()  # a test program is a .rs file: this language is asked for by name
    fence_tags = ("rust_test",)
    default_flags = ("--edition=2021", "-C", "strip=debuginfo")
    source = "main.rs"
    needs_prepared = True

    def version(self) -> str:
        """rustc's version line and the crates' (``rustc 1.95.0 (...); crates rand-0.8.5,
        regex-1.7.1, md5-0.7.0``): they are part of what a build makes. Raises
        :class:`~evaluator.languages.base.ToolchainMissing` naming the packages when a crate
        is not installed."""
        found = installed_crates()
        if not all(found.values()):
            raise ToolchainMissing(MISSING)
        return f"{super().version()}; crates {', '.join(v for vs in found.values() for v in vs)}"

    def command(self, flags: tuple[str, ...]) -> list[str]:
        return [self.compiler, "--test", *flags, "-o", BINARY, self.source]

    def prepare(self, flags: tuple[str, ...], directory: str, tool: Tool) -> tuple[str, ...]:
        """Build the crates in ``directory`` (a Cargo project there, its ``target/debug/deps``
        the rlibs); the rustc flags that link a program against them. ``flags`` (the
        program's) change nothing: the crates are built as ``cargo test`` builds them.
        Raises :class:`~evaluator.languages.base.ToolchainMissing` naming the packages when
        the crates (or cargo) are not installed, ``OSError`` with cargo's words when their
        build fails."""
        if missing_crates():
            raise ToolchainMissing(MISSING)
        cargo = os.path.join(self.sysroot, "bin", "cargo")
        if not os.path.exists(cargo):
            raise ToolchainMissing(f"cargo is not installed: {self.title} needs it to build the "
                                   "crates (Debian: apt-get install cargo, or rustup)")  # fmt: skip
        dependencies = "".join(f'{name} = "{wanted}"\n' for name, wanted in CRATES)
        with open(os.path.join(directory, "Cargo.toml"), "w") as file:
            file.write(MANIFEST.format(dependencies=dependencies))
        with open(os.path.join(directory, "lib.rs"), "w") as file:
            file.write("")
        # ``HOME`` is ``directory`` (the launcher's), so this is cargo's home configuration
        os.makedirs(os.path.join(directory, ".cargo"), exist_ok=True)
        with open(os.path.join(directory, ".cargo", "config.toml"), "w") as file:
            file.write(CONFIG.format(registry=REGISTRY, rustc=self.compiler))
        run = tool([cargo, "build", "--offline", "--lib", "--color", "never"], directory)
        output = run.output.decode("utf-8", "replace")
        if run.status != 0 or run.limit is not None:
            if any(words in output for words in _UNRESOLVED):
                raise ToolchainMissing(FAILED)
            last = [line.strip() for line in output.splitlines() if line.strip()][-3:]
            why = f"stopped ({run.limit})" if run.limit else f"exit status {run.status}"
            raise OSError(f"{FAILED}: cargo build: {why}: {' / '.join(last)[:500]}")
        deps = os.path.join(directory, "target", "debug", "deps")
        flags = ["-L", f"dependency={deps}"]
        for name, _ in CRATES:
            found = sorted(glob.glob(os.path.join(deps, f"lib{name}-*.rlib")))
            if len(found) != 1:
                raise OSError(f"{FAILED}: cargo left {len(found)} lib{name}-*.rlib in {deps}")
            flags += ["--extern", f"{name}={found[0]}"]
        return tuple(flags)


LANGUAGE = RustTest()
