"""Rust, built with rustc and run as a contest judge runs it: ``rustc -O --edition=2021 -o
solution solution.rs`` (Codeforces' and AtCoder's optimised build, HumanEval-X's edition),
then ``./solution < input > output``: a native program file, executed in the sandbox as a
C++ binary is.

The compiler is Debian's (``/usr/bin/rustc``), else rustup's default toolchain
(``~/.cargo/bin/rustc`` is rustup's proxy: the toolchain it names is resolved once, with
``rustc --print sysroot``, and its ``rustc`` runs the builds, which may read that toolchain
and nothing else of the home it lies in). rustc links with the system's ``cc``.
The main thread's stack is the memory limit, as for C++ (deep recursion passes as on a
judge); other threads get Rust's own 2 MiB unless the program asks for more."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

from .base import SYSTEM_PATH, ToolchainMissing
from .flag_rules import RUSTC
from .native import NativeLanguage

__all__ = ["LANGUAGE", "Rust"]

DEFAULT_FLAGS = ("-O", "--edition=2021")


def _rustup_bin() -> str:
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    return os.path.join(home, "bin")


class Rust(NativeLanguage):
    name = "rust"
    title = "Rust (rustc)"
    extensions = (".rs",)
    fence_tags = ("rust", "rs")
    default_flags = DEFAULT_FLAGS
    flag_rule = RUSTC
    compiler_name = "rustc"
    package = "rustc"
    source = "solution.rs"

    @functools.cached_property
    def sysroot(self) -> str:
        """The toolchain's directory (``rustc --print sysroot``). Raises ``OSError`` when
        no rustc is installed."""
        found = shutil.which("rustc", path=f"{SYSTEM_PATH}:{_rustup_bin()}")
        if found is None:
            raise ToolchainMissing("rustc is not installed: Rust (rustc) needs it (Debian: apt-get "
                          "install rustc, or rustup)")  # fmt: skip
        done = subprocess.run([found, "--print", "sysroot"], capture_output=True, text=True,
                              timeout=60, check=True)  # fmt: skip
        return done.stdout.strip()

    @functools.cached_property
    def compiler(self) -> str:
        return os.path.join(self.sysroot, "bin", "rustc")

    @property
    def toolchain_paths(self) -> tuple[str, ...]:  # type: ignore[override]
        return () if self.sysroot.startswith("/usr/") else (self.sysroot,)


LANGUAGE = Rust()
