"""Each default is written once in the package, in the lowest layer that needs it, and every
caller (the commands' options included) takes it from there (issue 42). The test reads the
package's source: a literal written a second time fails it, naming the file and line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.report.stats_defaults import DEFAULT_RESAMPLES
from evaluator.service.server_defaults import DEFAULT_HOST, DEFAULT_MAX_WAITING

ROOT = Path(__file__).resolve().parent.parent
EVALUATOR = ROOT / "evaluator"

# Where the same number means something else, and what.
OTHER_MEANINGS = {
    ("evaluator/sandbox/files/marks.py", 1024): "F_SETLEASE, a fcntl command number",
    ("evaluator/sandbox/inside/process.py", 1024): "bytes of /proc/self/stat read",
    ("evaluator/reward/frameworks/openrlhf.py", 1024): "characters of a prompt's tail searched",
}
# The homes of the defaults the commands take at their start: plain constants in modules that
# import nothing, so that taking them imports neither NumPy (the report's statistics) nor
# Starlette and uvicorn (the service). Each home's users write none of them again.
LIGHT_HOMES = {
    "evaluator/report/stats_defaults.py": [
        "evaluator/report/stats.py",
        "evaluator/report/compare.py",
        "evaluator/cli/report.py",
    ],
    "evaluator/service/server_defaults.py": [
        "evaluator/service/app.py",
        "evaluator/service/uvicorn_server.py",
        "evaluator/cli/serve.py",
    ],
}
HEAVY = ("numpy", "starlette", "uvicorn")


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(EVALUATOR.parent).as_posix(), ast.parse(path.read_text(), str(path)))
        for path in sorted(EVALUATOR.rglob("*.py"))
    ]


MODULES = _modules()


def _unit_factor(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """``x * 1024``, ``x // 1024``, ``1 << 10``: a unit's size, not a default."""
    parent = parents.get(node)
    units = (ast.Mult, ast.Div, ast.FloorDiv, ast.LShift, ast.RShift)
    return isinstance(parent, ast.BinOp) and isinstance(parent.op, units)


def _literals(value: float | int) -> list[str]:
    """Where the literal ``value`` (of exactly its type) is written, unit factors aside."""
    found = []
    for where, tree in MODULES:
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and type(node.value) is type(value)
                and node.value == value
                and not _unit_factor(node, parents)
                and (where, value) not in OTHER_MEANINGS
            ):
                found.append(f"{where}:{node.lineno}")
    return found


@pytest.mark.parametrize(
    ("value", "home"),
    [
        (6.0, "evaluator/default_limits.py"),  # DEFAULT_TIME_LIMIT, seconds of CPU per test
        (1024, "evaluator/default_limits.py"),  # DEFAULT_MEMORY_LIMIT (MB)
    ],
)
def test_the_default_limits_are_written_once(value, home):
    found = [where.split(":")[0] for where in _literals(value)]
    if value == 1024:  # the fork server's stack, another default with the same size
        assert found.count("evaluator/sandbox/jobs.py") == 1, _literals(value)
        found.remove("evaluator/sandbox/jobs.py")
    assert found == [home], _literals(value)


def test_the_wall_clock_backstop_is_computed_in_one_place():
    """``2 * time + 1`` (or ``time * 2 + 1``): the sandbox's ``default_test_wall`` only."""
    found = []
    for where, tree in MODULES:
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Add)
                and isinstance(node.left, ast.BinOp)
                and isinstance(node.left.op, ast.Mult)
                and isinstance(node.right, ast.Constant)
                and node.right.value == 1
            ):
                continue
            factors = (node.left.left, node.left.right)
            if any(isinstance(f, ast.Constant) and f.value == 2 for f in factors):
                found.append(f"{where}:{node.lineno}")
    assert [w.split(":")[0] for w in found] == ["evaluator/sandbox/jobs.py"], found


def _library_defaults(where: str) -> dict[str, object]:
    """The literal defaults a library module writes: its dataclass fields', its functions'
    parameters' and its ``NAME = literal`` constants' (``DEFAULT_X`` as ``x``)."""
    tree = dict(MODULES)[where]
    found: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if isinstance(node.value, ast.Constant):
                found[node.target.id.lower().removeprefix("default_")] = node.value.value
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.isupper():
                    found[target.id.lower().removeprefix("default_")] = node.value.value
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults))
            defaults += node.args.defaults + node.args.kw_defaults
            for arg, default in zip(args, defaults, strict=True):
                if isinstance(default, ast.Constant):
                    found.setdefault(arg.arg, default.value)
    return found


def _option_literals(where: str) -> dict[str, tuple[object, int]]:
    """A command module's click options whose default is a literal: by parameter name."""
    found = {}
    for node in ast.walk(dict(MODULES)[where]):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "option"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant)]
        default = next((k.value for k in node.keywords if k.arg == "default"), None)
        if not names or not isinstance(default, ast.Constant) or default.value is None:
            continue
        plain = [n for n in names if not n.startswith("-")]
        name = plain[0] if plain else names[0].split("/")[0].lstrip("-").replace("-", "_")
        found[name] = (default.value, node.lineno)
    return found


# Each command module and the library modules whose defaults its options are.
COUNTERPARTS = {
    "evaluator/cli/generate.py": ["evaluator/generate.py"],
    "evaluator/cli/report.py": [
        "evaluator/report/stats_defaults.py",
        "evaluator/report/stats.py",
        "evaluator/report/compare.py",
    ],
    "evaluator/cli/serve.py": [
        "evaluator/service/server_defaults.py",
        "evaluator/service/app.py",
        "evaluator/service/uvicorn_server.py",
    ],
    "evaluator/cli/options.py": ["evaluator/default_limits.py", "evaluator/runner/grading.py"],
    "evaluator/cli/dataset.py": ["evaluator/datasets/check.py", "evaluator/datasets/convert.py"],
}


@pytest.mark.parametrize("command", sorted(COUNTERPARTS))
def test_no_option_writes_its_library_default_again(command):
    library: dict[str, object] = {}
    for where in COUNTERPARTS[command]:
        library.update(_library_defaults(where))
    repeated = [
        f"{command}:{line} --{name} writes {value!r} again"
        for name, (value, line) in _option_literals(command).items()
        if name in library and library[name] == value and type(library[name]) is type(value)
    ]
    assert repeated == []


@pytest.mark.parametrize("home", sorted(LIGHT_HOMES))
def test_the_light_homes_defaults_are_written_nowhere_else(home):
    """No parameter, field or option of the home's users writes a literal default under one of
    the home's names; no option of its command writes one of its values (``--max-queue`` is
    ``max_waiting``'s)."""
    defaults = _library_defaults(home)
    assert defaults, home
    found = []
    for where in LIGHT_HOMES[home]:
        if where.startswith("evaluator/cli/"):
            for name, (value, line) in _option_literals(where).items():
                same = [k for k, v in defaults.items() if v == value and type(v) is type(value)]
                if name in defaults or same:
                    found.append(f"{where}:{line} --{name} writes {value!r}")
        else:
            written = {k: v for k, v in _library_defaults(where).items() if v is not None}
            found += [
                f"{where}: {name} = {written[name]!r}" for name in defaults if name in written
            ]
    assert found == []


def test_the_commands_start_without_numpy_or_starlette():
    """``mcevaluate --help``, ``compare --help`` and ``serve --help`` show the defaults from
    their homes without importing NumPy, Starlette or uvicorn."""
    code = (
        "import sys\n"
        "from evaluator.cli import main\n"
        "for args in (['--help'], ['compare', '--help'], ['serve', '--help']):\n"
        "    main(args, standalone_mode=False)\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.splitlines()[-1] == "[]", out.stdout
    assert f"[default: {DEFAULT_RESAMPLES};" in out.stdout
    assert f"[default: {DEFAULT_HOST}]" in out.stdout
    # the packages' exports still reach the heavy modules when asked
    from evaluator.report import load_run
    from evaluator.service import Settings

    assert load_run.__module__ == "evaluator.report.runs"
    assert Settings().max_waiting == DEFAULT_MAX_WAITING
