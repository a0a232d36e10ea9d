"""Step-label datasets: formats (ProcessBench, PRM800K, MMReason) and metrics against a run."""
