"""The language layer: every language module describes itself, the lookups find languages
by name, code-fence tag and file extension, and flags parse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.languages import (
    DEFAULT_LANGUAGE,
    Language,
    get_language,
    language_for_extension,
    language_for_fence,
    languages,
)
from evaluator.languages.base import parse_flags

DOC = Path(__file__).resolve().parents[2] / "docs" / "languages.md"


def test_the_languages_are_the_modules_that_define_one():
    names = ["c", "cpp", "csharp", "csharp_assert", "d", "d_unittest", "elixir", "go", "go_test", "haskell",
             "java", "java_assert", "javascript", "jest", "junit", "kotlin", "kotlin_script", "lua",
             "ocaml", "perl", "php", "python", "r", "racket", "ruby", "rust", "rust_test", "scala",
             "typescript", "verilog"]  # fmt: skip
    assert list(languages()) == names
    assert DEFAULT_LANGUAGE == "python" and get_language(None).name == "python"


@pytest.mark.parametrize("language", list(languages().values()), ids=str)
def test_each_language_describes_itself(language: Language):
    assert language.name and language.title and language.fence_tags
    # a file's extension names its language; a variant of one (go_test: Go's test files,
    # java_assert: Java with -ea) shares its files and is asked for by name
    assert language.extensions or any(
        isinstance(language, type(other)) and other.extensions
        for other in languages().values()
        if other is not language
    )
    assert all(ext.startswith(".") for ext in language.extensions)
    assert language.version()
    assert f"`{language.name}`" in DOC.read_text(encoding="utf-8")
    if language.compiled:  # a build step: its program is started by a command line
        assert language.argv()
    if language.runtime_name:  # runs on an installed runtime, named by its absolute path
        assert os.path.isabs(language.runtime() or "")


@pytest.mark.parametrize(
    ("text", "name"),
    [("cpp", "cpp"), ("C++", "cpp"), (" cxx ", "cpp"), ("python", "python"), ("py3", "python")],
)
def test_get_language_by_name_or_tag(text, name):
    assert get_language(text).name == name


def test_unknown_languages_say_which_are_known():
    known = (r"\(known: c, cpp, csharp, csharp_assert, d, d_unittest, elixir, go, go_test, haskell, "
             r"java, java_assert, javascript, jest, junit, kotlin, kotlin_script, lua, ocaml, perl, "
             r"php, python, r, racket, ruby, rust, rust_test, scala, typescript, verilog\)")  # fmt: skip
    with pytest.raises(ValueError, match=rf"unknown language 'cobol' {known}"):
        get_language("cobol")
    with pytest.raises(ValueError):
        get_language(3)  # type: ignore[arg-type]


def test_lookups_by_extension_and_fence():
    assert language_for_extension("main.cc").name == "cpp"
    assert language_for_extension(".CXX").name == "cpp"
    assert language_for_extension("a.py").name == "python"
    assert language_for_extension("Main.java").name == "java"
    assert language_for_extension("main.rs").name == "rust"
    assert language_for_extension("main.go").name == "go"
    assert language_for_extension("main.rb").name == "ruby"
    assert language_for_extension("index.php").name == "php"
    assert language_for_extension("main.lua").name == "lua"
    assert language_for_extension("main.d").name == "d"
    assert language_for_extension("main.kt").name == "kotlin"
    assert language_for_extension("main.kts").name == "kotlin_script"
    assert language_for_extension("main.swift") is None
    assert language_for_extension("Makefile") is None
    assert language_for_fence("c++").name == "cpp"
    assert language_for_fence("cpp title=main.cpp").name == "cpp"
    assert language_for_fence("python3").name == "python"
    assert language_for_fence("nodejs").name == "javascript"
    assert language_for_fence("rb").name == "ruby" and language_for_fence("PHP").name == "php"
    assert language_for_fence("D_ut").name == "d_unittest"
    assert (
        language_for_fence("kotlin").name == "kotlin" and language_for_fence("c#").name == "csharp"
    )
    assert language_for_fence("") is None and language_for_fence("swift") is None


def test_flags_parse_from_a_list_or_a_shell_string():
    cpp = get_language("cpp")
    assert cpp.default_flags == ("-std=c++17", "-O2")
    assert cpp.flags({}, None) == ("-std=c++17", "-O2")
    assert cpp.flags({"cpp_flags": "-std=c++20 -O2 -DLOCAL='1 2'"}, None) == (
        "-std=c++20",
        "-O2",
        "-DLOCAL=1 2",
    )
    assert cpp.flags({"cpp_flags": ["-O0"]}, ["-O3"]) == ("-O3",)
    assert parse_flags([], "x") == ()
    for bad in (3, [1], "unterminated 'quote"):
        with pytest.raises(ValueError):
            parse_flags(bad, "the flags")


def test_languages_sharing_a_runtime_each_add_what_they_read():
    """Java, java_assert, JUnit and Scala all run on the JVM: the pool's JVM may read every
    one's files (the last language's alone would leave the others' jars unreadable)."""
    from evaluator.languages import get_language, runtimes

    java = get_language("java").runtime()
    reads = runtimes()[java]
    for name in ("java", "java_assert", "junit", "scala"):
        try:
            wanted = get_language(name).runtime_reads
        except OSError:  # that language's toolchain is not installed here
            continue
        assert set(wanted) <= set(reads), name
    assert len(reads) == len(set(reads))
