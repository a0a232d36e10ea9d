"""Run assembly: the run config, building the panel, generator and chains, local and Ray execution, the summary."""
