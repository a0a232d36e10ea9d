"""After a run: reading traces, replaying policies, evaluation, diagnostics, reports, plots and sweeps."""

from accord.verify.analysis.records import Trace, read_trace, resolve_trace
from accord.verify.analysis.replay import ContextTree, make_spec, replay
from accord.verify.analysis.evaluation import accuracy_table, bootstrap_ci
from accord.verify.analysis.report import write_run_report
from accord.verify.analysis.sweep import write_sweep
from accord.verify.analysis.derivation_check import check_derivation

__all__ = ["ContextTree", "Trace", "accuracy_table", "bootstrap_ci", "check_derivation", "make_spec", "read_trace", "replay", "resolve_trace", "write_run_report", "write_sweep"]
