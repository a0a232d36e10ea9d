"""Run assembly: the run config, building the panel, generator and chains, local and Ray execution, the summary."""

from accord.verify.run._config import (
    DEFAULTS,
    PolicyConfig,
    RunConfig,
    TaskConfig,
    load_run_config,
    nested,
    parse_assignment,
    read_config_file,
    resolve,
    save_run_config,
)
from accord.verify.run._local import execute_locally
from accord.verify.run._ray_backend import RayOptions, close_servers, server_pool
from accord.verify.run._ray_backend import execute as execute_on_ray
from accord.verify.run._setup import (
    build_chains,
    build_generator,
    build_panel_from,
    ends_answer,
    generator_of,
    load_task_list,
    new_run_dir,
)
from accord.verify.run._summary import make_summary, write_report

__all__ = [
    "build_chains",
    "build_generator",
    "build_panel_from",
    "close_servers",
    "DEFAULTS",
    "ends_answer",
    "generator_of",
    "execute_locally",
    "execute_on_ray",
    "load_run_config",
    "load_task_list",
    "make_summary",
    "nested",
    "new_run_dir",
    "parse_assignment",
    "PolicyConfig",
    "RayOptions",
    "read_config_file",
    "resolve",
    "RunConfig",
    "save_run_config",
    "server_pool",
    "TaskConfig",
    "write_report",
]
