"""The build flags a problem may give (``evaluator/languages/flag_rules.py``): g++'s harmless
shapes pass, and every flag that runs, loads, reads or writes something else is refused,
named; the flags that pass are ones g++ takes (a real build)."""

from __future__ import annotations

import pytest

from evaluator.languages import get_language
from evaluator.languages.builds import Builder
from evaluator.languages.flag_rules import NO_FLAGS

CPP = get_language("cpp")

ALLOWED = [
    ["-std=c++20", "-O2", "-DLOCAL"],
    ["-std=gnu++17", "-O0"],
    ["-std=c++0x", "-Ofast", "-Os", "-Og", "-O", "-ansi"],
    ["-DX=1 2", "-D", "N=5", "-Df(x)=((x)*2)", "-UX", "-U", "NDEBUG"],
    ["-w", "-Wall", "-Wextra", "-Wno-unused-result", "-Werror=return-type", "-Wformat=2"],
    ["-Wc++11-compat", "-Wframe-larger-than=4096", "-pedantic", "-pedantic-errors"],
    ["-g", "-g3", "-ggdb"],
    ["-fno-exceptions", "-frtti", "-ftemplate-depth=2000", "-fdiagnostics-color=never"],
    ["-fopenmp", "-funroll-loops", "-fno-stack-protector", "-fconstexpr-ops-limit=100000000"],
    ["-march=native", "-mtune=generic", "-mavx2", "-mno-avx", "-mbmi2"],
    ["-pthread", "-static", "-static-libstdc++", "-s", "-pipe", "-no-pie", "-lm", "-lgmp"],
    ["--param", "max-inline-insns-single=100", "--param=max-unroll-times=4"],
]

REFUSED = [
    (["-wrapper", "/bin/sh,-c,id"], "-wrapper"),  # runs any command before each program
    (["-Wl,-rpath,/tmp"], "-Wl,-rpath,/tmp"),  # options for the linker
    (["-Wa,-o,/tmp/x"], "-Wa,-o,/tmp/x"),
    (["-Wp,-MD,/tmp/x"], "-Wp,-MD,/tmp/x"),
    (["-fplugin=/tmp/x.so"], "-fplugin=/tmp/x.so"),  # loads a shared object into cc1plus
    (["-fplugin-arg-x-y=z"], "-fplugin-arg-x-y=z"),
    (["-fdump-tree-all"], "-fdump-tree-all"),  # writes files
    (["-fprofile-generate"], "-fprofile-generate"),
    (["-fprofile-use=/etc"], "-fprofile-use=/etc"),  # reads files
    (["-fauto-profile=/x"], "-fauto-profile=/x"),
    (["-flto=auto"], "-flto=auto"),  # runs make
    (["-fuse-ld=gold"], "-fuse-ld=gold"),
    (["-fsanitize=address"], "-fsanitize=address"),
    (["-fmodules-ts", "-fmodule-mapper=|sh"], "-fmodules-ts"),
    (["-specs=/tmp/evil.specs"], "-specs=/tmp/evil.specs"),  # a spec can run anything
    (["-B/tmp/"], "-B/tmp/"),  # where g++ finds cc1plus, as, ld
    (["--sysroot=/tmp"], "--sysroot=/tmp"),
    (["@/etc/passwd"], "@/etc/passwd"),  # a response file: more options
    (["-o", "/tmp/x"], "-o"),
    (["-x", "c"], "-x"),
    (["-c"], "-c"),
    (["-E"], "-E"),
    (["-save-temps"], "-save-temps"),
    (["-MD"], "-MD"),
    (["-MF", "/tmp/deps"], "-MF"),
    (["-I."], "-I."),  # a problem ships no files to include
    (["-I", "/etc"], "-I"),
    (["-include", "/etc/passwd"], "-include"),
    (["-isystem", "/tmp"], "-isystem"),
    (["-L/tmp"], "-L/tmp"),
    (["-lfoo"], "-lfoo"),
    (["-Xlinker", "--wrap=main"], "-Xlinker"),
    (["-T", "/tmp/script.ld"], "-T"),
    (["-gsplit-dwarf"], "-gsplit-dwarf"),
    (["-march=native,x"], "-march=native,x"),
    (["extra.o"], "extra.o"),  # a file: compiled or linked in
    (["-std=c++17 -O2"], "-std=c++17 -O2"),  # one item, not two flags
    (["-DX\nY"], "-DX\nY"),  # a line end in a macro
    (["-D1X"], "-D1X"),
    (["-O2", "-wrapper", "x"], "-wrapper"),  # the first refused one is named
]


@pytest.mark.parametrize("flags", ALLOWED, ids=lambda flags: " ".join(flags)[:40])
def test_harmless_shapes_pass(flags):
    assert CPP.flag_rule.refusal(flags) is None
    assert CPP.data_flags(flags, "the flags") == tuple(flags)


@pytest.mark.parametrize(("flags", "named"), REFUSED, ids=lambda value: str(value)[:40])
def test_every_other_flag_is_refused_naming_it(flags, named):
    why = CPP.flags_refusal(flags)
    assert why is not None and why.startswith(repr(named)), why
    with pytest.raises(ValueError, match="^the problem's cpp_flags: "):
        CPP.flags({"cpp_flags": flags}, None)


def test_an_argument_taking_flag_needs_a_safe_argument():
    assert CPP.flags_refusal(["-D"]) == "'-D' needs an argument"
    assert CPP.flags_refusal(["-D", "-wrapper"]).startswith("-D '-wrapper' is not allowed")
    assert CPP.flags_refusal(["--param", "x=/tmp"]).startswith("--param 'x=/tmp'")


def test_the_operators_flags_are_trusted_and_other_languages_take_none():
    # the grading options' (--cpp-flags) go to g++ as given: the operator's own command line
    assert CPP.flags({"cpp_flags": ["-wrapper", "x"]}, ["-B/opt/gcc/"]) == ("-B/opt/gcc/",)
    assert NO_FLAGS.refusal(["-O2"]).startswith("'-O2' is not a build flag allowed")
    assert NO_FLAGS.refusal([]) is None


def test_g_plus_plus_takes_the_allowed_flags():
    """The shapes are g++'s own: a build with many of them at once succeeds (no CPU-specific
    or static-library flag: those depend on the machine)."""
    flags = ("-std=gnu++20", "-O3", "-DX=1 2", "-D", "Y", "-UZ", "-Wall", "-Wextra")
    flags += ("-Wno-unused-result", "-Werror=return-type", "-Wformat=2", "-g", "-fno-rtti")
    flags += ("-ftemplate-depth=2000", "-fdiagnostics-color=never", "-pthread", "-lm")
    flags += ("--param", "max-unroll-times=4", "-pipe", "-s", "-fopenmp")
    assert CPP.flag_rule.refusal(flags) is None
    source = '#include <bits/stdc++.h>\nint main() { std::printf("%d\\n", Y); }\n'
    with Builder(prepare=False) as builder:
        build = builder.submit(CPP, source, flags).result()
    assert build.ok, build.output


@pytest.mark.parametrize(
    ("language", "allowed", "refused"),
    [
        ("rust", ["--edition=2015", "-O"], ["-C", "linker=/bin/sh"]),
        ("rust", ["--edition", "2018"], ["-L", "/root"]),
        ("rust", ["--edition=2024"], ["--extern", "rand=/tmp/x.rlib"]),
        ("typescript", ["--target", "esnext", "--module", "commonjs"], ["--outDir", "/tmp"]),
        ("typescript", ["--target", "es2022", "--skipLibCheck", "--strict"], ["--plugins", "x"]),
        ("typescript", ["--module", "nodenext"], ["--target", "$(id)"]),
    ],
)
def test_rustc_and_tsc_take_the_shapes_that_change_how_the_source_reads(language, allowed, refused):
    """MultiPL-E builds Rust with its default edition and TypeScript for ``esnext``: data
    may say so; what reads, writes or runs anything else is refused, named."""
    rule = get_language(language).flag_rule
    assert rule.refusal(allowed) is None
    assert refused[-1] in (rule.refusal(refused) or "") or refused[0] in rule.refusal(refused)
