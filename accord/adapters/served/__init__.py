"""Judges, generators and jury members behind OpenAI-compatible endpoints (vLLM, llama.cpp's
server, TGI, SGLang, hosted APIs): see docs/served.md."""

from accord.adapters.served.calls import CallRecord, Recorder, Tally
from accord.adapters.served.client import REFUSED, UNAVAILABLE, Endpoint, Reply, ServedClient
from accord.adapters.served.entries import build_generator, build_judges, check_generator, is_served, judge_group_key
from accord.adapters.served.generator import ServedGenerator
from accord.adapters.served.judges import ServedJudges, ServedVLMJudges

__all__ = [
    "CallRecord", "Endpoint", "REFUSED", "Recorder", "Reply", "ServedClient", "ServedGenerator", "ServedJudges",
    "ServedVLMJudges", "Tally", "UNAVAILABLE", "build_generator", "build_judges", "check_generator", "is_served",
    "judge_group_key",
]
