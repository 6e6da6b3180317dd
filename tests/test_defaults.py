"""Each default is written once in the package, in the lowest layer that needs it, and every
caller (the commands' options included) takes it from there (issue 42). The test reads the
package's source: a literal written a second time fails it, naming the file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

EVALUATOR = Path(__file__).resolve().parent.parent / "evaluator"

# Where the same number means something else, and what.
OTHER_MEANINGS = {
    ("evaluator/sandbox/files.py", 1024): "F_SETLEASE, a fcntl command number",
    ("evaluator/sandbox/inside/state.py", 1024): "bytes of /proc/self/stat read",
    ("evaluator/reward/openrlhf.py", 1024): "characters of a prompt's tail searched",
}
# Options that repeat a library default because taking it would import a heavy library at
# every command's start (numpy for report/stats.py, starlette for the service); each names
# its home. (The grading, dataset and generation options take theirs.)
REPEATED_FOR_IMPORT_COST = {
    ("evaluator/cli/report.py", "resamples"): "report/stats.py DEFAULT_RESAMPLES",
    ("evaluator/cli/report.py", "level"): "report/stats.py DEFAULT_LEVEL",
    ("evaluator/cli/report.py", "seed"): "report/stats.py bootstrap_interval(seed=0)",
    ("evaluator/cli/serve.py", "drain_seconds"): "service/uvicorn_server.py DRAIN_SECONDS",
    ("evaluator/cli/serve.py", "host"): "service/uvicorn_server.py serve(host=...)",
    ("evaluator/cli/serve.py", "port"): "service/uvicorn_server.py serve(port=...)",
}


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
    """``2 * time + 1`` (or ``time * 2 + 1``): the sandbox's ``wall_backstop`` only."""
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
    "evaluator/cli/report.py": ["evaluator/report/stats.py", "evaluator/report/compare.py"],
    "evaluator/cli/serve.py": ["evaluator/service/app.py", "evaluator/service/uvicorn_server.py"],
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
        if name in library
        and library[name] == value
        and type(library[name]) is type(value)
        and (command, name) not in REPEATED_FOR_IMPORT_COST
    ]
    assert repeated == []


def test_the_known_repetitions_are_still_there():
    """The list above does not outlive what it excuses."""
    for command, name in REPEATED_FOR_IMPORT_COST:
        assert name in _option_literals(command), (command, name)
