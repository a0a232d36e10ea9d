"""Benchmark curation (``accord curate``): drop the questions a panel answers correctly without
their essential context (an image, a passage), keeping every member's answer in the report."""

from accord.verify.curation._curate import (
    ANSWER_EXAMPLE,
    ANSWER_SYSTEM,
    blind_context,
    curate,
    read_benchmark,
    write_curation,
)

__all__ = ["ANSWER_EXAMPLE", "ANSWER_SYSTEM", "blind_context", "curate", "read_benchmark", "write_curation"]
