"""Run configs: defaults and paths resolved, overrides, optimizers and strategies built from keys
named after the Python API."""

import re
import glob
import os
import textwrap

import pytest

from pe_cli.config import ConfigError, load_config
from pe_cli.config.keys import RUN
from pe_cli.run.build import load_columns, load_data


def write(tmp_path, text, name="run.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


BASE = """
    model: {repo}/models/mlp.yaml
    data:
      train: {{format: mnist, path: {repo}/data/mnist, split: train, limit: 64}}
"""


@pytest.fixture
def base(tmp_path):
    return write(tmp_path, BASE.format(repo=os.getcwd()))


@pytest.mark.parametrize("path", sorted(glob.glob("configs/*.yaml")))
def test_bundled_configs_load(path):
    cfg = load_config(path)
    train, held_out = cfg.data["data"]["train"], cfg.data["data"]["eval"]
    if train["format"] == "mnist":
        assert train["split"] == "train" and held_out["split"] == "eval"
    elif train["format"] in ("multislot", "folders"):  # generated (data/ctr) or MNIST's two splits as PNG folders
        assert train["path"] != held_out["path"] and os.path.isdir(train["path"])  # (data/mnist_png): held out apart
    elif train["path"].endswith("reviews.csv"):  # generated (data/reviews): 1,200 to train on, 300 held out
        assert train["stop"] == held_out["start"] == 1200
    elif train["path"].endswith("penguins.csv"):  # generated (data/penguins), sorted by species: a fifth of
        assert held_out is None and cfg.data["data"]["split"] == {
            "eval": 0.2,
            "test": None,
            "seed": 1,
            "stratify": "species",
        }  # each held out
    elif train["path"].endswith("weather.csv"):  # generated (data/weather): a fifth held out at random
        assert held_out is None and cfg.data["data"]["split"]["eval"] == 0.2
    else:  # derived data in MNIST's order (data/mnist_rows): the same 8,000 / 2,000 split by start/stop
        assert train["stop"] == held_out["start"] == 8000
    assert os.path.exists(cfg.data["model"])


def test_defaults_are_resolved(base):
    cfg = load_config(base)
    d = cfg.data
    assert d["data"]["seed"] == d["seed"] == 1
    assert d["data"]["eval_batch_size"] == d["data"]["batch_size"] == 64
    assert d["fetch"]["names"] == d["eval"]["fetches"] == ["loss", "acc"]
    assert d["output"]["dir"] == os.path.join("runs", "run")
    assert d["optimizer"] == {"type": "SGD", "learning_rate": 0.01}
    assert list(d) == list(RUN.fields)  # the schema's order, every key present


def test_paths_are_relative_to_the_file_and_overrides_to_the_cwd(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "m.yaml").write_text(
        open("models/mlp.yaml")
        .read()
        .replace("include: mnist_feeds.yaml", f"include: {os.getcwd()}/models/mnist_feeds.yaml")
    )
    path = write(
        tmp_path,
        f"""
        model: sub/m.yaml
        data: {{train: {{format: mnist, path: {os.getcwd()}/data/mnist}}}}
    """,
    )
    cfg = load_config(path)
    assert os.path.samefile(cfg.data["model"], tmp_path / "sub" / "m.yaml")
    cfg = load_config(path, ["model=models/lenet.yaml"])
    assert cfg.data["model"] == os.path.join("models", "lenet.yaml") and cfg.model.name == "lenet"


def test_overrides(base):
    cfg = load_config(
        base,
        [
            "optimizer.learning_rate=0.5",
            "devices=2",
            "data.shuffle=false",
            "fetch.names=[loss]",
            "data.transforms.image=[{scale: 2}]",
        ],
    )
    assert cfg.data["optimizer"]["learning_rate"] == 0.5 and cfg.data["devices"] == 2
    assert cfg.data["data"]["shuffle"] is False and cfg.train_fetches == ["loss"]
    columns = load_columns(cfg, "train")
    assert columns["image"].max() == 510.0
    with pytest.raises(ConfigError, match=r"command line 'devices=0': devices: must be >= 1"):
        load_config(base, ["devices=0"])


def test_a_list_item_of_the_wrong_type_is_named_at_its_index(base):
    """data.missing: [NA, 1]: the error used to say 'expected a list of names, got a list'."""
    with pytest.raises(
        ConfigError,
        match=r"data\.missing\[1\]: expected a string \(an item of a list of names\), "
        r"got 1 \(a number\); quote it: '1'",
    ):
        load_config(base, ["data.missing=[NA, 1]"])


def test_optimizers_and_schedules_are_built_from_their_classes(base):
    from pe_cli.training import optimizer as O
    from pe_cli.run.build import build_programs

    cfg = load_config(
        base,
        [
            "optimizer={type: momentum, momentum: 0.9, use_nesterov: true, "
            "learning_rate: {type: piecewise_decay, boundaries: [10], values: [0.1, 0.01]}, "
            "regularization: {type: l2_decay, regularization_coeff: 0.001}, "
            "grad_clip: {type: global_norm, clip_norm: 1.0}}"
        ],
    )
    programs = build_programs(cfg.model, cfg)
    opt = programs.optimizer
    assert isinstance(opt, O.MomentumOptimizer)
    types = [op.type for op in programs.main.global_block().ops]
    assert "lr_schedule" in types and "momentum" in types
    assert "lr_schedule" not in [op.type for op in programs.test.global_block().ops]


@pytest.mark.parametrize(
    "optimizer, message",
    [
        ("{type: Adam, learning_rate: -1}", "expected a number >= 0"),
        ("{type: SGD}", "missing argument 'learning_rate'"),
        ("{type: Adam, beta1: high}", "optimizer.beta1: expected a number"),
        ("{type: SGD, learning_rate: 0.1, regularization: {type: L3}}", "unknown regularizer 'L3'"),
        ("{type: SGD, learning_rate: 0.1, grad_clip: {type: by_value}}", "missing argument 'max'"),
        ("{type: SGD, learning_rate: {type: cosine_decay, learning_rate: 0.1}}", "missing argument 'step_each_epoch'"),
        ("{type: SGD, learning_rate: 0.1, name: x}", "'name' is set by pe"),
        ("sgd", "expected {type: ..., learning_rate: ...}"),
    ],
)
def test_optimizer_errors(base, optimizer, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        load_config(base, [f"optimizer={optimizer}"])
    assert message in e.value.line(), e.value.line()


def test_strategy_keys_are_the_classes_options(base):
    from pe_cli.compiler.strategy import BuildStrategy, ExecutionStrategy

    assert set(RUN.fields["build_strategy"].fields) == set(BuildStrategy._OPTIONS)
    from pe_cli.config.keys import ASYNC_ONLY  # pe train's async mode: YAML only

    assert set(RUN.fields["exec_strategy"].fields) == set(ExecutionStrategy._OPTIONS) | set(ASYNC_ONLY)
    from pe_cli.run.placement import strategies

    cfg = load_config(
        base, ["build_strategy.reduce_strategy=Reduce", "exec_strategy.num_threads=3", "build_strategy.num_trainers=0"]
    )
    with pytest.raises(ConfigError, match="build_strategy.num_trainers"):
        strategies(cfg)
    cfg = load_config(base, ["build_strategy.reduce_strategy=Reduce", "exec_strategy.num_threads=3"])
    build, execution = strategies(cfg)
    assert build.reduce_strategy == BuildStrategy.ReduceStrategy.Reduce and execution.num_threads == 3


def test_data_checks(base):
    with pytest.raises(ConfigError, match="a npz source reads 'path', not 'files'"):
        load_config(base, ["data.train={format: npz, path: x.npz, files: {image: y.npy}}"])
    with pytest.raises(ConfigError, match="a npy source needs 'files'"):
        load_config(base, ["data.train={format: npy}"])
    cfg = load_config(base, ["data.batch_size=100", "data.drop_last=true"])
    with pytest.raises(ConfigError, match="fewer than one batch"):
        load_data(cfg, "train")
    cfg = load_config(base, ["data.train.columns={image: label, label: label}"])
    with pytest.raises(ConfigError, match=r"feed 'image' takes samples of shape \[1, 28, 28\]"):
        load_data(cfg, "train")


def test_null_removes_an_optional_source():
    cfg = load_config("configs/mnist_mlp.yaml", ["data.eval=null"])
    assert cfg.data["data"]["eval"] is None
    with pytest.raises(ConfigError, match="data.eval is not given"):
        load_data(cfg, "eval")
