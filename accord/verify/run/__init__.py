"""Run assembly: the run config, building the panel, generator and chains, local and Ray execution, the summary."""

from accord.verify.run.config import JudgeSpec, RunConfig, load_run_config, resolve
from accord.verify.run.setup import build_chains, build_generator, build_panel_from, load_task_list
from accord.verify.run.local import execute
from accord.verify.run.summary import make_summary, write_report

__all__ = ["JudgeSpec", "RunConfig", "build_chains", "build_generator", "build_panel_from", "execute", "load_run_config", "load_task_list", "make_summary", "resolve", "write_report"]
