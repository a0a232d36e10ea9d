"""Judges, generators and jury members behind OpenAI-compatible endpoints (vLLM, llama.cpp's
server, TGI, SGLang, hosted APIs): see docs/served.md."""

from accord.adapters.served._calls import CallRecord, Recorder, Tally
from accord.adapters.served._checkers import CodeCheckJudge, CriticJudge
from accord.adapters.served._client import REFUSED, UNAVAILABLE, Endpoint, Reply, ServedClient
from accord.adapters.served._entries import (
    build_served_generator,
    build_served_judges,
    check_generator,
    is_served,
    judge_group_key,
)
from accord.adapters.served._generator import ServedGenerator
from accord.adapters.served._judges import ServedJudges, ServedVLMJudges
from accord.adapters.served._runner import run as run_async
from accord.adapters.served._spec import ServedSpec

__all__ = [
    "REFUSED",
    "UNAVAILABLE",
    "CallRecord",
    "CodeCheckJudge",
    "CriticJudge",
    "Endpoint",
    "Recorder",
    "Reply",
    "ServedClient",
    "ServedGenerator",
    "ServedJudges",
    "ServedSpec",
    "ServedVLMJudges",
    "Tally",
    "build_served_generator",
    "build_served_judges",
    "check_generator",
    "is_served",
    "judge_group_key",
    "run_async",
]
