"""Rust test programs graded as ``cargo test`` judges them (the ``rust_test`` language): each
case runs plainly (``cargo test`` itself, in a Cargo project over the same installed crates)
and in the sandbox (``rustc --test`` against the crates the builder prepared, then the test
binary), and the sandbox passes exactly what ``cargo test`` passes: the rand, regex and md5
crates used, a failed assert (libtest's exit status 101), a panic, an overflow (the dev
profile's checks), compile errors (the rand 0.4 API among them: no binary, CE), a program with
no test, output, an exit inside a test. Also: a build waits for the prepared crates, even in a
builder that prepares nothing else; crates that are not installed make the program
UNSUPPORTED, naming the packages."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from evaluator.languages import Build, Language, ToolchainMissing
from evaluator.languages import rust_test as module
from evaluator.languages.builds import Builder
from evaluator.languages.rust_test import CONFIG, CRATES, INSTALL, LANGUAGE, REGISTRY
from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import Grader


def _missing() -> str:
    """Why Rust tests cannot be built here ("" when they can)."""
    try:
        cargo = os.path.join(LANGUAGE.sysroot, "bin", "cargo")
    except ToolchainMissing as exc:
        return str(exc)
    if not os.path.exists(cargo):
        return "needs cargo (rustup's toolchain, or apt-get install cargo)"
    if module.missing_crates():
        return f"needs the rand, regex and md5 crates ({INSTALL})"
    return ""


needs_crates = pytest.mark.skipif(bool(_missing()), reason=_missing() or "installed")

HEAD = "use rand::Rng;\nuse regex::Regex;\nuse md5;\n\nfn main() {}\n\n"
CASES = {
    "uses_the_crates": HEAD
    + """fn digest(s: &str) -> String { format!("{:x}", md5::compute(s)) }
fn digits(s: &str) -> bool { Regex::new(r"^\\d+$").unwrap().is_match(s) }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn crates() {
        let x: i32 = rand::thread_rng().gen_range(0..10);
        assert!((0..10).contains(&x));
        assert!(digits("123") && !digits("12a"));
        assert_eq!(digest("hello"), "5d41402abc4b2a76b9719d911017c592");
    }
    #[test]
    fn another() { assert_eq!(1 + 1, 2); }
}
""",
    "assert_fails": HEAD
    + """fn add(a: i32, b: i32) -> i32 { a + b }
#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn adds() { assert_eq!(add(1, 2), 4); }
    #[test]
    fn passes() { assert_eq!(add(1, 2), 3); }
}
""",
    "panics": HEAD
    + """#[cfg(test)]
mod tests {
    #[test]
    fn boom() { let v: Vec<i32> = vec![]; println!("{}", v[1]); }
}
""",
    "overflow_checked": HEAD
    + """fn bump(x: u8) -> u8 { x + std::hint::black_box(1) }
#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn wraps() { assert_eq!(bump(255), 0); }
}
""",
    "compile_error": HEAD + 'fn f() -> i32 { "a" }\n',
    "rand_04_api": HEAD
    + """#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn old() { let mut rng = rand::thread_rng(); let _x: i32 = rng.gen_range(0, 2); }
}
""",
    "no_tests": HEAD + "fn helper() -> i32 { 1 }\n",
    "prints_and_passes": HEAD
    + """#[cfg(test)]
mod tests {
    #[test]
    fn hi() { println!("hi"); eprintln!("there"); }
}
""",
    "exit_zero_in_a_test": HEAD
    + """#[cfg(test)]
mod tests {
    #[test]
    fn leaves() { std::process::exit(0); }
    #[test]
    fn fails() { std::thread::sleep(std::time::Duration::from_millis(200)); panic!("late"); }
}
""",
    "many_threads": HEAD
    + """#[cfg(test)]
mod tests {
    #[test]
    fn spawns() {
        let hs: Vec<_> = (0..16u64).map(|i| std::thread::spawn(move || i * 2)).collect();
        assert_eq!(hs.into_iter().map(|h| h.join().unwrap()).sum::<u64>(), 240);
    }
    #[test]
    fn second() { assert!(true); }
    #[test]
    fn third() { assert!(true); }
}
""",
}
# How a plain `cargo test` failure reads in the sandbox: the test binary's status (libtest's
# 101), or no binary at all (the build failed).
SANDBOX_FAILS = {
    "assert_fails": Verdict.RE,
    "panics": Verdict.RE,
    "overflow_checked": Verdict.RE,
    "compile_error": Verdict.CE,
    "rand_04_api": Verdict.CE,
}
MANIFEST = """[package]
name = "plain"
version = "0.1.0"
edition = "2021"

[dependencies]
{dependencies}"""


def _problem(name: str) -> Problem:
    return Problem(name, Harness.STDIN, [TestCase("", "")], time_limit=10.0, judge="exit")


@pytest.fixture(scope="module")
def cargo_test(tmp_path_factory):
    """``cargo test`` of a source, plainly: a Cargo project (``src/main.rs``) over the same
    installed crates, built once; its verdict (``"pass"``, ``"CE"`` or ``"exit N"``)."""
    project = tmp_path_factory.mktemp("cargo-test")
    dependencies = "".join(f'{name} = "{wanted}"\n' for name, wanted in CRATES)
    (project / "Cargo.toml").write_text(MANIFEST.format(dependencies=dependencies))
    (project / ".cargo").mkdir()
    config = CONFIG.format(registry=REGISTRY, rustc=LANGUAGE.compiler)
    (project / ".cargo" / "config.toml").write_text(config)
    (project / "src").mkdir()
    cargo = os.path.join(LANGUAGE.sysroot, "bin", "cargo")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C", "HOME": str(project)}
    lock = threading.Lock()

    def run(source: str) -> str:
        with lock:
            (project / "src" / "main.rs").write_text(source)
            command = [cargo, "test", "--offline", "--color", "never"]
            built = subprocess.run([*command, "--no-run"], cwd=project, env=env,
                                   capture_output=True, timeout=600)  # fmt: skip
            if built.returncode != 0:
                return "CE"
            done = subprocess.run(command, cwd=project, env=env, capture_output=True, timeout=120)
            return "pass" if done.returncode == 0 else f"exit {done.returncode}"

    return run


@needs_crates
@pytest.mark.parametrize("name", list(CASES))
def test_the_sandbox_passes_what_cargo_test_passes(languages_grader, cargo_test, name):
    source = CASES[name]
    plain = cargo_test(source)
    expected = {Verdict.RE: "exit 101", Verdict.CE: "CE"}.get(SANDBOX_FAILS.get(name), "pass")
    assert plain == expected  # the reference itself, as listed
    result = languages_grader.grade(_problem(name), source, language="rust_test")
    assert result.verdict is SANDBOX_FAILS.get(name, Verdict.AC), result
    if result.verdict is Verdict.RE:
        assert result.message == "exit status 101"


@needs_crates
def test_a_failed_test_says_so_in_its_output(languages_grader):
    result = languages_grader.grade(_problem("f"), CASES["assert_fails"], language="rust_test")
    assert result.verdict is Verdict.RE and result.message == "exit status 101"
    assert "test tests::adds ... FAILED" in result.tests[0].stdout  # (its start is kept)


@needs_crates
def test_a_compile_error_gives_rustcs_first_error(languages_grader):
    result = languages_grader.grade(_problem("ce"), CASES["compile_error"], language="rust_test")
    assert result.verdict is Verdict.CE
    assert result.message.startswith("error[E0308]: mismatched types"), result.message
    result = languages_grader.grade(_problem("ce"), CASES["rand_04_api"], language="rust_test")
    assert result.verdict is Verdict.CE and "SampleRange" in result.message  # rand 0.8's API


@needs_crates
def test_the_build_is_rustc_test_against_the_crates(languages_grader):
    builder = languages_grader.builder
    extra = builder.prepared(LANGUAGE, LANGUAGE.default_flags)
    assert extra[:2] == ("-L", extra[1]) and extra[1].startswith("dependency=")
    externs = [extra[i + 1] for i, flag in enumerate(extra) if flag == "--extern"]
    assert [e.split("=", 1)[0] for e in externs] == ["rand", "regex", "md5"]
    assert all(os.path.isfile(e.split("=", 1)[1]) for e in externs)
    command = LANGUAGE.command(LANGUAGE.default_flags)
    assert command[1] == "--test" and "-O" not in command  # cargo test's dev profile
    assert "crates rand-0.8" in LANGUAGE.version() and "md5-0.7" in LANGUAGE.version()


# -- a build that needs prepared work ------------------------------------------------------


class _Needy(Language):
    """A language whose builds need its prepared work (no compiler: the build says what it
    was given)."""

    name = "needy"
    compiled = True
    needs_prepared = True
    default_flags = ("-x",)

    def __init__(self, delay: float = 0.0, fails: BaseException | None = None) -> None:
        self.delay, self.fails, self.prepared = delay, fails, 0

    def version(self) -> str:
        return "needy 1"

    def prepare(self, flags, directory, tool):
        time.sleep(self.delay)
        self.prepared += 1
        if self.fails is not None:
            raise self.fails
        return ("--ready", directory)

    def build(self, source, flags, work, tool):
        return Build(" ".join(flags).encode())


def test_a_build_waits_for_the_work_it_needs_even_when_nothing_is_prepared():
    language = _Needy(delay=0.5)
    with Builder(prepare=False) as builder:
        builds = [builder.submit(language, f"s{i}", language.default_flags) for i in range(3)]
        flags = [future.result(timeout=30).binary.decode().split() for future in builds]
    assert language.prepared == 1
    assert all(f[:2] == ["-x", "--ready"] for f in flags)


def test_a_build_whose_needed_work_failed_raises_why():
    language = _Needy(fails=ToolchainMissing("the crates are not installed"))
    with Builder() as builder:
        for source in ("a", "b"):
            with pytest.raises(ToolchainMissing, match="the crates are not installed"):
                builder.submit(language, source, language.default_flags).result(timeout=30)
        assert builder.prepared(language, language.default_flags) == ()
    assert language.prepared == 1  # tried once


def test_a_build_with_untrusted_flags_gets_no_needed_work():
    language = _Needy()
    with Builder() as builder:
        with pytest.raises(OSError, match="only for the grader's own flags"):
            builder.submit(language, "a", ("-y",)).result(timeout=30)
        builder.trust(language, ("-y",))
        assert builder.submit(language, "a", ("-y",)).result(timeout=30).binary.startswith(b"-y")


# -- the crates not installed --------------------------------------------------------------


def test_missing_crates_make_the_program_unsupported_naming_the_packages(
    monkeypatch, tmp_path, languages_grader
):
    monkeypatch.setattr(module, "REGISTRY", str(tmp_path))
    assert module.missing_crates() == ["rand", "regex", "md5"]
    result = languages_grader.grade(_problem("m"), CASES["no_tests"], language="rust_test")
    assert result.verdict is Verdict.UNSUPPORTED, result.message
    assert result.message.startswith("rust_test programs are not graded on this machine")
    assert "apt-get install librust-rand-dev librust-regex-dev" in result.message


def test_crates_missing_when_preparing_make_the_program_unsupported(
    monkeypatch, tmp_path, languages_grader
):
    """The crates checked again where they are built (gone since the version was read): the
    build raises ToolchainMissing, which the grader reports as UNSUPPORTED."""
    monkeypatch.setattr(module, "REGISTRY", str(tmp_path))
    monkeypatch.setattr(module.RustTest, "version", lambda self: "rustc; crates gone")
    language = module.RustTest()
    with Builder() as builder:
        with pytest.raises(ToolchainMissing, match="librust-md5-dev"):
            builder.submit(language, "fn main() {}", language.default_flags).result(timeout=60)
        with Grader(pool=languages_grader.pool, builder=builder) as grader:
            result = grader.grade(_problem("m"), CASES["no_tests"], language=language)
    assert result.verdict is Verdict.UNSUPPORTED, result.message
    assert "could not be built" not in result.message and "librust-md5-dev" in result.message
