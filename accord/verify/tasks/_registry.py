"""The task registry: sources register a factory by name; every module of the package is discovered
(pkgutil) the first time a name is looked up, so a new source is one new module."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

from accord.protocols import Task

TaskFactory = Callable[..., list[Task]]

_REGISTRY: dict[str, TaskFactory] = {}
_IMPORT_ERRORS: dict[str, str] = {}
_discovered = False
_PATH = [str(Path(__file__).parent)]


def register_task(name: str) -> Callable[[TaskFactory], TaskFactory]:
    """Registers a factory ``(**options) -> list[Task]`` under ``name``."""

    def deco(fn: TaskFactory) -> TaskFactory:
        _REGISTRY[name] = fn
        return fn

    return deco


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for info in sorted(pkgutil.iter_modules(_PATH), key=lambda i: i.name):
        if info.name == "_registry":
            continue
        try:
            importlib.import_module(f"accord.verify.tasks.{info.name}")
        except Exception as exc:  # a source with a missing extra must not hide the others
            _IMPORT_ERRORS[info.name] = f"{type(exc).__name__}: {exc}"


def list_tasks() -> list[str]:
    """Registered task source names."""
    _discover()
    return sorted(_REGISTRY)


def load_tasks(name: str, **options) -> list[Task]:
    """The tasks of source ``name``; an unknown name or option is a ValueError naming it."""
    _discover()
    if name not in _REGISTRY:
        broken = "".join(f"; module {m!r} failed to import ({e})" for m, e in _IMPORT_ERRORS.items())
        raise ValueError(f"unknown task source {name!r}; choose one of {', '.join(list_tasks())}{broken}")
    try:
        tasks = _REGISTRY[name](**options)
    except TypeError as exc:
        raise ValueError(f"task source {name!r}: bad options {sorted(options)}: {exc}") from None
    if not tasks:
        raise ValueError(f"task source {name!r} produced no tasks with options {options}")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError(f"task source {name!r} produced duplicate task ids")
    return tasks
