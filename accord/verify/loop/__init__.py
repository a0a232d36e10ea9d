"""The step loop: generate candidates, score them with the panel, decide by policy, write the trace."""

from accord.verify.loop._engine import (
    BASE,
    Adaptive,
    Budgets,
    Chain,
    StepLoop,
    Totals,
    chain_accuracy,
    generation_seed,
)
from accord.verify.loop._margin import calibrate_margin, replay_margin
from accord.verify.loop._outage import resume_after_outage
from accord.verify.loop._panel import Panel, build_panel
from accord.verify.loop._scale import (
    CALIBRATION_FILE,
    LABEL_FREE,
    SCALE_METHODS,
    JudgeScale,
    ScaleWarmup,
    load_scale,
    save_scale,
)
from accord.verify.loop._trace import (
    ResumeState,
    TraceWriter,
    context_id,
    cut_partial_line,
    json_safe,
    load_resume_state,
    one_writer_problem,
    read_records,
)

__all__ = [
    "chain_accuracy",
    "Adaptive",
    "BASE",
    "Budgets",
    "build_panel",
    "CALIBRATION_FILE",
    "calibrate_margin",
    "Chain",
    "context_id",
    "json_safe",
    "JudgeScale",
    "LABEL_FREE",
    "load_scale",
    "save_scale",
    "SCALE_METHODS",
    "ScaleWarmup",
    "cut_partial_line",
    "generation_seed",
    "load_resume_state",
    "one_writer_problem",
    "Panel",
    "read_records",
    "replay_margin",
    "resume_after_outage",
    "ResumeState",
    "StepLoop",
    "Totals",
    "TraceWriter",
]
