"""pe against Fluid 1.8.5's recorded runs of programs built from its control-flow layers
(tests/data/fluid_oracle/control_flow.json, written by tools/fluid_control_flow_oracle.py on
paddlepaddle==1.8.5): the same programs, initial weights and batches replayed on pe.

- DynamicRNN, built as Fluid builds it (while over the rank-table ops and tensor arrays, its
  gradient through while_grad): 4 SGD steps' losses, the first step's outputs and LoD, and every
  parameter's gradient equal Fluid's.
- fluid.layers' learning-rate schedules, built from Fluid's ops: the rate at each of 12 runs equals
  Fluid's (float32: 1 unit in the last place where pe's exp, cos and pow round otherwise)."""

import importlib.util
import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "fluid_control_flow_oracle", os.path.join(ROOT, "tools", "fluid_control_flow_oracle.py")
)
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

with open(os.path.join(ROOT, "tests", "data", "fluid_oracle", "control_flow.json"), encoding="utf-8") as f:
    RECORDED = json.load(f)


@pytest.fixture(scope="module")
def dynamic_rnn():
    return oracle.run_dynamic_rnn(fluid)


def test_dynamic_rnn_trains_as_fluids(dynamic_rnn):
    want = RECORDED["dynamic_rnn"]
    np.testing.assert_allclose(dynamic_rnn["loss"], want["loss"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dynamic_rnn["out"], want["out"], rtol=1e-5, atol=1e-6)
    assert dynamic_rnn["lod"] == want["lod"]
    for name, grad in want["grads"].items():
        np.testing.assert_allclose(dynamic_rnn["grads"][name], grad, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(oracle.LR_SCHEDULES))
def test_learning_rate_schedules_give_fluids_rates_step_by_step(name):
    np.testing.assert_allclose(
        oracle.run_lr_schedule(fluid, name), RECORDED["lr_schedules"][name], rtol=2e-7, err_msg=name
    )
