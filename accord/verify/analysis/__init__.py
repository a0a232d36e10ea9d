"""After a run: reading traces, replaying policies, evaluation, diagnostics, reports, plots and sweeps."""
