"""The step loop: generate candidates, score them with the panel, decide by policy, write the trace."""
