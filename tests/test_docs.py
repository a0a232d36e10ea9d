"""The docs are true to the tree: every module, file, name and import rule they name exists.

Read: README.md, docs/*.md and the docstrings and comments of accord itself. A reference is
``accord.x.y`` (a module, or a name in one), a path ``accord/x/y.py`` or one written from inside the
package (``verify/run/_setup.py``), optionally with ``::name``. docs/architecture.md's tree names
each package's modules (``_engine``, ``builtin_judges/``): each must exist, and every module of
accord must be named there. Its import rules quote their contracts by name: each must be one of
pyproject.toml's, and every contract must be quoted.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "accord"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
TOP = ("consensus_core", "adapters", "verify", "cli", "proofs", "mathcheck", "timelimit")
# names that look like modules but are not: the entry-point groups plugins declare parts in
ENTRY_POINT_GROUPS = {"accord.judges", "accord.policies", "accord.tasks", "accord.generators", "accord.claims"}
# names that look like paths but are not: what accord registers in inspect_ai ("accord/verify_steps")
INSPECT_NAMES = {f"accord/{name}" for name in importlib.import_module("accord.integrations.inspect_ai").__all__}

DOTTED = re.compile(r"(?<![\w./<-])accord(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(rf"(?<![\w./-])(?:accord/|(?=(?:{'|'.join(TOP)})/))[\w/]*\w(?:\.py)?/?(?:::\w+)?")


@cache
def _resolves(dotted: str) -> bool:
    """Whether ``accord.a.b.c`` is a module, or a name (lazy ones too) in the longest module prefix."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            continue
        obj = importlib.import_module(name)
        for attr in parts[k:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def _path_resolves(ref: str) -> bool:
    path, _, name = ref.partition("::")
    target = ROOT / path if path.startswith("accord/") else PACKAGE / path
    if not target.exists():
        return False
    if not name:
        return True
    module = ".".join(target.relative_to(ROOT).with_suffix("").parts)
    return _resolves(f"{module}.{name}")


def _sources() -> list[tuple[str, str]]:
    """(where, text) of every doc and of every module of accord."""
    out = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in DOCS]
    out += [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in sorted(PACKAGE.rglob("*.py"))]
    return out


IMPORT = re.compile(r"^\s*(?:>>> )?from (accord[\w.]*) import \(?([\w, ]+)")


def _references() -> list[tuple[str, int, str]]:
    found = []
    for where, text in _sources():
        for n, line in enumerate(text.splitlines(), 1):
            imported = IMPORT.match(line) if where.endswith(".md") else None  # a doc's examples import real names
            if imported:
                module = imported.group(1)
                names = [x.split(" as ")[0].strip() for x in imported.group(2).split(",") if x.strip()]
                found += [(where, n, f"{module}.{name}") for name in names]
            for m in DOTTED.finditer(line):
                ref = m.group(0).rstrip(".")
                if ref not in ENTRY_POINT_GROUPS and not line[m.end() : m.end() + 1] == "*":
                    found.append((where, n, ref))
            for m in PATH.finditer(line):
                if m.group(0) not in INSPECT_NAMES:
                    found.append((where, n, m.group(0)))
    return found


def test_every_module_file_and_name_the_docs_and_docstrings_name_exists():
    missing = []
    for where, n, ref in _references():
        ok = _path_resolves(ref) if "/" in ref else _resolves(ref)
        if not ok:
            missing.append(f"{where}:{n}: {ref}")
    assert missing == []


def test_the_reference_finder_sees_what_it_must():
    """The patterns find the forms the docs use (a finder that sees nothing passes anything)."""
    line = "see `accord/verify/io/_inputs.py`, verify/run/_setup.py::build_generator and accord.adapters.JUDGES"
    assert [m.group(0) for m in PATH.finditer(line)] == [
        "accord/verify/io/_inputs.py",
        "verify/run/_setup.py::build_generator",
    ]
    assert [m.group(0) for m in DOTTED.finditer(line)] == ["accord.adapters.JUDGES"]
    assert _path_resolves("verify/run/_setup.py::build_generator") and not _path_resolves("verify/run/_nope.py")
    assert _resolves("accord.verify.tasks.TextTask") and not _resolves("accord.verify.tasks.NoSuchName")
    assert len(_references()) > 200


# ---------------------------------------------------------------------------- the architecture's tree


def _tree() -> dict[str, set[str]]:
    """Package (``accord.verify.loop``) -> the modules and sub-packages the tree names in it."""
    text = ARCHITECTURE.read_text()
    block = text.split("## Tree", 1)[1].split("```", 2)[1]
    named: dict[str, set[str]] = {}
    stack: list[tuple[int, str]] = []  # (indent, package) of the lines above
    package = "accord"
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        head = line.split()[0]
        named_here = re.fullmatch(r"(accord/[\w/]*\w(?:/|\.py)?|[a-z]\w*/?|[a-z]\w*\.py)", head)
        entry = bool(named_here) and (head.startswith("accord/") or indent < 24)  # deeper: a description
        if entry:
            while stack and stack[-1][0] >= indent:
                stack.pop()
            if head.startswith("accord/"):
                dotted = head.rstrip("/").removesuffix(".py").replace("/", ".")
                parent, _, leaf = dotted.rpartition(".")
            else:
                parent, leaf = (stack[-1][1] if stack else "accord"), head.rstrip("/").removesuffix(".py")
                dotted = f"{parent}.{leaf}"
            named.setdefault(parent, set()).add(leaf)
            if head.endswith("/"):
                stack.append((indent, dotted))
                package = dotted
            else:
                package = parent
        text = line[len(head) + indent :] if entry else line
        for token in re.findall(r"(?<![\w./`])(_[a-z]\w*|[a-z]\w*/|[a-z]\w*\.py)(?=[\s),:;]|$)", text):
            named.setdefault(package, set()).add(token.rstrip("/").removesuffix(".py"))
    return named


def _modules(package: str) -> set[str]:
    folder = PACKAGE.parent / package.replace(".", "/")
    names = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    names |= {p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    return names


def test_the_architecture_tree_names_only_modules_that_exist():
    missing = [f"{pkg}.{m}" for pkg, mods in sorted(_tree().items()) for m in sorted(mods) if m not in _modules(pkg)]
    assert missing == []


@pytest.mark.parametrize(
    "package",
    sorted(
        ".".join(p.relative_to(PACKAGE.parent).parts)
        for p in [PACKAGE, *PACKAGE.rglob("*")]
        if p.is_dir() and (p / "__init__.py").exists() and "mathcheck" not in p.parts
    ),
)
def test_the_architecture_tree_names_every_module(package):
    """Every module and sub-package of accord is in the tree, with what it does (the math engine, a
    package of its own rewritten on its own schedule, is named as a whole)."""
    assert sorted(_modules(package) - _tree().get(package, set())) == []


def test_the_tree_reader_reads_the_tree():
    tree = _tree()
    assert {"_engine", "_panel", "_margin", "_trace"} <= tree["accord.verify.loop"]
    assert {"builtin_judges", "local", "served"} <= tree["accord.adapters"]


# ---------------------------------------------------------------------------- the import rules


def _contracts() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {c["name"] for c in config["tool"]["importlinter"]["contracts"]}


def test_the_import_rules_quote_exactly_the_contracts_lint_imports_checks():
    rules = ARCHITECTURE.read_text().split("## Rules", 1)[1].split("\n## ", 1)[0]
    quoted = {" ".join(q.split()) for q in re.findall(r"\*\*“(.+?)”\*\*", rules, re.S)}  # wrapped lines joined
    assert quoted, "the rules quote no contract"
    assert quoted - _contracts() == set(), "rules quoting a contract pyproject.toml does not have"
    assert _contracts() - quoted == set(), "contracts the rules do not explain"
