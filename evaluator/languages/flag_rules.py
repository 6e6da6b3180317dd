"""Which build flags a problem or a request may give: build flags from data are data.

A compiled language's flags come from the grading options (the operator's ``--cpp-flags``),
else a problem's ``metadata["<name>_flags"]``, else the language's defaults
(:meth:`~evaluator.languages.base.Language.flags`). The operator's go to the compiler as
given, as any command line the operator types would. A problem's come from a dataset row, a
reward's label or a service request, and a compiler driver's options are commands: g++
runs any program before its own (``-wrapper /bin/sh,-c,...``), loads any plugin
(``-fplugin=``), takes its programs and its spec from any directory (``-B``, ``-specs=``),
reads any file (``@file``, ``-include``, ``-I``, ``-fprofile-use=``) and writes files
(``-o``, ``-MF``, ``-fdump-*``, ``-save-temps``). So every flag from data must have a shape
its language's :class:`FlagRule` allows, and those shapes only change how the program's own
source is compiled and linked; anything else is refused, the message naming the flag.

For g++ (:data:`GXX`), from its manual:

- language standards: ``-std=c++NN`` and ``-std=gnu++NN`` (98 to 26), ``-ansi``;
- optimisation levels: ``-O``, ``-O0`` to ``-O3``, ``-Os``, ``-Ofast``, ``-Og``, ``-Oz``, and
  ``--param NAME=NUMBER`` (the optimisers' own bounds);
- macros: ``-DNAME``, ``-DNAME=VALUE``, ``-UNAME`` (also as two items, ``-D NAME``): NAME an
  identifier (or ``NAME(ARGS)``), VALUE printable text; a definition is what a ``#define``
  at the top of the source does, which the program's author can write anyway;
- diagnostics: ``-w``, ``-W...`` and ``-Wno-...`` (a name of letters, digits, ``+``, ``-``,
  ``_``, with an optional ``=VALUE`` of the same), never ``-Wl,``, ``-Wa,``, ``-Wp,`` (options
  passed to the linker, assembler, preprocessor: no comma is allowed), ``-pedantic``,
  ``-pedantic-errors``;
- debug information: ``-g``, ``-g0`` to ``-g3``, ``-ggdb`` (no ``-gsplit-dwarf``: it writes
  files of its own);
- code generation: ``-f`` options from :data:`_F_TOGGLES` (each also as ``-fno-...``) and
  :data:`_F_VALUED` (a number or a word from a list), ``-march=CPU``, ``-mtune=CPU``,
  ``-mFEATURE`` and ``-mno-FEATURE`` (an instruction set, ``-mavx2``; no ``=``);
  never ``-fplugin``, ``-fdump-*``, ``-fprofile-*``, ``-fauto-profile``, ``-flto``,
  ``-fuse-ld``, ``-fsanitize`` (its runtime needs what the sandbox refuses) or modules
  (``-fmodule-mapper`` can run a command);
- linking: ``-pthread``, ``-static``, ``-static-libgcc``, ``-static-libstdc++``, ``-s``,
  ``-pipe``, ``-no-pie``, and ``-lNAME`` for the libraries in :data:`_LIBRARIES`.

Refused, among others: ``-I`` and every ``-i...`` include option (a problem ships no files
to include today), ``-L``, ``-B``, ``-wrapper``, ``-specs=``, ``-x``, ``-o``, ``-c``, ``-E``,
``-S``, ``-M...``, ``-save-temps``, ``-Xlinker`` and the like, ``@file``, and any item that
is not an option (a file name would be compiled or linked in).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

__all__ = ["GCC", "GHC", "GXX", "NO_FLAGS", "RUSTC", "TSC", "FlagRule"]


@dataclass(frozen=True)
class FlagRule:
    """The build flags a language takes from data. ``single``: regular expressions one
    whole flag may match; ``with_argument``: flags that take the next item as their
    argument, each with the expression that argument must match (``-D NAME``); ``summary``:
    what is allowed, in a few words, for the message that refuses a flag."""

    single: tuple[str, ...] = ()
    with_argument: Mapping[str, str] = field(default_factory=dict)
    summary: str = "none"

    def __post_init__(self) -> None:
        joined = "|".join(f"(?:{shape})" for shape in self.single) or r"(?!)"
        object.__setattr__(self, "_single", re.compile(joined))
        arguments = {name: re.compile(shape) for name, shape in self.with_argument.items()}
        object.__setattr__(self, "_arguments", arguments)

    def refusal(self, flags: Sequence[str]) -> str | None:
        """Why ``flags`` are not all allowed, naming the first that is not; None when they
        all are."""
        at = 0
        while at < len(flags):
            flag = flags[at]
            argument = self._arguments.get(flag)  # type: ignore[attr-defined]
            if argument is not None:
                if at + 1 == len(flags):
                    return f"{flag!r} needs an argument"
                if not argument.fullmatch(flags[at + 1]):
                    return f"{flag} {flags[at + 1]!r} is not allowed from data ({self.summary})"
                at += 2
                continue
            if not self._single.fullmatch(flag):  # type: ignore[attr-defined]
                return f"{flag!r} is not a build flag allowed from data ({self.summary})"
            at += 1
        return None


NO_FLAGS = FlagRule()
"""A language that takes no build flags from data."""

_STANDARD = r"(?:c|gnu)\+\+(?:98|03|0x|11|1y|14|1z|17|2a|20|2b|23|2c|26)"
_MACRO = r"[A-Za-z_][A-Za-z0-9_]*"
_MACRO_PARAMETERS = r"(?:\((?:\s*(?:[A-Za-z_][A-Za-z0-9_]*|\.\.\.)\s*,?)*\))?"
# A macro's value: printable text (no control character: no NUL, no line end).
_VALUE = r"[^\x00-\x1f\x7f]*"
_DEFINE = f"{_MACRO}{_MACRO_PARAMETERS}(?:={_VALUE})?"
_WARNING_WORD = r"[a-z0-9+_][a-z0-9+_-]*"
_CPU = r"[a-z0-9][a-z0-9.+_-]*"
_NUMBER = r"[0-9]{1,9}"

_F_TOGGLES = (
    # the language and its runtime
    "exceptions", "rtti", "threadsafe-statics", "use-cxa-atexit", "sized-deallocation",
    "aligned-new", "new-inheriting-ctors", "strong-eval-order", "char8_t", "coroutines",
    "concepts", "permissive", "gnu-keywords", "operator-names", "implicit-templates",
    "implicit-inline-templates", "ext-numeric-literals", "extended-identifiers",
    "dollars-in-identifiers", "signed-char", "unsigned-char", "short-enums", "builtin",
    "elide-constructors", "access-control", "check-new", "nonansi-builtins",
    "default-inline", "keep-inline-functions", "visibility-inlines-hidden", "openmp",
    "openmp-simd",
    # optimisation
    "strict-aliasing", "strict-overflow", "wrapv", "trapv", "unroll-loops", "unroll-all-loops",
    "peel-loops", "split-loops", "unswitch-loops", "inline", "inline-functions",
    "inline-small-functions", "inline-functions-called-once", "omit-frame-pointer",
    "optimize-sibling-calls", "tree-vectorize", "tree-loop-vectorize", "tree-slp-vectorize",
    "tree-pre", "gcse", "devirtualize", "ipa-cp", "ipa-cp-clone", "ipa-pta", "ipa-ra",
    "predictive-commoning", "prefetch-loop-arrays", "schedule-insns", "schedule-insns2",
    "move-loop-invariants", "reorder-blocks", "reorder-functions", "merge-constants",
    "delete-null-pointer-checks", "isolate-erroneous-paths-dereference", "store-merging",
    "whole-program", "common", "semantic-interposition", "plt", "fast-math", "math-errno",
    "finite-math-only", "signed-zeros", "trapping-math", "rounding-math", "associative-math",
    "reciprocal-math", "unsafe-math-optimizations",
    # code generation and hardening
    "pic", "PIC", "pie", "PIE", "stack-protector", "stack-protector-strong",
    "stack-protector-all", "stack-protector-explicit", "stack-check", "stack-clash-protection",
    "asynchronous-unwind-tables", "unwind-tables",
    # diagnostics
    "diagnostics-color", "diagnostics-show-caret", "diagnostics-show-option", "show-column",
    "pretty-templates", "elide-type",
)  # fmt: skip
"""``-f`` options a problem may give (each also as ``-fno-...``): they change what the
compiler makes of the program's source or how it reports, nothing else."""

_F_VALUED = {
    "template-depth": _NUMBER,
    "constexpr-depth": _NUMBER,
    "constexpr-loop-limit": _NUMBER,
    "constexpr-ops-limit": _NUMBER,
    "constexpr-cache-depth": _NUMBER,
    "max-errors": _NUMBER,
    "max-include-depth": _NUMBER,
    "abi-version": _NUMBER,
    "message-length": _NUMBER,
    "diagnostics-color": "never|always|auto",
    "excess-precision": "fast|standard|16",
    "fp-contract": "off|on|fast",
    "visibility": "default|hidden|internal|protected",
    "trivial-auto-var-init": "uninitialized|pattern|zero",
    "cf-protection": "full|branch|return|none|check",
}
"""``-fNAME=VALUE`` options a problem may give, with the values each takes."""

_LIBRARIES = ("m", "pthread", "rt", "atomic", "quadmath", "gmp", "gmpxx", "crypto", "ssl")
"""``-lNAME``: system libraries a contest program may link (a missing one is a CE)."""


def _one_of(words: Sequence[str]) -> str:
    return "(?:" + "|".join(re.escape(word) for word in words) + ")"


GXX = FlagRule(
    single=(
        f"-std={_STANDARD}",
        "-ansi",
        "-O(?:[0-3]|s|fast|g|z)?",
        f"-D{_DEFINE}",
        f"-U{_MACRO}",
        f"--param={_WARNING_WORD}={_NUMBER}",
        "-w",
        f"-W(?:no-)?{_WARNING_WORD}(?:={_WARNING_WORD})?",
        "-pedantic(?:-errors)?",
        "-g(?:[0-3]|gdb[0-3]?)?",
        f"-f(?:no-)?{_one_of(_F_TOGGLES)}",
        *(f"-f{re.escape(name)}=(?:{values})" for name, values in _F_VALUED.items()),
        f"-march={_CPU}",
        f"-mtune={_CPU}",
        "-m(?:no-)?[a-z0-9][a-z0-9.-]*",
        "-pthread",
        "-static(?:-libgcc|-libstdc\\+\\+)?",
        "-s",
        "-pipe",
        "-no-pie",
        f"-l{_one_of(_LIBRARIES)}",
    ),
    with_argument={
        "-D": _DEFINE,
        "-U": _MACRO,
        "--param": f"{_WARNING_WORD}={_NUMBER}",
    },
    summary="allowed: -std, -O, -D/-U, -W, -g and listed -f, -m, -l flags; docs/languages.md",
)
"""What g++ takes from data (the module's docstring says why each shape is harmless)."""

_C_STANDARD = (
    r"(?:c|gnu)(?:89|90|99|9x|11|1x|17|18|2x|23|iso9899:(?:1990|199409|1999|2011|2017|2018))"
)
GCC = replace(GXX, single=(f"-std={_C_STANDARD}", *GXX.single))
"""What gcc takes from data: g++'s shapes (the same driver), and C's standards."""

_EDITION = "(?:2015|2018|2021|2024)"
RUSTC = FlagRule(
    single=(f"--edition={_EDITION}", "-O"),
    with_argument={"--edition": _EDITION},
    summary="allowed: --edition and -O",
)
"""What rustc takes from data: the language edition (which only changes how the source
reads: MultiPL-E builds with the default, 2015) and ``-O``. ``-C``, ``-L``, ``--extern``,
``--cfg``, ``-Z`` and the rest are refused (``-C linker=`` runs a program; ``-L`` reads any
directory)."""

_TS_TARGET = "(?:es3|es5|es6|es20(?:1[5-9]|2[0-9])|esnext)"
TSC = FlagRule(
    single=("--skipLibCheck", "--strict", "--noImplicitAny"),
    with_argument={"--target": _TS_TARGET, "--module": "(?:commonjs|node16|nodenext)"},
    summary="allowed: --target, --module commonjs/node16/nodenext, --skipLibCheck, --strict",
)
"""What tsc takes from data: the JavaScript it emits and checks against (``--target``: the
library types it checks with; MultiPL-E's ``esnext``), CommonJS or Node's modules (what
node runs), and stricter or lighter checking. ``--outDir``, ``--project``, ``--plugins``,
``--typeRoots`` and the rest are refused (they read or write other files)."""

GHC = FlagRule(
    single=("-O0", "-O", "-O1", "-O2"),
    summary="allowed: -O0, -O, -O1, -O2",
)
"""What ghc takes from data: the optimisation level (MultiPL-E's ``runghc`` optimises nothing:
``-O0``). ``-package-db``, ``-pgm*``, ``-F``, ``-e`` and the rest are refused (they read other
files or run programs)."""
