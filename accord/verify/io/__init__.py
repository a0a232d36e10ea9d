"""Input and output helpers: JSON lines, jury files, derivations, the run folder and the Ray cluster."""
