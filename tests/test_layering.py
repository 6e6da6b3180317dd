"""Module boundaries from the brief: the evaluator never imports the training add-on, importing
it (library, CLI, reward) never imports torch or trl, and the layers import one way."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVALUATOR = ROOT / "evaluator"


def _imports(folder: Path):
    """(path:line, imported module) for every import in ``folder``, lazy ones included."""
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                yield f"{path.relative_to(EVALUATOR.parent)}:{node.lineno}", name


def test_evaluator_imports_nothing_from_trainer_addon():
    offenders = [
        where for where, name in _imports(EVALUATOR) if name.split(".")[0] == "trainer_addon"
    ]
    assert offenders == []


def test_the_sandbox_imports_nothing_above_it():
    """The sandbox (how a process runs, the code inside the child included) knows nothing of
    harnesses, judges or grading: it imports only itself, the leaves ``evaluator.lazy`` and
    ``evaluator.default_limits`` (the default limits, written once) and the standard library."""
    offenders = [
        f"{where} imports {name}"
        for where, name in _imports(EVALUATOR / "sandbox")
        if name.split(".")[0] == "evaluator"
        and not name.startswith(("evaluator.sandbox", "evaluator.lazy", "evaluator.default_limits"))
    ]
    assert offenders == []


# Words that name a platform, a dataset or one of their conventions: every problem format's
# name and every interpreter environment's (but the generic ones), and the rest by hand.
_GENERIC = {"ours", "tests", "input_output", "verification_info", "assert_case", "plain"}
_CONVENTION_WORDS = {"leetcode", "leetcodedataset", "evalplus", "debugbench", "lcb"}
_CONVENTION_TEXT = ("Solution", "check(candidate)")  # LeetCode's class, HumanEval's tests


def _convention_words() -> set[str]:
    from evaluator.formats.registry import formats
    from evaluator.harness.environments import ENVIRONMENTS

    named = (set(formats()) | set(ENVIRONMENTS)) - _GENERIC
    return {_word(name) for name in named} | _CONVENTION_WORDS


def _word(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


def _policy_in(text: str, where: str, words: set[str]) -> list[str]:
    """Where a module's ``text`` names a platform, a dataset or a convention of theirs (code,
    comments and docstrings alike), or reads a problem's ``metadata`` or ``platform``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = {_word(t) for t in re.findall(r"[A-Za-z][A-Za-z0-9_-]*", line)}
        named = sorted(tokens & words)
        named += [m for m in _CONVENTION_TEXT if re.search(rf"\b{re.escape(m)}(?!\w)", line)]
        found += [f"{where}:{number} names {name!r}" for name in named]
    for node in ast.walk(ast.parse(text, where)):
        key = None
        if isinstance(node, ast.Attribute):
            key = node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            key = node.value
        if key in ("metadata", "platform"):
            found.append(f"{where}:{node.lineno} reads {key!r}")
    return found


def test_the_sandbox_knows_no_problem():
    """The sandbox holds confinement only (docs/architecture.md, "What the sandbox knows"):
    nothing under ``evaluator/sandbox/`` reads a problem's metadata or names a platform, a
    dataset or one of their conventions; those reach the child as plain data in its job
    (``Job.names``, ``entry_class``, ``check_name``, ``environment``), chosen by the harness
    layer (evaluator/harness/conventions.py, evaluator/harness/environments.py)."""
    words = _convention_words()
    offenders = [
        found
        for path in sorted((EVALUATOR / "sandbox").rglob("*.py"))
        for found in _policy_in(path.read_text(), path.relative_to(ROOT).as_posix(), words)
    ]
    assert offenders == []


def test_the_sandbox_check_sees_policy():
    probe = (
        "# as LeetCode's judge does\n"
        "platform = problem.metadata.get('platform')\n"
        "cls = namespace.get('Solution')\n"
        '"""the tests define no check(candidate); SandboxFusion files; solution.py"""\n'
    )
    found = _policy_in(probe, "probe.py", _convention_words())
    assert sorted(f.split(" ", 1)[1] for f in found) == [
        "names 'Solution'",
        "names 'check(candidate)'",
        "names 'leetcode'",
        "names 'sandboxfusion'",
        "reads 'metadata'",
        "reads 'platform'",
    ]


# The layers, lowest first (docs/architecture.md draws them). A module may import its own
# layer and those below; the longest matching prefix places a module.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("model", ("evaluator.problem", "evaluator.lazy", "evaluator.default_limits")),
    ("sandbox", ("evaluator.sandbox",)),
    ("languages", ("evaluator.languages",)),
    (
        "records",
        (
            "evaluator.formats",
            "evaluator.summary",
            "evaluator.lcb_releases",
            "evaluator.provenance",
            "evaluator.report",
            "evaluator.data",
            "evaluator.generate",
        ),
    ),
    ("harness", ("evaluator.harness",)),
    ("judges", ("evaluator.judges",)),
    ("runner", ("evaluator.runner",)),
    ("backends and dataset tools", ("evaluator.backends", "evaluator.datasets")),
    ("callers", ("evaluator.reward", "evaluator.cli", "evaluator.service")),
    ("the package's exports", ("evaluator",)),
]


def _modules() -> dict[str, Path]:
    found = {}
    for package in (EVALUATOR, ROOT / "trainer_addon"):
        for path in package.rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _module_imports(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports: lazy ones, relative ones and those under
    ``if TYPE_CHECKING:`` included. ``from pkg import submodule`` depends on the submodule
    (a package's ``__init__`` runs for any of its submodules anyway)."""
    base = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                module = ".".join([*parts, *([module] if module else [])])
            subs = {f"{module}.{alias.name}" for alias in node.names}
            targets.update(subs & MODULES.keys())
            if subs - MODULES.keys():
                targets.add(module)
    return {t for t in targets if t in MODULES and t != name}


GRAPH = {name: _module_imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> int:
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def test_every_module_has_a_layer():
    for module in MODULES:
        if module.startswith("evaluator"):
            _layer(module)


def test_no_import_runs_up_a_layer():
    offenders = [
        f"{module} ({LAYERS[_layer(module)][0]}) imports {target} ({LAYERS[_layer(target)][0]})"
        for module, targets in GRAPH.items()
        if module.startswith("evaluator")
        for target in sorted(targets)
        if target.startswith("evaluator") and _layer(target) > _layer(module)
    ]
    assert offenders == []


def test_no_modules_import_each_other():
    """No cycle of any length among the project's modules (Tarjan's strongly connected
    components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert cycles == []


def test_the_cycle_check_sees_type_checking_imports(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from evaluator.runner import run\n"
    )
    assert _module_imports("evaluator.runner.grading", path) == {"evaluator.runner.run"}


def test_importing_the_evaluator_does_not_import_torch():
    code = (
        "import sys, evaluator, evaluator.cli, evaluator.reward, evaluator.runner; "
        "from evaluator import CodeReward, Grader; "
        "heavy = sorted(m for m in ('torch', 'trl', 'transformers', 'ray') if m in sys.modules); "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# What the add-on may import of the evaluator: the package and its documented subpackages,
# never a module inside them (their insides may move; their exports do not).
PUBLIC_API = {
    "evaluator",
    "evaluator.problem",
    "evaluator.formats",
    "evaluator.generate",
    "evaluator.lazy",
    "evaluator.runner",
    "evaluator.reward",
    "evaluator.datasets",
    "evaluator.report",
}


def test_the_add_on_imports_only_the_evaluators_public_api():
    offenders = [
        f"{where} imports {name}"
        for where, name in _imports(ROOT / "trainer_addon")
        if name.split(".")[0] == "evaluator" and name not in PUBLIC_API
    ]
    assert offenders == []


# The formats' rooms (issue 56): evaluator/formats/sources/ holds one reader per source, and
# evaluator/formats/ beside it the machinery they share (registry, record files, fields, errors,
# limits, test lists, the rules and decoders several sources share, our schema).
SOURCES = "evaluator.formats.sources"
# The shared modules that may import a source reader, and why
LISTS_SOURCES = {
    "evaluator.formats.registry": "it lists the formats: it finds every source's FORMAT",
    "evaluator.formats": "the package's front door: it re-exports readers' public functions",
}


def _is_source(module: str) -> bool:
    return module.startswith(SOURCES + ".")


def _formats_room_breaches(graph: dict[str, set[str]]) -> list[str]:
    """Where, in ``graph`` (module -> the project modules it imports), a source reader imports
    another source reader, or a shared module of ``evaluator.formats`` imports a source reader
    (but those of :data:`LISTS_SOURCES`)."""
    found = []
    for module, targets in sorted(graph.items()):
        inside = module == "evaluator.formats" or module.startswith("evaluator.formats.")
        if not inside or module in LISTS_SOURCES:
            continue
        for target in sorted(t for t in targets if _is_source(t) and t != module):
            room = "the source" if _is_source(module) else "the shared module"
            found.append(f"{room} {module} imports the source {target}")
    return found


def test_no_source_reader_imports_another():
    """A source reader (``evaluator/formats/sources/<source>.py``) imports the shared machinery
    of ``evaluator/formats/`` only: a rule or decoder two sources share lives in a shared
    module (``formats/source_rules.py``, ``formats/assert_lists.py``, ``formats/schema.py``),
    never in one source that the other imports."""
    breaches = _formats_room_breaches(GRAPH)
    assert [b for b in breaches if b.startswith("the source ")] == []


def test_no_shared_formats_module_imports_a_source_reader():
    """The shared modules of ``evaluator/formats/`` import no source reader, except the
    registry, which lists them (it finds every module of ``sources/`` defining ``FORMAT``, at
    run time), and the package's ``__init__``, which re-exports a few readers' public
    functions (``problem_from_lcb``...): :data:`LISTS_SOURCES`."""
    breaches = _formats_room_breaches(GRAPH)
    assert [b for b in breaches if b.startswith("the shared module ")] == []


def test_the_formats_room_check_sees_a_breach(tmp_path):
    source = tmp_path / "probe_source.py"
    source.write_text(
        "from . import taco\nfrom .primeintellect import problem_from_verification_info\n"
        "from ..fields import expect_str\nfrom ..testlists import DecodedTests\n"
    )
    shared = tmp_path / "probe_shared.py"
    shared.write_text("from .sources.taco import from_codewars\nfrom .errors import InputError\n")
    graph = {
        f"{SOURCES}.probe_source": _module_imports(f"{SOURCES}.probe_source", source),
        "evaluator.formats.probe_shared": _module_imports("evaluator.formats.probe_shared", shared),
        "evaluator.formats.registry": {f"{SOURCES}.taco"},  # listed: it may
        "evaluator.runner.probe": {f"{SOURCES}.taco"},  # outside the formats: not this check's
    }
    assert _formats_room_breaches(graph) == [
        f"the shared module evaluator.formats.probe_shared imports the source {SOURCES}.taco",
        f"the source {SOURCES}.probe_source imports the source {SOURCES}.primeintellect",
        f"the source {SOURCES}.probe_source imports the source {SOURCES}.taco",
    ]


def _problems_built_in(text: str, where: str) -> list[str]:
    """Where ``text`` calls ``Problem(...)`` itself."""
    return [
        f"{where}:{node.lineno}"
        for node in ast.walk(ast.parse(text, where))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Problem"
    ]


def test_no_source_reader_builds_a_problem_itself():
    """A source reader's ``Problem`` comes from one of the builders every reader shares, so a
    field a row can give is added in one place: ``DecodedTests.problem``
    (``formats/testlists.py``) for tests decoded from a row, ``formats/code_tests.py`` for
    tests that are code run once with the answer, ``formats/schema.py`` for our schema."""
    folder = EVALUATOR / "formats" / "sources"
    built = [
        found
        for path in sorted(folder.glob("*.py"))
        for found in _problems_built_in(path.read_text(), path.relative_to(ROOT).as_posix())
    ]
    assert built == []


def test_the_problem_builder_check_sees_a_call():
    probe = "from ...problem import Problem\nx = Problem(id='a')\ny = problem.Problem\n"
    assert _problems_built_in(probe, "probe.py") == ["probe.py:2"]


def test_every_source_module_is_a_registered_format_and_no_shared_one_is():
    """One module per source: each module of ``sources/`` defines the ``FORMAT`` (or formats)
    the registry lists, and no shared module of ``evaluator/formats/`` defines one (a reader
    there would be a source outside its room, and the registry would not find it)."""
    import importlib

    from evaluator.formats.registry import Format, formats

    listed = {id(fmt) for fmt in formats().values()}
    unlisted, misplaced = [], []
    for module in sorted(MODULES):
        if not module.startswith("evaluator.formats.") or module == SOURCES:
            continue
        value = getattr(importlib.import_module(module), "FORMAT", None)
        found = value if isinstance(value, tuple) else (value,)
        found = [fmt for fmt in found if isinstance(fmt, Format)]
        if _is_source(module) and (not found or any(id(fmt) not in listed for fmt in found)):
            unlisted.append(module)
        elif not _is_source(module) and found:
            misplaced.append(module)
    assert (unlisted, misplaced) == ([], [])


# Modules outside evaluator/formats/ that build a Problem, and why it is not a record decoded
# there: a problem record is read by its source's format only (docs/datasets.md).
_BUILDS_PROBLEMS = {
    "evaluator/problem.py": "the model itself",
    "evaluator/runner/run.py": "a placeholder for a record that could not be read",
    "evaluator/service/compat/sandbox_fusion.py": "/run_code's one program run, not a problem record",
}


def test_no_module_outside_formats_decodes_a_problem_record():
    """Every problem record is read by the format registry (issue 40): outside
    ``evaluator/formats/``, nothing constructs a ``Problem`` or a ``TestCase`` (the listed
    exceptions build no record's problem) and nothing reaches into a format's decoders."""
    offenders = []
    for path in sorted(EVALUATOR.rglob("*.py")):
        where = path.relative_to(EVALUATOR.parent).as_posix()
        if where.startswith("evaluator/formats/") or where in _BUILDS_PROBLEMS:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            name = (
                node.func.id
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                else ""
            )
            if name in ("Problem", "TestCase"):
                offenders.append(f"{where}:{node.lineno} builds a {name}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "evaluator.formats.testlists"
            ):
                offenders.append(f"{where}:{node.lineno} imports a format's decoders")
    assert offenders == []


# The RL frameworks' adapters (issue 41) and their endpoints on the service: thin layers over
# CodeReward's public API (submit, problems, closed; grader= and problems= to share a server's),
# so that the reward's insides can change without breaking every framework at once. Each kind in
# its room (issue 56): evaluator/reward/frameworks/ and evaluator/service/compat/. Paths are
# relative to evaluator/reward/ and evaluator/service/.
REWARD = EVALUATOR / "reward"
SERVICE = EVALUATOR / "service"
_FRAMEWORKS = ("areal", "open_r1", "openrlhf", "openrlhf_reward_func", "skyrl", "slime",
               "verifiers", "verl")  # fmt: skip
FRAMEWORK_ADAPTERS = ("labels", "shared", *(f"frameworks/{name}" for name in _FRAMEWORKS))
FRAMEWORK_ENDPOINTS = ("graders", *(f"compat/{name}" for name in
                                    ("e2b", "nemo_gym", "openrlhf", "piston", "slime")))  # fmt: skip
# the reward itself and the rooms' package docstrings, not adapters
_REWARD_CORE = ("__init__", "code_reward", "columns", "frameworks/__init__")


def _framework_files() -> list[Path]:
    adapters = [REWARD / f"{name}.py" for name in FRAMEWORK_ADAPTERS]
    return adapters + [SERVICE / f"{name}.py" for name in FRAMEWORK_ENDPOINTS]


def _exports(module: str) -> set[str] | None:
    """A project module's ``__all__`` (read, not imported); None when it has none."""
    path = MODULES.get(module)
    if path is None:
        return None
    for node in ast.parse(path.read_text(), str(path)).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return set(ast.literal_eval(node.value))
    return None


def _private_uses(path: Path, name: str | None = None) -> list[str]:
    """Where ``path`` imports a project module's name that the module does not export (an
    underscore name, or one outside its ``__all__``), or touches another object's private
    attribute (``reward._problems``; its own ``self._x`` is its business). ``name``: the
    module's dotted name (default: from its place in the repository)."""
    name = name or ".".join(path.relative_to(ROOT).with_suffix("").parts)
    base = name.rpartition(".")[0]
    where = name
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                module = ".".join([*parts, *([module] if module else [])])
            if not module.startswith("evaluator"):
                continue
            exported = _exports(module)
            for alias in node.names:
                if f"{module}.{alias.name}" in MODULES:
                    continue  # a submodule
                if alias.name.startswith("_") or (
                    exported is not None and alias.name not in exported
                ):
                    found.append(f"{where}:{node.lineno} imports {module}.{alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            dunder = node.attr.startswith("__") and node.attr.endswith("__")
            mine = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not dunder and not mine:
                found.append(f"{where}:{node.lineno} uses {ast.unparse(node)}")
    return found


def test_framework_adapters_use_only_the_rewards_public_api():
    offenders = [use for path in _framework_files() for use in _private_uses(path)]
    assert offenders == []


def test_the_public_api_check_sees_a_private_use(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(
        "from evaluator.reward.columns import _TRL_KEYWORDS\n"
        "from .code_reward import CodeReward, Grader\n"
        "reward._problems.get(1)\n"
    )
    assert [use.split(" ", 1)[1] for use in _private_uses(path, "evaluator.reward.probe")] == [
        "imports evaluator.reward.columns._TRL_KEYWORDS",
        "imports evaluator.reward.code_reward.Grader",  # there, but not exported
        "uses reward._problems",
    ]


def test_every_framework_module_is_checked():
    """A new adapter in evaluator/reward/, or a new service module that grades through the
    reward, is listed above (and so checked)."""
    adapters = {p.relative_to(REWARD).with_suffix("").as_posix() for p in REWARD.rglob("*.py")}
    assert adapters - set(_REWARD_CORE) == set(FRAMEWORK_ADAPTERS)
    graders = {
        name.removeprefix("evaluator.service.").replace(".", "/")
        for name, targets in GRAPH.items()
        if name.startswith("evaluator.service.")
        and any(t.startswith("evaluator.reward") for t in targets)
    }
    assert graders <= set(FRAMEWORK_ENDPOINTS), graders - set(FRAMEWORK_ENDPOINTS)


def test_the_reward_imports_neither_the_service_nor_the_cli():
    """The reward and its adapters run inside training processes: the service and the CLI
    build on them, never the other way (they share the callers' layer)."""
    offenders = [
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        if module.startswith("evaluator.reward")
        for target in sorted(targets)
        if target.startswith(("evaluator.service", "evaluator.cli"))
    ]
    assert offenders == []


# The adapters' rooms (issue 56): a generic module of the reward or the service (what every
# framework shares) imports no adapter, so that an adapter can be added, changed or dropped
# without touching them. The exceptions, each the one place that must name the adapters:
ADAPTER_ROOMS = ("evaluator.reward.frameworks", "evaluator.service.compat")
ADAPTER_ASSEMBLIES = {
    "evaluator.reward": "re-exports verl's functions: verl loads them as pkg://evaluator.reward",
    "evaluator.service.app": "mounts the other services' endpoints as routes of the application",
}
MAX_REWARD_LEVELS = 5  # the longest chain of imports between modules of evaluator/reward/


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _generic_modules_importing_adapters(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} imports {target}"
        for module, targets in graph.items()
        if (_in(module, "evaluator.reward") or _in(module, "evaluator.service"))
        and not any(_in(module, room) for room in ADAPTER_ROOMS)
        and module not in ADAPTER_ASSEMBLIES
        for target in sorted(targets)
        if any(_in(target, room) for room in ADAPTER_ROOMS)
    ]


def test_no_generic_module_imports_an_adapter():
    assert _generic_modules_importing_adapters(GRAPH) == []


def test_the_adapter_check_sees_a_generic_module_import_an_adapter():
    graph = {
        "evaluator.reward.labels": {"evaluator.reward.frameworks.verl"},
        "evaluator.service.graders": {"evaluator.service.compat.slime", "evaluator.reward"},
        "evaluator.reward.frameworks.openrlhf": {"evaluator.reward.frameworks.verl"},
        "evaluator.service.app": {"evaluator.service.compat.piston"},
    }
    assert _generic_modules_importing_adapters(graph) == [
        "evaluator.reward.labels imports evaluator.reward.frameworks.verl",
        "evaluator.service.graders imports evaluator.service.compat.slime",
    ]


def _longest_chain(graph: dict[str, set[str]], package: str) -> list[str]:
    """The longest chain of imports between modules of ``package`` (the graph has no cycle:
    :func:`test_no_modules_import_each_other`)."""
    chains: dict[str, list[str]] = {}

    def chain(module: str) -> list[str]:
        if module not in chains:
            inner = [chain(t) for t in sorted(graph.get(module, ())) if _in(t, package)]
            chains[module] = [module, *max(inner, key=len, default=[])]
        return chains[module]

    return max((chain(m) for m in sorted(graph) if _in(m, package)), key=len, default=[])


def test_the_reward_has_at_most_five_import_levels():
    chain = _longest_chain(GRAPH, "evaluator.reward")
    assert len(chain) <= MAX_REWARD_LEVELS, " -> ".join(chain)


def test_the_levels_count_sees_a_long_chain():
    graph = {f"p.m{i}": {f"p.m{i + 1}", "q.x"} for i in range(6)} | {"p.m6": set(), "q.x": set()}
    graph["p.side"] = {"p.m5"}
    assert _longest_chain(graph, "p") == [f"p.m{i}" for i in range(7)]


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_code_reward_reaches_no_cli_module():
    """CodeReward runs inside training processes: nothing it imports, however far down,
    is a module of the command line (read from the sources, and seen in a fresh interpreter)."""
    reached = _reached(GRAPH, "evaluator.reward.code_reward")
    assert "evaluator.runner.grading" in reached  # the walk goes down the layers
    assert sorted(m for m in reached if _in(m, "evaluator.cli")) == []
    code = (
        "import sys, evaluator.reward.code_reward; "
        "print(sorted(m for m in sys.modules if m.startswith('evaluator.cli')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_reach_check_follows_imports_down():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"evaluator.cli.plan"}, "evaluator.cli.plan": set()}
    assert _reached(graph, "a") == {"a", "b", "c", "evaluator.cli.plan"}


# A file name said once in the package, so that a search for it lands in one room (issue 42).
# The twins kept, and why each is one concept's piece in several layers, not two concepts.
ALLOWED_TWINS = {
    "base.py": "each package's own base class (a judge, a language)",
    "errors.py": "each package's own errors (input files, HTTP requests)",
    "generate.py": "the generate command (cli/) over the library module it drives",
    "nemo_gym.py": "one platform: its rows (formats/), its endpoint (service/compat/)",
    "openrlhf.py": "one framework: its reward (reward/frameworks/), its endpoint (service/compat/)",
    "sandbox_fusion.py": "one platform: its rows, its judge, its API (formats/, judges/, "
    "service/compat/)",
    "slime.py": "one framework: its reward (reward/frameworks/), its endpoint (service/compat/)",
}


def test_no_two_modules_share_a_name_unless_listed():
    seen: dict[str, list[str]] = {}
    for package in (EVALUATOR, ROOT / "trainer_addon"):
        for path in package.rglob("*.py"):
            if path.name not in ("__init__.py", "__main__.py"):
                seen.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
    twins = {name: sorted(paths) for name, paths in seen.items() if len(paths) > 1}
    assert set(twins) == set(ALLOWED_TWINS), twins


# The tests mirror the packages: tests/<package>/ holds the tests of evaluator/<package>/ (and
# tests/trainer_addon/ the add-on's), tests/<language>/ a language's (tests/python/ beside
# tests/cpp/), tests/ itself those of the top-level modules and of the whole. These folders
# cross the packages by design:
CROSS_CUTTING_TESTS = {
    "data": "the third-party data vendored for the tests (no tests of its own)",
    "fuzz": "hypothesis: every reader, judge, child report and grader total on any input",
    "frameworks": "the RL frameworks end to end, through the reward and the service",
}


def test_the_test_folders_mirror_the_packages():
    packages = {p.name for p in EVALUATOR.iterdir() if (p / "__init__.py").exists()}
    languages = {
        p.stem
        for p in (EVALUATOR / "languages").glob("*.py")
        if "\nLANGUAGE = " in p.read_text()  # a module that defines a language
    }
    folders = {
        p.name
        for p in (ROOT / "tests").iterdir()
        if p.is_dir() and not p.name.startswith((".", "__"))
    }
    mirrors = packages | languages | {"trainer_addon"}
    assert folders - mirrors - set(CROSS_CUTTING_TESTS) == set()
    assert set(CROSS_CUTTING_TESTS) <= folders
