"""The step loop: generate candidates, score them with the panel, decide by policy, write the trace."""

from accord.verify.loop.engine import Adaptive, Budgets, Chain, StepLoop
from accord.verify.loop.panel import Panel, build_panel
from accord.verify.loop.trace import TraceWriter, context_id, load_resume_state
from accord.verify.loop.margin import calibrate_margin

__all__ = ["Adaptive", "Budgets", "Chain", "Panel", "StepLoop", "TraceWriter", "build_panel", "calibrate_margin", "context_id", "load_resume_state"]
