"""Step-label datasets: formats (ProcessBench, PRM800K, MMReason) and metrics against a run."""

from accord.verify.labels.formats import FORMATS, detect_format, read_labels, score_labels, write_labels

__all__ = ["FORMATS", "detect_format", "read_labels", "score_labels", "write_labels"]
