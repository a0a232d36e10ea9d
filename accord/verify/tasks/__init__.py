"""Tasks by name: ``load_tasks(name, **options) -> list[Task]``.

Task sources register themselves with :func:`register_task` in :data:`TASKS`; every module of this
package is imported the first time a name is looked up, so a new source is one new module (an
installed package's: an entry point in the ``accord.tasks`` group).

>>> from accord.verify.tasks import load_tasks
>>> tasks = load_tasks("basic_arithmetic", size=2, seed=1)
>>> len(tasks), tasks[0].id
(2, 'basic_arithmetic/1/0')
"""

from accord.exports import lazy_exports
from accord.verify.tasks._registry import (
    TASKS,
    TEXT_GENERATOR,
    TaskFactory,
    TaskSource,
    list_tasks,
    load_tasks,
    register_task,
    task_source,
)

# Loaded on first use: text tasks read answers with sympy, too heavy for building the CLI's parser.
_LAZY = {
    "load_humaneval": "_humaneval",
    "with_run_defaults": "_humaneval",
    "TextTask": "_text",
    "answers_match": "_text",
    "extract_answer": "_text",
    "stated_answer": "_text",
}

__getattr__ = lazy_exports(__name__, _LAZY)
# the eager names, then every lazy one (each named once, in _LAZY)
__all__ = [
    "TASKS",
    "TEXT_GENERATOR",
    "TaskFactory",
    "TaskSource",
    "list_tasks",
    "load_tasks",
    "register_task",
    "task_source",
    *_LAZY,
]
