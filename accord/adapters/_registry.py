"""The judge registry: every judge ``type`` a panel can name, with its typed spec and its factory.

A judge type is one decorated factory next to its judge::

    @dataclass(frozen=True)
    class ArithmeticSpec(JudgeSpec):
        pass                                   # options of its own, if any, as fields

    @register_judge("arithmetic", ArithmeticSpec, columns={"arithmetic": 1.0})
    def _arithmetic(spec, models):
        return Built(ArithmeticJudge(spec.name or "arithmetic"), (1.0,))

The factory gets the typed spec (a frozen dataclass: the config entry's keys, ``lambda`` read by the
one λ reader) and returns the judge (or judge group) with its default λ per column. Types with
``group_by`` get every spec sharing a key at once (one LLM scores all its roles in one call; each spec
is then one column). ``columns`` names the columns the type produces by default and their λ, so a
score table with those column names takes the same defaults (:func:`column_lambdas`).

Every built-in type lives in one module of :mod:`accord.adapters.builtin_judges` (its specs, factories
and registrations together); the registry imports them all on its first lookup, so adding a type is
adding one file there. A type registered anywhere else (a user's own) counts once its module is imported.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.consensus_core import parse_lambdas

UNKNOWN_COLUMN_LAMBDA = 1.0  # λ of a column no registered judge type names


@dataclass(frozen=True)
class JudgeSpec:
    """One judge entry, typed: the keys every entry may have; a type's spec subclasses it with its own
    options. ``entry`` keeps the mapping as written (key order, values), so a saved config gives it back."""

    name: str | None = None  # the column name (a single-column judge; grouped types: the role's column)
    lam: tuple[float, ...] | None = None  # the entry's ``lambda``: one value for every column, or one per column
    entry: Mapping[str, Any] | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def type(self) -> str:
        """The judge type this spec belongs to (its registered name)."""
        return type_of(self).name

    def as_dict(self) -> dict[str, Any]:
        """The entry as written (what a saved ``config.yaml`` holds); built from the fields when the
        spec was made in code."""
        if self.entry is not None:
            return copy.deepcopy(dict(self.entry))
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "entry" or v is None:
                continue
            out["lambda" if f.name == "lam" else f.name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True)
class Built:
    """What a factory returns: the judge (or judge group) and its default λ per column, in column order."""

    judge: Any
    lambdas: tuple[float, ...]


@dataclass(frozen=True)
class JudgeType:
    name: str
    spec: type
    factory: Callable[..., Built]
    group_by: Callable[[Any], Any] | None = None
    columns: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @property
    def family(self) -> str:
        """The module that registered it, by its last name (``code`` for accord.adapters.builtin_judges.code)."""
        return self.factory.__module__.rsplit(".", 1)[-1]


_TYPES: dict[str, JudgeType] = {}
_BUILTIN = "accord.adapters.builtin_judges"
_loaded = False


def _types() -> dict[str, JudgeType]:
    """Every registered type, the built-in ones imported on the first lookup."""
    global _loaded
    if not _loaded:
        _loaded = True
        package = importlib.import_module(_BUILTIN)
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{_BUILTIN}.{info.name}")
    return _TYPES


def register_judge(
    name: str,
    spec: type = JudgeSpec,
    *,
    group_by: Callable[[Any], Any] | None = None,
    columns: Mapping[str, float] | None = None,
):
    """Registers a factory for judge ``type: name`` (see the module docstring). Each type has a spec
    class of its own (a spec's class says which type it is)."""
    if not (
        isinstance(spec, type)
        and issubclass(spec, JudgeSpec)
        and spec is not JudgeSpec
        and dataclasses.is_dataclass(spec)
    ):
        raise TypeError(f"judge type {name!r}: its spec must be a dataclass subclassing JudgeSpec")
    taken = [jt.name for jt in _TYPES.values() if jt.spec is spec and jt.name != name]
    if taken:
        raise TypeError(
            f"judge type {name!r}: spec {spec.__name__} is already the spec of {taken[0]!r}; give each type its own"
        )

    def deco(factory: Callable[..., Built]) -> Callable[..., Built]:
        _TYPES[name] = JudgeType(name, spec, factory, group_by, dict(columns or {}))
        return factory

    return deco


def judge_types(family: str | None = None) -> list[str]:
    """The registered type names, or those of one family (e.g. ``code``: the code judges)."""
    return sorted(n for n, jt in _types().items() if family is None or jt.family == family)


def parse_judge(entry: Mapping[str, Any], where: str = "judge") -> JudgeSpec:
    """The typed spec of one judge entry (``{"type": ..., "lambda": ..., ...}``); a ValueError names
    ``where`` and the problem (unknown type, unknown option, bad λ)."""
    written = copy.deepcopy(dict(entry))
    entry = dict(entry)
    kind = entry.pop("type", None)
    jt = _types().get(kind) if isinstance(kind, str) else None
    if jt is None:
        raise ValueError(f"{where}: unknown type {kind!r}; choose one of {', '.join(judge_types())}")
    if "lambda" in entry:
        lam = entry.pop("lambda")
        try:
            entry["lam"] = None if lam is None else parse_lambdas(lam)
        except ValueError as exc:
            raise ValueError(f"{where}.lambda: {exc}") from None
    known = {f.name for f in dataclasses.fields(jt.spec)} - {"entry"}
    unknown = sorted(set(entry) - known)
    if unknown:
        shown = sorted(k if k != "lam" else "lambda" for k in known)
        raise ValueError(f"{where}: {kind} judge takes no option(s) {unknown}; it takes {shown}")
    try:
        return jt.spec(**entry, entry=written)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {kind} judge: {exc}") from None


def judge_type(name: str) -> JudgeType:
    """The registered type ``name`` (a ValueError listing the known ones otherwise)."""
    jt = _types().get(name)
    if jt is None:
        raise ValueError(f"unknown judge type {name!r}; choose one of {', '.join(judge_types())}")
    return jt


def type_of(spec: JudgeSpec) -> JudgeType:
    for jt in _types().values():
        if type(spec) is jt.spec:
            return jt
    raise ValueError(f"{type(spec).__name__} is the spec of no registered judge type")


def build_judges(entries: Sequence[JudgeSpec | Mapping[str, Any]], models: dict | None = None) -> list[Built]:
    """The judges (or groups) of a panel, in entry order, each with its λ per column: the entry's
    ``lambda`` where given, else the type's default. The one loop over the registry."""
    models = models or {}
    specs = [e if isinstance(e, JudgeSpec) else parse_judge(e, f"judges[{k}]") for k, e in enumerate(entries)]
    slots: list[tuple[JudgeType, list[int]]] = []
    grouped: dict[tuple, int] = {}
    for k, spec in enumerate(specs):
        jt = type_of(spec)
        if jt.group_by is None:
            slots.append((jt, [k]))
            continue
        try:
            key = (jt.name, jt.group_by(spec))
        except ValueError as exc:
            raise ValueError(f"judges[{k}]: {exc}") from None
        if key not in grouped:
            grouped[key] = len(slots)
            slots.append((jt, []))
        slots[grouped[key]][1].append(k)
    out = []
    for jt, ks in slots:
        where = f"judges[{ks[0]}]" if len(ks) == 1 else "judges[" + ",".join(map(str, ks)) + "]"
        try:
            built = jt.factory([specs[k] for k in ks] if jt.group_by else specs[ks[0]], models)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {jt.name} judge: {exc}") from None
        out.append(Built(built.judge, _lambdas(jt, [specs[k] for k in ks], built, where)))
    return out


def _lambdas(jt: JudgeType, specs: list[JudgeSpec], built: Built, where: str) -> tuple[float, ...]:
    default = tuple(float(x) for x in built.lambdas)
    if jt.group_by is not None:  # one column per spec
        out = []
        for s, d in zip(specs, default, strict=True):
            if s.lam is not None and len(s.lam) != 1:
                _too_many(where, s.lam, 1)
            out.append(d if s.lam is None else s.lam[0])
        return tuple(out)
    lam = specs[0].lam
    if lam is None:
        return default
    if len(lam) == 1:
        return lam * len(default)
    if len(lam) != len(default):
        _too_many(where, lam, len(default))
    return lam


def _too_many(where: str, lam, m: int):
    raise ValueError(f"{where}.lambda: {len(lam)} values for {m} column(s); give one value, or one per column")


def column_lambdas(columns: Sequence[str], given: Sequence[float] | None = None) -> tuple[tuple[float, ...], list[str]]:
    """λ for a score table's columns: ``given`` (already checked), else by column name: a column a
    registered judge type produces takes that type's default, any other 1.0. Returns (λ, the
    columns that took 1.0 because no judge type names them): never by position."""
    if given is not None:
        return tuple(float(x) for x in given), []
    known = {c: lam for jt in _types().values() for c, lam in jt.columns.items()}
    unknown = [c for c in columns if c not in known]
    return tuple(float(known.get(c, UNKNOWN_COLUMN_LAMBDA)) for c in columns), unknown
