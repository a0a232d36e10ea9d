"""The judge registry: every judge ``type`` a panel can name, with its typed spec and its factory.

A judge type is one decorated factory next to its judge::

    @dataclass(frozen=True)
    class ArithmeticSpec(JudgeSpec):
        pass                                   # options of its own, if any, as fields

    @register_judge("arithmetic", ArithmeticSpec, columns={"arithmetic": 1.0})
    def _arithmetic(spec, models):             # its docstring is what `accord list judges` shows
        return ArithmeticJudge(spec.name or "arithmetic")

The factory gets the typed spec (a frozen dataclass: the config entry's keys, ``lambda`` read by the
one λ reader) and returns the judge. ``columns`` names the columns the type produces and gives each
its default λ, the one place a type states it: a one-column type's judge takes its column's, and a
score table with those column names takes the same defaults (:func:`column_lambdas`). A type with
several columns returns :class:`Columns`: the judge group and, per column, the registered column
whose default it takes. Types with ``group_by`` get every spec sharing a key at once (one LLM scores
all its roles in one call; each spec is then one column).

The types live in :data:`JUDGES` (an :class:`accord.registry.Registry`): the built-in ones in
:mod:`accord.adapters.builtin_judges`, one module per family, imported on the first lookup, so
adding a type is adding one file there; an installed package adds its own through the
``accord.judges`` entry-point group, loaded when a config names a type no built-in has.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from accord.consensus_core import parse_lambdas
from accord.registry import REQUIRED, Registry, dataclass_options, first_paragraph

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
class Columns:
    """What a factory of a several-column type returns: the judge group and, for each of its columns
    in order, the registered column whose default λ it takes."""

    judge: Any
    names: tuple[str, ...]


@dataclass(frozen=True)
class Built:
    """A panel's judge (or judge group) with its λ per column, in column order: what :func:`build_judges` gives."""

    judge: Any
    lambdas: tuple[float, ...]


@dataclass(frozen=True)
class JudgeType:
    name: str
    spec: type
    factory: Callable[..., Any]
    group_by: Callable[[Any], Any] | None = None
    columns: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @property
    def family(self) -> str:
        """The module that registered it, by its last name (``code`` for accord.adapters.builtin_judges.code)."""
        return self.factory.__module__.rsplit(".", 1)[-1]


def _describe(jt: JudgeType) -> tuple[str, dict[str, Any]]:
    options = {"lambda": dict(jt.columns) or REQUIRED}
    options.update(dataclass_options(jt.spec, skip=("lam", "entry")))
    return first_paragraph(jt.factory) or first_paragraph(jt.spec), options


JUDGES: Registry[JudgeType] = Registry(
    "judge type", "accord.judges", builtins=("accord.adapters.builtin_judges.*",), describe=_describe
)


def _types() -> dict[str, JudgeType]:
    """The types held now: the built-in ones (imported on the first call) and the plugins loaded so far."""
    return {p.name: p.value for p in JUDGES.loaded()}


def register_judge(
    name: str,
    spec: type = JudgeSpec,
    *,
    group_by: Callable[[Any], Any] | None = None,
    columns: Mapping[str, float] | None = None,
):
    """Registers a factory for judge ``type: name`` (see the module docstring). Each type has a spec
    class of its own (a spec's class says which type it is) and names its columns with their default λ."""
    if not (
        isinstance(spec, type)
        and issubclass(spec, JudgeSpec)
        and spec is not JudgeSpec
        and dataclasses.is_dataclass(spec)
    ):
        raise TypeError(f"judge type {name!r}: its spec must be a dataclass subclassing JudgeSpec")
    taken = [p.name for p in JUDGES.loaded() if p.value.spec is spec and p.name != name]
    if taken:
        raise TypeError(
            f"judge type {name!r}: spec {spec.__name__} is already the spec of {taken[0]!r}; give each type its own"
        )
    if not columns:
        raise TypeError(f"judge type {name!r}: name its columns and their default λ (columns={{'{name}': 1.0}})")
    defaults = dict(columns)
    try:
        parse_lambdas(list(defaults.values()))
    except ValueError as exc:
        raise TypeError(f"judge type {name!r}: columns: {exc}") from None
    return JUDGES.register(name, lambda factory: JudgeType(name, spec, factory, group_by, defaults))


def judge_types(family: str | None = None) -> list[str]:
    """The types held (built in, and plugins loaded so far), or those of one family (e.g. ``code``:
    the code judges)."""
    return sorted(n for n, jt in _types().items() if family is None or jt.family == family)


def parse_judge(entry: Mapping[str, Any], where: str = "judge") -> JudgeSpec:
    """The typed spec of one judge entry (``{"type": ..., "lambda": ..., ...}``); a ValueError names
    ``where`` and the problem (unknown type, unknown option, bad λ)."""
    written = copy.deepcopy(dict(entry))
    entry = dict(entry)
    kind = entry.pop("type", None)
    if not isinstance(kind, str) or kind not in JUDGES:
        raise ValueError(f"{where}: {JUDGES.unknown(kind)}")
    jt = JUDGES.get(kind)
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
    """The registered type ``name`` (an installed plugin's too; a ValueError listing the known ones otherwise)."""
    return JUDGES.get(name)


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
            made = jt.factory([specs[k] for k in ks] if jt.group_by else specs[ks[0]], models)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {jt.name} judge: {exc}") from None
        judge, default = _defaults(jt, made)
        out.append(Built(judge, _lambdas(jt, [specs[k] for k in ks], default, where)))
    return out


def _defaults(jt: JudgeType, made: Any) -> tuple[Any, tuple[float, ...]]:
    """The judge a factory made and its default λ per column, read from the type's ``columns``."""
    if isinstance(made, Built):
        raise TypeError(
            f"judge type {jt.name!r}: a factory returns the judge (or Columns(judge, names)); its default λ "
            "is the one register_judge's columns= gives"
        )
    if not isinstance(made, Columns):
        return made, (float(next(iter(jt.columns.values()))),)
    unknown = [c for c in made.names if c not in jt.columns]
    if unknown:
        raise TypeError(f"judge type {jt.name!r}: its factory names columns {unknown} it did not register")
    return made.judge, tuple(float(jt.columns[c]) for c in made.names)


def _lambdas(jt: JudgeType, specs: list[JudgeSpec], default: tuple[float, ...], where: str) -> tuple[float, ...]:
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
