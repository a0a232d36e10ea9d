"""The task registry: sources register a factory by name in :data:`TASKS`; every module of the package
is imported the first time a name is looked up, so a new source is one new module, and an installed
package adds its own through the ``accord.tasks`` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accord.protocols import Task
from accord.registry import Registry, first_paragraph, signature_options

TaskFactory = Callable[..., list[Task]]
TEXT_GENERATOR = "text"  # the generator a task source's tasks take unless it names another


@dataclass(frozen=True)
class TaskSource:
    """A registered source: its factory ``(**options) -> list[Task]`` and the generator type its
    tasks take by default (``text``: a language model proposing the next line)."""

    name: str
    factory: TaskFactory
    generator: str = TEXT_GENERATOR


def _describe(source: TaskSource) -> tuple[str, dict]:
    return first_paragraph(source.factory), signature_options(source.factory)


TASKS: Registry[TaskSource] = Registry(
    "task source", "accord.tasks", builtins=("accord.verify.tasks._*",), describe=_describe
)


def register_task(name: str, generator: str = TEXT_GENERATOR) -> Callable[[TaskFactory], TaskFactory]:
    """Registers a factory ``(**options) -> list[Task]`` under ``name``; ``generator`` names the
    generator type its tasks take unless a run config names one."""
    return TASKS.register(name, lambda fn: TaskSource(name, fn, generator))


def list_tasks() -> list[str]:
    """Task source names: the built-in ones and those installed plugins declare."""
    return TASKS.names()


def task_source(name: str) -> TaskSource:
    """The registered source ``name`` (an installed plugin's too); a ValueError listing the known ones otherwise."""
    return TASKS.get(name)


def load_tasks(name: str, **options) -> list[Task]:
    """The tasks of source ``name``; an unknown name or option is a ValueError naming it."""
    factory = task_source(name).factory
    try:
        tasks = factory(**options)
    except TypeError as exc:
        raise ValueError(f"task source {name!r}: bad options {sorted(options)}: {exc}") from None
    if not tasks:
        raise ValueError(f"task source {name!r} produced no tasks with options {options}")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError(f"task source {name!r} produced duplicate task ids")
    return tasks
