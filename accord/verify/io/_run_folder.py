"""The file names of a run folder, in one place (writers and readers share them)."""

TRACE_FILE = "trace.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.yaml"
VERSIONS_FILE = "versions.json"
REDONE_FILE = "trace.redone.jsonl"  # step records set aside on resume after an endpoint outage
