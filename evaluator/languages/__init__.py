"""The language layer: one module per language (DMOJ's executors are the model).

Each module of this package that defines ``LANGUAGE`` (a :class:`~.base.Language`) is a
language: ``python`` (the sandbox runs it itself); ``cpp``, ``c``, ``rust``, ``go``, ``d`` and
``haskell`` (built into one native program file, :mod:`.native`), and ``go_test``,
``rust_test`` and ``d_unittest`` (test files, built into their test binary); ``java``, ``java_assert``,
``junit``, ``scala``, ``typescript`` and ``verilog`` (built, then run on an installed
runtime); ``javascript``, ``perl``, ``ruby``, ``php``, ``lua``, ``racket``, ``r`` and
``ocaml`` (a runtime runs the source, :mod:`.script`). Another language is one more module and its tests (``docs/languages.md``);
nothing else names the languages. Lookups::

    get_language("c++")                  # by name, or by any code-fence tag it answers to
    language_for_extension("main.cc")    # by file extension; None when no language has it
    language_for_fence("cpp")            # by code-fence tag; None when no language has it
    program_language("c++", fence=None)  # what a program is graded as: the C++ Language

:class:`~.builds.Builder` builds programs of compiled languages (confined, each source
once); the sandbox knows nothing of languages.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from .base import Build, BuildLimits, Language, ToolchainMissing

__all__ = [
    "DEFAULT_LANGUAGE",
    "Build",
    "BuildLimits",
    "Language",
    "ToolchainMissing",
    "get_language",
    "language_for_extension",
    "language_for_fence",
    "languages",
    "program_language",
    "runtimes",
]

DEFAULT_LANGUAGE = "python"  # what a program is when nothing says otherwise


@functools.cache
def languages() -> dict[str, Language]:
    """Every language, by name: the modules of this package that define ``LANGUAGE``."""
    found: dict[str, Language] = {}
    for module in pkgutil.iter_modules(__path__):
        language = getattr(importlib.import_module(f"{__name__}.{module.name}"), "LANGUAGE", None)
        if isinstance(language, Language):
            found[language.name] = language
    return dict(sorted(found.items()))


@functools.cache
def _aliases() -> dict[str, Language]:
    table: dict[str, Language] = {}
    for language in languages().values():
        for alias in (language.name, *language.fence_tags):
            table[alias.lower()] = language
    return table


def get_language(name: str | Language | None = None) -> Language:
    """The language called ``name`` (its name or a fence tag, any case; None: Python, the
    one place that says so; a :class:`Language` is itself). Raises ``ValueError`` naming the
    known ones."""
    if isinstance(name, Language):
        return name
    if name is None:
        name = DEFAULT_LANGUAGE
    found = _aliases().get(str(name).strip().lower()) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(languages())
        raise ValueError(f"unknown language {name!r} (known: {known})")
    return found


def language_for_extension(path: str) -> Language | None:
    """The language of a file name or extension (``"a.cc"``, ``".cc"``); None if none."""
    dot = path.rfind(".")
    extension = path[dot:].lower() if dot >= 0 else ""
    return next((lang for lang in languages().values() if extension in lang.extensions), None)


def language_for_fence(tag: str) -> Language | None:
    """The language of a code fence's tag (```` ```cpp ````); None for an unknown tag."""
    word = tag.strip().split(maxsplit=1)[0].lower() if tag.strip() else ""
    return next((lang for lang in languages().values() if word in lang.fence_tags), None)


def program_language(stated: str | Language | None = None, fence: str | None = None) -> Language:
    """The language a program is graded as, resolved once where the program enters a run
    (below that it travels as this object): what is ``stated`` (a sample's ``language``
    field, ``--language``, a reward's column) wins; else the language its code fence's tag
    answers to (```` ```cpp ````); else Python (an unknown tag, a bare fence, no fence: an
    answer in a language not graded here then fails as Python, as LiveCodeBench runs it).
    Raises ``ValueError`` for a ``stated`` language that is not known."""
    if stated is None:
        stated = language_for_fence(fence) if fence else None
    return get_language(stated)


@functools.cache
def runtimes() -> dict[str, list[str]]:
    """The installed runtimes of the languages that run on one (node, java), each with the
    files it reads beyond the system's libraries: what a sandbox pool that grades them is
    started with (``SandboxPool(runtimes=runtimes())``). Languages sharing a runtime (Java,
    JUnit, Scala on the JVM) each add what they read. A runtime not installed is left out
    (its programs are then refused, naming what to install)."""
    found: dict[str, list[str]] = {}
    for language in languages().values():
        try:
            path = language.runtime()
            reads = language.runtime_reads if path is not None else ()
        except OSError:
            continue
        if path is not None:
            known = found.setdefault(path, [])
            known += [read for read in reads if read not in known]
    return found
