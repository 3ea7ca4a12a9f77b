"""config/ hands the build a resolved spec (pe_cli/config/resolved.py) and the build only builds: a
value from the command line visits config/ once, then run/, without returning. Building every
bundled run config, and one that uses every kind of typed value, runs no code of pe_cli/config/."""

import glob
import os
import sys

import pytest

from pe_cli.config import load_config
from pe_cli.config.resolved import OptimizerSpec, Ref, Typed
from pe_cli.config.sizes import has_auto
from pe_cli.run.build import build_programs, load_data
from pe_cli.run.preprocessing import fill_data_sizes, fit_preprocessing
from tests.paths import REPO

CONFIG_DIR = os.path.join(REPO, "pe_cli", "config") + os.sep

MODEL = """\
name: typed_values
feeds:
  rows:  {shape: [28], dtype: float32, lod_level: 1}
  label: {shape: [1], dtype: int64}
layers:
  - proj: {type: fc, input: rows, size: 8}
  - rnn:
      type: dynamic_rnn
      step_inputs: {x: proj}
      memories: {h: {shape: [8], value: 0.0, update: h_new}}
      step:
        - h_new: {type: fc, input: [x, h], size: 8, act: tanh}
      outputs: h_new
  - last: {type: sequence_last_step, input: rnn}
  - pooled: {type: sequence_pool, input: proj, pool_type: max}
  - hidden:
      type: fc
      input: [last, pooled]
      size: 16
      act: relu
      param_attr: {initializer: {type: Normal, scale: 0.01}, regularizer: {type: L2Decay, regularization_coeff: 0.1},
                   gradient_clip: {type: GradientClipByValue, max: 1.0}}
      bias_attr: false
  - logits: {type: fc, input: hidden, size: 10, param_attr: head_w}
  - xent: {type: softmax_with_cross_entropy, logits: logits, label: label}
  - loss: {type: mean, x: xent}
loss: loss
"""

OPTIMIZER = (
    "optimizer={type: Adam, regularization: {type: L2Decay, regularization_coeff: 0.001}, "
    "grad_clip: {type: GradientClipByGlobalNorm, clip_norm: 5.0}, "
    "learning_rate: {type: switch_schedule, boundaries: [4], values: ["
    "{type: linear_lr_warmup, learning_rate: 0.1, warmup_steps: 4, start_lr: 0.0, end_lr: 0.1}, 0.05]}}"
)


def _config_code_run(fn, *args):
    """(fn's result, the pe_cli/config/ functions it ran, by file:name)."""
    ran = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(CONFIG_DIR):
            ran.add(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(None)
    return result, ran


def _typed_config(tmp_path):
    model = tmp_path / "model.yaml"
    model.write_text(MODEL)
    return load_config(
        os.path.join(REPO, "configs", "mnist_rows_dynamic_rnn.yaml"),
        [f"model={model}", OPTIMIZER, "data.train.limit=64", "data.batch_size=32"],
    )


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(REPO, "configs", "*.yaml"))), ids=os.path.basename)
def test_building_a_bundled_config_runs_no_config_code(path):
    cfg = load_config(path)
    if has_auto(cfg.model):  # the sizes the data decides are filled before the build, as pe train does
        fill_data_sizes(cfg, fit_preprocessing(cfg))
    programs, ran = _config_code_run(build_programs, cfg.model, cfg)
    assert ran == set() and programs.optimizer is not None


@pytest.mark.filterwarnings("ignore:the optimizer's grad_clip is used")  # both kinds of clip, on purpose
def test_building_typed_values_runs_no_config_code(tmp_path):
    cfg = _typed_config(tmp_path)
    programs, ran = _config_code_run(build_programs, cfg.model, cfg)
    assert ran == set()
    params = {p.name: p for p in programs.main.all_parameters()}
    assert "head_w" in params and params["hidden.w_0"].regularizer is not None
    assert "lr_schedule" in {op.type for op in programs.main.global_block().ops}
    batcher, ran = _config_code_run(load_data, cfg, "train")
    assert len(batcher) == 2 and ran == set()


def test_the_resolved_spec_holds_every_value_typed(tmp_path):
    cfg = _typed_config(tmp_path)
    hidden = cfg.model.layer("hidden")
    assert hidden.kwargs["input"] == [Ref("last", None, "last"), Ref("pooled", None, "pooled")]
    attr = hidden.kwargs["param_attr"]
    assert isinstance(attr, Typed) and attr.what == "ParamAttr"
    assert {k: (v.what, v.name) for k, v in attr.args.items()} == {
        "initializer": ("initializer", "Normal"),
        "regularizer": ("regularizer", "L2Decay"),
        "gradient_clip": ("gradient clip", "GradientClipByValue"),
    }
    assert hidden.kwargs["bias_attr"] is False and cfg.model.layer("logits").kwargs["param_attr"] == "head_w"
    rnn = cfg.model.layer("rnn")
    assert rnn.kwargs["step_inputs"] == {"x": Ref("proj", None, "proj")} and rnn.block[0].fn is not None
    opt = cfg.optimizer
    assert isinstance(opt, OptimizerSpec) and opt.name == "Adam" and opt.kwargs["epsilon_scaled"] is True
    lr = opt.kwargs["learning_rate"]
    assert (lr.name, lr.path) == ("switch_schedule", ("optimizer", "learning_rate"))
    assert isinstance(lr.args["values"][0], Typed) and lr.args["values"][1] == 0.05
    assert lr.args["values"][0].path == ("optimizer", "learning_rate", "values", 0)
