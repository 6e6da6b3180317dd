"""The class-data archive every JVM program runs with (:mod:`evaluator.languages.jvm_archive`):
made once per JDK in the user's cache, checked, read-only, mapped by the JVM (the classes of
our list come from it), on the judge's command line and readable in the sandbox; where it
cannot be made the JVM runs as before, with a warning."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from evaluator.languages import get_language, jvm_archive

JAVA = shutil.which("java")
pytestmark = pytest.mark.skipif(JAVA is None, reason="java is not installed; setup.sh installs it")


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROCODER_CACHE", str(tmp_path / "cache"))
    jvm_archive.archive_for.cache_clear()
    yield tmp_path / "cache"
    jvm_archive.archive_for.cache_clear()


def test_made_once_read_only_and_mapped(own_cache):
    path = jvm_archive.archive_for(JAVA)
    assert path is not None and path.startswith(str(own_cache / "jvm-cds"))
    assert os.stat(path).st_mode & 0o777 == 0o444
    made = os.stat(path).st_mtime_ns
    jvm_archive.archive_for.cache_clear()
    assert jvm_archive.archive_for(JAVA) == path and os.stat(path).st_mtime_ns == made
    assert os.listdir(own_cache / "jvm-cds") == [os.path.basename(path)]  # no leftovers
    # a class of our list (Scanner: not in the JDK's own archive's list) loads from it
    argv = [JAVA, "-Xshare:on", "-XX:+UseSerialGC", f"-XX:SharedArchiveFile={path}",
            "-Xlog:class+load", "-version"]  # fmt: skip
    loaded = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    assert "java.lang.Object source: shared objects file" in loaded
    listed = subprocess.run([*argv[:-1], "-cp", "/nonexistent", "java.util.Scanner"],
                            capture_output=True, text=True).stdout  # fmt: skip
    assert "java.util.Scanner source: shared objects file" in listed


def test_our_list_names_jdk_classes_only():
    with open(jvm_archive.CLASS_LIST) as listed:
        names = [line.split()[0] for line in listed if line.strip() and line[0] != "#"]
    assert len(names) > 500
    for name in names:
        assert name.startswith(("java/", "javax/", "jdk/", "sun/", "com/sun/", "@lambda-form"))


def test_without_a_cache_the_jvm_runs_as_before(own_cache, monkeypatch):
    own_cache.parent.joinpath("file").write_text("")
    monkeypatch.setenv("MICROCODER_CACHE", str(own_cache.parent / "file" / "below"))
    with pytest.warns(UserWarning, match="no jvm-cds file jdk-"):
        assert jvm_archive.archive_for(JAVA) is None


def test_on_the_judges_command_line_and_readable_in_the_sandbox():
    java = get_language("java")
    options = java.jvm_options(256)
    archive = jvm_archive.archive_for(java.runtime())
    assert archive is not None
    assert options[-1] == f"-XX:SharedArchiveFile={archive}"
    assert archive in java.runtime_reads
    for name in ("junit", "scala"):  # the other languages on the JVM run with it too
        assert f"-XX:SharedArchiveFile={archive}" in get_language(name).argv(None, 256)
