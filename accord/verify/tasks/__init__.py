"""Tasks by name: ``load_tasks(name, **options) -> list[Task]``.

Task sources register themselves with :func:`register_task`; every module of this package is
discovered (pkgutil) the first time a name is looked up, so a new source is one new module.

>>> from accord.verify.tasks import load_tasks
>>> tasks = load_tasks("basic_arithmetic", size=2, seed=1)
>>> len(tasks), tasks[0].id
(2, 'basic_arithmetic/1/0')
"""

from importlib import import_module

from accord.verify.tasks._registry import TaskFactory, list_tasks, load_tasks, register_task

# Loaded on first use: text tasks read answers with sympy, too heavy for building the CLI's parser.
_LAZY = {
    "load_humaneval": "_humaneval",
    "with_run_defaults": "_humaneval",
    "TextTask": "_text",
    "answers_match": "_text",
    "extract_answer": "_text",
    "stated_answer": "_text",
}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"accord.verify.tasks.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'accord.verify.tasks' has no attribute {name!r}")


__all__ = [
    "answers_match",
    "extract_answer",
    "list_tasks",
    "load_humaneval",
    "load_tasks",
    "register_task",
    "stated_answer",
    "TaskFactory",
    "TextTask",
    "with_run_defaults",
]
