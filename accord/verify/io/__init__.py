"""Input and output helpers: JSON lines, jury files, inspect logs, derivations, the run folder, writer locks
and the Ray cluster.

Every command opens, reads and writes files through this package (paths: ``_paths``, reading:
``_inputs``, writing: ``_outputs``, one writer: ``_lock``), so each bad path or file gets the same
one-line error, and the command line words any file-system failure the same way (:func:`failure`).
"""

from accord.verify.io._cache_dir import cache_for_output, user_cache_dir
from accord.verify.io._cluster import connect_ray, user_error_from
from accord.verify.io._derivations import DerivationLine, parse_derivation, read_derivation
from accord.verify.io._faults import after_write as fault_after_write
from accord.verify.io._faults import before_write as fault_before_write
from accord.verify.io._inputs import (
    CSV_FIELD_LIMIT,
    csv_rows,
    decode_text,
    input_file,
    parse_json,
    parse_yaml,
    read_text,
    text_lines,
)
from accord.verify.io._inspect_logs import (
    InspectLog,
    LoggedSample,
    is_inspect_log,
    log_paths,
    read_inspect_log,
    read_inspect_logs,
)
from accord.verify.io._json_lines import json_objects
from accord.verify.io._jury import PanelAnswers, read_panel_answers
from accord.verify.io._lock import is_live, lock_path, writer_lock
from accord.verify.io._outputs import (
    atomic_output,
    table_format,
    writable_folder,
    writable_output,
    write_text_atomic,
)
from accord.verify.io._paths import (
    MAX_JSON_DEPTH,
    check_depth,
    failure,
    input_path,
    os_error,
    path_kind,
    refuse_overwriting_input,
    same_file,
)
from accord.verify.io._run_folder import CONFIG_FILE, REDONE_FILE, SUMMARY_FILE, TRACE_FILE, VERSIONS_FILE

__all__ = [
    "cache_for_output",
    "user_cache_dir",
    "atomic_output",
    "check_depth",
    "CONFIG_FILE",
    "failure",
    "input_path",
    "MAX_JSON_DEPTH",
    "os_error",
    "path_kind",
    "refuse_overwriting_input",
    "same_file",
    "connect_ray",
    "CSV_FIELD_LIMIT",
    "csv_rows",
    "decode_text",
    "DerivationLine",
    "fault_after_write",
    "fault_before_write",
    "input_file",
    "InspectLog",
    "is_inspect_log",
    "LoggedSample",
    "log_paths",
    "read_inspect_log",
    "read_inspect_logs",
    "is_live",
    "json_objects",
    "lock_path",
    "PanelAnswers",
    "parse_derivation",
    "parse_json",
    "parse_yaml",
    "read_derivation",
    "read_panel_answers",
    "read_text",
    "REDONE_FILE",
    "SUMMARY_FILE",
    "table_format",
    "text_lines",
    "TRACE_FILE",
    "user_error_from",
    "VERSIONS_FILE",
    "writable_folder",
    "writable_output",
    "write_text_atomic",
    "writer_lock",
]
