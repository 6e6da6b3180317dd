"""The Kotlin script launcher is compiled once per machine and JDK, in the grader's cache, and
each script's build adds it to the script's classes instead of running ``javac`` again;
where the cache cannot hold it, the build compiles it beside the script as before."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from evaluator.languages import get_language
from evaluator.languages.base import BuildLimits
from evaluator.languages.builds import ConfinedTool
from evaluator.languages.kotlin_script import LAUNCHER_CLASS, launcher_class
from tests.languages.runtime_plain import needs_runtime

pytestmark = needs_runtime("kotlin")

SCRIPT = 'val name = readLine()!!.trim()\nprintln("hello $name")\n'
CLASS_MAGIC = b"\xca\xfe\xba\xbe"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROCODER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _build(work: str):
    language = get_language("kotlin_script")  # confined as the grader's builder confines it
    return language.build(SCRIPT, (), work, ConfinedTool(BuildLimits(), language.toolchain_paths))


def test_the_launcher_is_made_once_in_the_cache(cache):
    javac = get_language("kotlin_script").javac
    made = launcher_class(javac)
    assert made is not None and made.startswith(str(cache))
    assert Path(made).read_bytes()[:4] == CLASS_MAGIC
    assert os.stat(made).st_mode & 0o222 == 0  # read-only: a program reads it, never writes it
    before = os.stat(made).st_mtime_ns
    assert launcher_class(javac) == made and os.stat(made).st_mtime_ns == before


def test_a_build_adds_the_made_launcher_without_compiling_it(cache):
    with tempfile.TemporaryDirectory() as work:
        build = _build(work)
        compiled_here = os.path.exists(os.path.join(work, f"{LAUNCHER_CLASS}.java"))
    assert build.ok, build.message
    assert not compiled_here
    made = launcher_class(get_language("kotlin_script").javac)
    assert build.files[f"{LAUNCHER_CLASS}.class"] == Path(made).read_bytes()
    assert "Main.class" in build.files and build.entry == LAUNCHER_CLASS


def test_without_a_cache_the_build_compiles_the_launcher_beside_the_script(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("MICROCODER_CACHE", str(blocked / "cache"))
    with pytest.warns(UserWarning), tempfile.TemporaryDirectory() as work:
        build = _build(work)
        compiled_here = os.path.exists(os.path.join(work, f"{LAUNCHER_CLASS}.java"))
    assert build.ok, build.message
    assert compiled_here
    assert build.files[f"{LAUNCHER_CLASS}.class"][:4] == CLASS_MAGIC
