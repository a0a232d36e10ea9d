"""The one registry type (accord.registry): the same decorator, the same unknown-name error, built-ins
first, plugins from installed distributions' entry points only when a name is not built in.

Plugins here are real distributions on sys.path (a ``*.dist-info`` folder with ``entry_points.txt``
next to its module), found by importlib.metadata as pip-installed ones are; tests/test_plugins.py
installs real packages into a fresh environment and drives the command line."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from accord.adapters import GENERATORS, JUDGES
from accord.consensus_core import POLICIES
from accord.proofs import CLAIMS
from accord.registry import BUILT_IN, PluginError, Registry, UnknownName
from accord.verify.tasks import TASKS

GROUP = "accord.test_parts"


def _distribution(site: Path, name: str, modules: dict[str, str], entry_points: dict[str, str]) -> None:
    """An installed distribution as importlib.metadata sees one: its metadata and its modules."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")
    for module, source in modules.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """A registry of 'parts' (module test_parts_registry on sys.path, so plugins can register in it),
    with two built-in parts and installed plugins: a good one, one that registers nothing, one that
    does not import."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "test_parts_registry.py").write_text(
        f"from accord.registry import Registry\nPARTS = Registry('part', {GROUP!r}, builtins=('test_parts_builtin',))\n"
    )
    (site / "test_parts_builtin.py").write_text(
        "from test_parts_registry import PARTS\n"
        "@PARTS.register('alpha')\n"
        "def alpha():\n    '''The first part.'''\n"
        "@PARTS.register('beta', lambda f: ('made', f))\n"
        "def beta(): pass\n"
    )
    source = "from test_parts_registry import PARTS\n@PARTS.register('gamma')\ndef gamma():\n    '''A plugin part.'''\n"
    _distribution(site, "acme-gamma", {"acme_gamma": source}, {"gamma": "acme_gamma"})
    _distribution(site, "acme-empty", {"acme_empty": "x = 1\n"}, {"delta": "acme_empty"})
    _distribution(
        site, "acme-broken", {"acme_broken": "raise RuntimeError('no config found')\n"}, {"eps": "acme_broken"}
    )
    monkeypatch.syspath_prepend(str(site))
    for m in [m for m in sys.modules if m.startswith(("test_parts_", "acme_"))]:
        monkeypatch.delitem(sys.modules, m)
    import test_parts_registry

    return test_parts_registry.PARTS


def test_built_ins_first_and_a_plugin_only_for_a_name_no_built_in_has(parts):
    assert parts.get("alpha").__name__ == "alpha" and parts.get("beta")[0] == "made"
    assert parts.part("alpha").origin == BUILT_IN
    assert "acme_gamma" not in sys.modules  # looking up built-in names imports no plugin
    assert parts.get("gamma").__name__ == "gamma"
    assert parts.part("gamma").origin == "acme-gamma 1.0" and "acme_gamma" in sys.modules
    assert [p.name for p in parts.loaded()] == ["alpha", "beta", "gamma"]


def test_an_unknown_name_lists_the_known_ones_built_in_and_installed(parts):
    with pytest.raises(UnknownName, match=r"^unknown part 'zeta'; choose one of alpha, beta, delta, eps, gamma$"):
        parts.get("zeta")
    assert isinstance(UnknownName("x"), ValueError)  # callers that catch ValueError keep working
    assert "zeta" not in parts and "alpha" in parts


def test_a_plugin_that_fails_or_registers_nothing_is_one_line_naming_it(parts):
    with pytest.raises(PluginError) as broken:
        parts.get("eps")
    assert str(broken.value) == (
        f"plugin acme-broken 1.0 ({GROUP}: eps = acme_broken) failed to load: RuntimeError: no config found"
    )
    with pytest.raises(PluginError, match=r"plugin acme-empty 1.0 .* loaded but registered no part named 'delta'"):
        parts.get("delta")
    loaded, bad = parts.survey()
    assert [p.name for p in loaded] == ["alpha", "beta", "gamma"] and sorted(bad) == ["delta", "eps"]
    with pytest.raises(PluginError):
        parts.everything()


def test_a_name_is_registered_once(parts):
    parts.get("alpha")
    with pytest.raises(ValueError, match=r"part 'alpha' is already registered \(by "):

        @parts.register("alpha")
        def another():
            pass

    def alpha():  # the same definition again (a module imported twice) replaces it
        pass

    alpha.__module__, alpha.__qualname__ = "test_parts_builtin", "alpha"
    parts.register("alpha")(alpha)
    assert parts.get("alpha") is alpha
    with pytest.raises(TypeError, match="needs a name"):
        parts.register("")


def test_two_plugins_declaring_one_name_are_refused(parts, tmp_path):
    site = tmp_path / "site"
    _distribution(site, "acme-gamma-too", {"acme_gamma_too": "x = 1\n"}, {"gamma": "acme_gamma_too"})
    with pytest.raises(
        PluginError, match="'gamma' is declared by several installed plugins: acme-gamma 1.0, acme-gamma-too 1.0"
    ):
        parts.get("gamma")


def test_a_built_in_module_missing_an_extra_does_not_hide_the_others(tmp_path, monkeypatch):
    site = tmp_path / "site2"
    site.mkdir()
    (site / "test_parts_needs_extra.py").write_text("import a_missing_extra_module\n")
    monkeypatch.syspath_prepend(str(site))
    reg = Registry("part", GROUP + ".none", builtins=("test_parts_needs_extra",))
    with pytest.raises(
        UnknownName, match=r"built-in module 'test_parts_needs_extra' failed to import \(ModuleNotFoundError"
    ):
        reg.get("anything")


class _Stopped(BaseException):
    """What a time limit raises in the code it stops (never caught as an Exception)."""


def test_built_ins_whose_import_was_stopped_are_imported_again_at_the_next_lookup(tmp_path, monkeypatch):
    site = tmp_path / "site3"
    site.mkdir()
    (site / "test_parts_stoppable.py").write_text(
        "from test_parts_holder import REGISTRY, stop_once\nstop_once()\nREGISTRY.add('made', 1)\n"
    )
    (site / "test_parts_holder.py").write_text("REGISTRY = None\nstop_once = None\n")
    monkeypatch.syspath_prepend(str(site))
    import test_parts_holder

    reg = Registry("part", GROUP + ".none", builtins=("test_parts_stoppable",))
    stops = []

    def stop_once():
        if not stops:
            stops.append(1)
            raise _Stopped

    monkeypatch.setattr(test_parts_holder, "REGISTRY", reg)
    monkeypatch.setattr(test_parts_holder, "stop_once", stop_once)
    with pytest.raises(_Stopped):
        reg.get("made")  # the import is stopped halfway
    assert reg.get("made") == 1  # not an empty registry for good: imported again


@pytest.mark.parametrize(
    "registry, group, builtin",
    [
        (JUDGES, "accord.judges", "arithmetic"),
        (POLICIES, "accord.policies", "verdict"),
        (TASKS, "accord.tasks", "basic_arithmetic"),
        (GENERATORS, "accord.generators", "text"),
        (CLAIMS, "accord.claims", "equilibrium-foc"),
    ],
)
def test_every_kind_of_part_is_one_registry_of_the_one_type(registry, group, builtin):
    assert isinstance(registry, Registry) and registry.group == group
    part = registry.part(builtin)
    assert part.origin == BUILT_IN
    doc, options = registry.describe(part)
    assert doc and isinstance(options, dict)
    with pytest.raises(UnknownName, match=rf"^unknown {registry.kind} 'no-such-part'; choose one of .*{builtin}"):
        registry.get("no-such-part")
