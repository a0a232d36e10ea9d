"""The code panel of ``accord code`` and ``accord codepool``: code judge types built by the judge
registry, the execution judges sharing one sandboxed runner."""

from __future__ import annotations

from collections.abc import Sequence

from accord.errors import UserError
from accord.verify.loop import Panel, build_panel

CODE_JUDGES = ("code_static", "code_execution", "code_consistency")  # the default three of the code judge types
_RUNS_CODE = ("code_execution", "code_consistency")


def code_panel(types: Sequence[str], isolation: str = "auto", workers: int | None = None, probes: int = 12) -> Panel:
    """A panel of the judge types named, built by the judge registry as a run config's are; the
    execution judges share one sandboxed runner (each candidate executes once)."""
    run = {"isolation": isolation, "workers": workers, "probes": probes}
    specs = [{"type": t, **(run if t in _RUNS_CODE else {})} for t in types]
    if any(t in _RUNS_CODE for t in types):
        from accord.adapters.code import shared_runner

        try:  # the sandbox these judges share, made first so that a bad level is named as the flag's
            shared_runner(isolation, workers, probes)
        except (ValueError, RuntimeError) as exc:
            raise UserError(f"--isolation: {exc}") from None
    try:
        return build_panel(specs, timeout_s=24 * 3600.0)  # every candidate has its own sandbox limits
    except ValueError as exc:
        raise UserError(f"--judges: {exc}") from None
