"""Input and output helpers: JSON lines, jury files, derivations, the run folder, writer locks and the Ray cluster."""

from accord.verify.io.json_lines import json_objects
from accord.verify.io.jury import PanelAnswers, read_panel_answers
from accord.verify.io.derivations import read_derivation
from accord.verify.io.run_folder import CONFIG_FILE, SUMMARY_FILE, TRACE_FILE, VERSIONS_FILE
from accord.verify.io.cluster import connect_ray
from accord.verify.io.lock import is_live, writer_lock

__all__ = ["CONFIG_FILE", "PanelAnswers", "SUMMARY_FILE", "TRACE_FILE", "VERSIONS_FILE", "connect_ray", "is_live", "json_objects", "read_derivation", "read_panel_answers", "writer_lock"]
