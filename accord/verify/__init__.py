"""The step loop engine, tasks, traces, replay and evaluation, reports, and the CLI."""

from accord.protocols import Generator, Judge, JudgeScore, StepContext, Task

__all__ = ["Generator", "Judge", "JudgeScore", "StepContext", "Task"]
