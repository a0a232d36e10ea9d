"""Parts looked up by name, and the installed packages (plugins) that add more.

Every kind of part a config or a flag names — judge types, consensus policies, task sources,
generators, proof claims — lives in one :class:`Registry` of its kind, filled the same way: a
decorator ``@register_<kind>("name", ...its own keywords...)`` on the part, which it returns
unchanged. An unknown name is the same error everywhere (:class:`UnknownName`, listing the known
ones), and ``accord list <kind>`` shows every part with its options and docs.

A registry imports its built-in parts on its first lookup. A name it does not hold is then looked
for among the installed packages: a plugin declares an entry point in the kind's group, named
after the part, whose value is the module that registers it (pyproject.toml)::

    [project.entry-points."accord.judges"]
    word_count = "my_judges"         # importing my_judges runs @register_judge("word_count", ...)

Only a name that no built-in part has loads a plugin, so a run that names built-in parts never
imports one. A plugin that fails to import, or imports without registering the name it declares,
is a :class:`PluginError`: one line naming the plugin and what went wrong.

This module imports nothing else of accord: the consensus core registers its policies here.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Generic, TypeVar

T = TypeVar("T")

BUILT_IN = "accord"  # the origin of a part registered by accord itself
REQUIRED = "(required)"  # an option's default when it has none


class UnknownName(ValueError):
    """A name no part of the kind has (built in or installed); the message lists the known ones."""


class PluginError(Exception):
    """An installed plugin that cannot be used: one line naming it and what went wrong."""


@dataclass(frozen=True)
class Part(Generic[T]):
    """One registered part: its name, what was registered, and where it came from (``accord``,
    a plugin as ``distribution version``, or the module that registered it)."""

    name: str
    value: T
    origin: str
    defined_at: str = dataclasses.field(default="", repr=False)  # module:qualname of what was decorated


class Registry(Generic[T]):
    """The parts of one kind, by name.

    ``kind`` words the part in messages ("judge type"); ``group`` is the entry-point group plugins
    declare their parts in; ``builtins`` are the module names (a trailing ``.*``: every module of
    that package; ``.*_checks``: those whose name matches) imported on the first lookup;
    ``describe(value)`` gives a part's ``(doc, options)`` for the listing.
    """

    def __init__(
        self,
        kind: str,
        group: str,
        builtins: tuple[str, ...] = (),
        describe: Callable[[T], tuple[str, dict[str, Any]]] | None = None,
    ):
        self.kind, self.group, self.builtins = kind, group, builtins
        self._describe = describe or (lambda value: (first_paragraph(value), {}))
        self._parts: dict[str, Part[T]] = {}
        self._loaded = False
        self._broken: dict[str, str] = {}  # built-in modules that failed to import: module -> why
        self._loading: str | None = None  # the plugin being imported (the origin of what it registers)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ registering

    def register(self, name: str, make: Callable[[Any], T] = lambda obj: obj) -> Callable[[Any], Any]:
        """The decorator every ``register_<kind>`` returns: ``make(obj)`` is what is stored under
        ``name``; ``obj`` is returned unchanged."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"a {self.kind} needs a name (a non-empty string), got {name!r}")

        def deco(obj: Any) -> Any:
            self.add(name, make(obj), obj)
            return obj

        return deco

    def add(self, name: str, value: T, obj: Any = None) -> None:
        """Stores ``value`` under ``name``. Another part already under that name is a ValueError;
        the same definition again (a module imported twice) replaces it."""
        where = _defined_at(obj if obj is not None else value)
        with self._lock:
            held = self._parts.get(name)
            if held is not None and held.defined_at != where:
                raise ValueError(f"{self.kind} {name!r} is already registered (by {held.origin})")
            module = where.split(":", 1)[0]
            origin = self._loading or (BUILT_IN if module.split(".")[0] == "accord" else module)
            self._parts[name] = Part(name, value, origin, where)

    # ------------------------------------------------------------------ looking up

    def get(self, name: str) -> T:
        """The part named ``name``: a built-in one, else the installed plugin that declares it."""
        return self.part(name).value

    def part(self, name: str) -> Part[T]:
        parts = self._builtins()
        if name not in parts:
            self._load_plugin(name)
        if name not in parts:
            raise UnknownName(self.unknown(name))
        return parts[name]

    def __contains__(self, name: str) -> bool:
        try:
            self.part(name)
        except UnknownName:
            return False
        return True

    def names(self) -> list[str]:
        """The names a config may use: the parts held (built-ins first loaded) and those installed
        plugins declare (not imported)."""
        return sorted(set(self._builtins()) | {ep.name for ep in self._entry_points()})

    def loaded(self) -> list[Part[T]]:
        """The parts held now: the built-ins and the plugins loaded so far, in registration order."""
        return list(self._builtins().values())

    def values(self) -> Iterator[T]:
        return (p.value for p in self.loaded())

    def everything(self) -> list[Part[T]]:
        """Every part, each installed plugin of the group loaded: the built-ins in registration order,
        then the plugins' (what "run them all" runs); a plugin that cannot be used is a PluginError."""
        parts, broken = self.survey()
        if broken:
            raise PluginError(next(iter(broken.values())))
        return parts

    def survey(self) -> tuple[list[Part[T]], dict[str, str]]:
        """Every part that loads, and for each installed plugin that cannot be used, the name it
        declares and the one line saying why (what a listing shows)."""
        self._builtins()
        broken = {}
        for ep in self._entry_points():
            if ep.name not in self._parts and ep.name not in broken:
                try:
                    self._load_plugin(ep.name)
                except PluginError as exc:
                    broken[ep.name] = str(exc)
        return list(self._parts.values()), broken

    def describe(self, part: Part[T]) -> tuple[str, dict[str, Any]]:
        """``(doc, options)`` of a part: its documentation's first paragraph and each option's default."""
        return self._describe(part.value)

    def unknown(self, name: Any) -> str:
        """The one message for a name no part has."""
        broken = "".join(f"; built-in module {m!r} failed to import ({why})" for m, why in self._broken.items())
        return f"unknown {self.kind} {name!r}; choose one of {', '.join(self.names())}{broken}"

    # ------------------------------------------------------------------ loading

    def _builtins(self) -> dict[str, Part[T]]:
        if not self._loaded:
            with self._lock:
                if not self._loaded and self._loading is None:  # (a built-in looking a part up while loading)
                    self._loading = BUILT_IN
                    try:
                        for module in _expand(self.builtins):
                            try:
                                importlib.import_module(module)
                            except ModuleNotFoundError as exc:  # a module needing an extra must not hide the others
                                if (exc.name or "accord").split(".")[0] == "accord":
                                    raise
                                self._broken[module.rsplit(".", 1)[-1]] = f"{type(exc).__name__}: {exc}"
                        # loaded only once every import ended: one stopped halfway (a time limit's signal in
                        # a worker that lives on) is imported again at the next lookup, never left half-empty
                        self._loaded = True
                    finally:
                        self._loading = None
        return self._parts

    def _entry_points(self) -> list[metadata.EntryPoint]:
        return list(metadata.entry_points(group=self.group))

    def _load_plugin(self, name: str) -> None:
        found = [ep for ep in self._entry_points() if ep.name == name]
        if not found:
            return
        dists = sorted({_distribution(ep) for ep in found})
        if len(dists) > 1:
            raise PluginError(f"{self.kind} {name!r} is declared by several installed plugins: {', '.join(dists)}")
        ep = found[0]
        plugin = f"plugin {dists[0]} ({self.group}: {ep.name} = {ep.value})"
        with self._lock:
            self._loading = dists[0]
            try:
                ep.load()
            except Exception as exc:
                why = " ".join(f"{type(exc).__name__}: {exc}".split())
                raise PluginError(f"{plugin} failed to load: {why}") from None
            finally:
                self._loading = None
        if name not in self._parts:
            raise PluginError(f"{plugin} loaded but registered no {self.kind} named {name!r}")


def _expand(names: tuple[str, ...]) -> Iterator[str]:
    """Module names, a trailing ``.pattern`` with a ``*`` standing for the package's matching modules."""
    for name in names:
        package, _, pattern = name.rpartition(".")
        if "*" not in pattern:
            yield name
            continue
        path = importlib.import_module(package).__path__
        for info in sorted(pkgutil.iter_modules(path), key=lambda i: i.name):
            if fnmatch.fnmatchcase(info.name, pattern):
                yield f"{package}.{info.name}"


def _distribution(ep: metadata.EntryPoint) -> str:
    dist = ep.dist
    return f"{dist.name} {dist.version}" if dist is not None else ep.value


def _defined_at(obj: Any) -> str:
    """Where an object was defined: ``module:qualname`` (the same definition imported twice matches)."""
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', type(obj).__qualname__)}"


# ---------------------------------------------------------------------- describing parts


def first_paragraph(obj: Any) -> str:
    """The first paragraph of an object's docstring, on one line ('' when it has none)."""
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def signature_options(fn: Callable, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A callable's keyword options and their defaults (:data:`REQUIRED` for one with none)."""
    out = {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in skip:
            continue
        out[p.name] = REQUIRED if p.default is p.empty else p.default
    return out


def dataclass_options(cls: type, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dataclass's fields and their defaults (:data:`REQUIRED` for one with none)."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.name in skip:
            continue
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
        else:
            out[f.name] = REQUIRED
    return out
