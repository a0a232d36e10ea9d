"""Run configuration: defaults, YAML/TOML files, flags and --set, validation, the saved run config."""

from __future__ import annotations

import json

import pytest
import yaml

from accord.cli.commands.run import config_from_args
from accord.cli.main import build_parser
from accord.errors import UserError
from accord.verify.run import TaskConfig, load_run_config, parse_assignment, read_config_file, resolve, save_run_config


def cfg_from(argv: list[str]) -> dict:
    return config_from_args(build_parser().parse_args(["run", *argv])).as_dict()


def test_defaults_are_the_builtin_run():
    cfg = resolve().as_dict()
    assert cfg["task"]["name"] == "basic_arithmetic" and cfg["generator"]["model"] == "smollm2"
    assert (cfg["generator"]["temperature"], cfg["generator"]["top_p"]) == (1.0, 0.95)
    assert cfg["task"]["options"] == {"size": 60, "seed": 0, "max_terms": 2}
    assert cfg["policy"] == {"name": "verdict", "params": {"tau": 0.6, "eps": 0.1}}  # filled from the policy
    assert cfg["baselines"] == ["mean", "variance", "raw_average"] and cfg["base_chain"] is True
    assert [j["type"] for j in cfg["judges"]] == ["llm", "llm", "llm", "arithmetic", "embedding"]
    assert (
        cfg["budgets"]["n_candidates"] == 5 and cfg["budgets"]["max_steps"] == 1 and cfg["adaptive"]["enabled"] is False
    )


def test_yaml_and_toml_files_give_the_same_config(tmp_path):
    (tmp_path / "a.yaml").write_text("policy:\n  name: verdict\n  params: {tau: 0.7}\nbudgets: {max_steps: 9}\n")
    (tmp_path / "a.toml").write_text(
        "[policy]\nname = 'verdict'\n[policy.params]\ntau = 0.7\n[budgets]\nmax_steps = 9\n"
    )
    a = resolve(read_config_file(tmp_path / "a.yaml")).as_dict()
    b = resolve(read_config_file(tmp_path / "a.toml")).as_dict()
    assert a == b and a["policy"]["params"] == {"tau": 0.7, "eps": 0.1} and a["budgets"]["max_steps"] == 9
    assert a["budgets"]["n_candidates"] == 5  # untouched keys keep their defaults


def test_every_flag_maps_onto_a_config_key(tmp_path):
    cfg = cfg_from(
        [
            "--task",
            "gsm_symbolic",
            "--problems",
            "4",
            "--task-seed",
            "7",
            "--model",
            "m",
            "--temperature",
            "0.5",
            "--top-p",
            "0.9",
            "--max-new-tokens",
            "20",
            "-n",
            "5",
            "--max-steps",
            "8",
            "--max-tokens",
            "99",
            "--policy",
            "raw_average",
            "--tau",
            "0.5",
            "--eps",
            "0.2",
            "--seed",
            "3",
            "--threads",
            "2",
            "--judge-timeout",
            "9",
            "--baselines",
            "mean,max",
            "--no-base",
            "--adaptive",
            "--out",
            "x",
            "--no-report",
            "--set",
            "adaptive.group=2",
        ]
    )
    assert cfg["task"] == {"name": "gsm_symbolic", "options": {"size": 4, "seed": 7}}
    assert cfg_from(["--task", "gsm_symbolic"])["task"] == {"name": "gsm_symbolic", "options": {}}
    g = cfg["generator"]
    assert (g["model"], g["temperature"], g["top_p"], g["max_new_tokens"]) == ("m", 0.5, 0.9, 20)
    assert cfg["budgets"] == {"n_candidates": 5, "max_steps": 8, "max_tokens": 99}
    assert cfg["policy"] == {"name": "raw_average", "params": {"tau": 0.5, "eps": 0.2}}
    assert (cfg["seed"], cfg["threads"], cfg["judge_timeout_s"]) == (3, 2, 9.0)
    assert cfg["baselines"] == ["mean", "max"] and cfg["base_chain"] is False
    assert cfg["adaptive"]["enabled"] is True and cfg["adaptive"]["group"] == 2
    assert cfg["output"] == {"dir": "x", "report": False}
    assert cfg_from(["--tasks-file", "q.jsonl"])["task"] == {"name": "jsonl", "options": {"path": "q.jsonl"}}


def test_flags_override_the_file_and_merge_task_options(tmp_path):
    (tmp_path / "c.yaml").write_text("task: {name: basic_arithmetic, options: {size: 3, max_digits: 1}}\nseed: 5\n")
    cfg = cfg_from(["--config", str(tmp_path / "c.yaml"), "--problems", "2"])
    assert cfg["task"]["options"] == {"size": 2, "seed": 0, "max_terms": 2, "max_digits": 1} and cfg["seed"] == 5


@pytest.mark.parametrize(
    "override, message",
    [
        ({"budget": 1}, "unknown config key 'budget'"),
        ({"budgets": {"n": 3}}, "unknown config key 'budgets.n'"),
        ({"budgets": {"n_candidates": 0}}, "'budgets.n_candidates' must be an integer"),
        ({"budgets": {"max_steps": 2.5}}, "'budgets.max_steps' must be an integer"),
        ({"generator": {"top_p": 1.5}}, "'generator.top_p' must be a number in"),
        ({"generator": 3}, "'generator' must be a mapping"),
        ({"judges": [{"type": "llm"}]}, "at least two judges"),
        ({"judges": [{"type": "llm", "lambda": -1}, {"type": "arithmetic"}]}, r"judges\[0\].lambda"),
        ({"policy": {"name": "nope"}}, "unknown policy 'nope'"),
        ({"policy": {"name": "mean", "params": {"tau": 0.5}}}, "takes no parameter"),
        ({"baselines": [3]}, r"baselines\[0\]"),
        ({"adaptive": {"enabled": "yes"}}, "adaptive.enabled"),
    ],
)
def test_bad_configs_name_the_key(override, message):
    with pytest.raises(UserError, match=message):
        resolve(override)


def test_unparseable_and_missing_files(tmp_path):
    (tmp_path / "bad.yaml").write_text("a: [1,\nb: 2\n")
    with pytest.raises(UserError, match="bad.yaml"):
        read_config_file(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(UserError, match="must be a mapping"):
        read_config_file(tmp_path / "list.yaml")
    with pytest.raises(UserError, match="none.toml: no such file"):
        read_config_file(tmp_path / "none.toml")


def test_set_parses_values_as_yaml():
    assert parse_assignment("budgets.max_steps=6") == (["budgets", "max_steps"], 6)
    assert parse_assignment("baselines=[mean, max]") == (["baselines"], ["mean", "max"])
    assert parse_assignment("generator.model=./my model") == (["generator", "model"], "./my model")
    with pytest.raises(UserError, match="KEY=VALUE"):
        parse_assignment("budgets.max_steps")


def test_run_folder_keeps_the_resolved_config_and_versions(tmp_path):
    cfg = resolve({"seed": 11, "policy": {"name": "verdict", "params": {"eps": 0.2}}})
    save_run_config(tmp_path, cfg)
    assert load_run_config(tmp_path) == cfg
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["seed"] == 11
    v = json.loads((tmp_path / "versions.json").read_text())
    assert v["python"] and v["packages"]["numpy"] and v["packages"]["torch"]
    with pytest.raises(UserError, match="not a run folder"):
        load_run_config(tmp_path / "nothing")


def test_the_example_configs_resolve_and_the_default_one_is_the_builtin_run():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "examples" / "configs"
    default = resolve(read_config_file(root / "default.yaml"))
    assert default == resolve()
    adaptive = resolve(read_config_file(root / "adaptive.toml"))
    assert adaptive.adaptive.enabled is True and adaptive.baselines == ()
    own = resolve(read_config_file(root / "own_questions.yaml"))
    assert own.task == TaskConfig("jsonl", {"path": "examples/tasks/questions.jsonl"})


def test_the_config_is_typed_frozen_and_saved_as_written(tmp_path):
    served = {
        "name": "big",
        "type": "llm",
        "lambda": 2,
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "api_key_env": "KEY",
        "max_concurrency": 4,
        "timeout_s": 5.0,
        "max_retries": 1,
        "role": "logic",
    }
    cfg = resolve({"judges": [served, {"type": "arithmetic", "lambda": 1.5}]})
    j = cfg.judges[0]
    assert (j.type, j.lam, j.model, j.name, j.role) == ("llm", (2.0,), "m", "big", "logic")  # the registry's spec
    assert (j.base_url, j.api_key_env, j.max_concurrency, j.timeout_s, j.max_retries) == (
        "http://127.0.0.1:9/v1",
        "KEY",
        4,
        5.0,
        1,
    )
    assert list(cfg.as_dict()["judges"][0].items()) == list(served.items())  # same keys, same order
    with pytest.raises(AttributeError):
        cfg.seed = 3
    assert cfg.budgets.budgets().n == 5 and cfg.adaptive.settings().calibrate is None
    save_run_config(tmp_path, cfg)
    assert yaml.safe_load((tmp_path / "config.yaml").read_text()) == cfg.as_dict()
    assert load_run_config(tmp_path) == cfg


@pytest.mark.parametrize("lam", [0, -1, float("inf"), float("nan"), True, "one", "1,-1", [1, 0]])
def test_a_judge_lambda_passes_the_one_lambda_reader(lam):
    with pytest.raises(UserError, match=r"judges\[1\].lambda: λ must be finite numbers > 0, one per judge"):
        resolve({"judges": [{"type": "arithmetic"}, {"type": "arithmetic", "name": "b", "lambda": lam}]})


def test_a_lambda_is_written_as_on_the_command_line():
    cfg = resolve({"judges": [{"type": "arithmetic", "lambda": "1.5"}, {"type": "symbolic", "lambda": [0.8]}]})
    assert [j.lam for j in cfg.judges] == [(1.5,), (0.8,)]


@pytest.mark.parametrize("where", ["policy", "baseline"])
def test_a_policy_holds_no_lambdas(where):
    """λ is the panel's (judges[k].lambda); a policy or baseline naming lambdas is refused with the one reason."""
    from accord.verify.run import build_chains

    with pytest.raises(UserError, match="takes no lambdas: λ and W belong to the panel"):
        if where == "policy":
            resolve({"policy": {"name": "verdict", "params": {"lambdas": [1.0, 2.0]}}})
        else:
            build_chains(resolve({"baselines": [{"name": "mean", "params": {"lambdas": [1.0, 2.0]}}]}))
