"""pe against Fluid 1.8.5's recorded values (tests/data/fluid_oracle/ops.json, written by
tools/fluid_oracle_ops.py on paddlepaddle==1.8.5) where Fluid computes its own way and ``fluid.*``
follows it (docs/COMPAT.md, "Fluid 1.8.5's leniency"): the same programs, weights and batches.

- auc over the state variables Fluid's layer declares (slide_steps=0 and 2): every step's AUCs.
- swish: beta is ignored (Fluid's layer passes it as 'slope'), so beta=2.0 gives x * sigmoid(x).
- sparse Adam: the embedding table after three steps, dense, sparse and lazy (the sparse update
  bias-corrects with the next step's beta powers); one lazy adam op alone leaves its outputs' other
  rows as they were (Paddle's test_adam_op.py).
- BeamSearchDecoder under fluid.layers.dynamic_decode: finished flags ORed and lengths counted per slot."""

import importlib.util
import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("fluid_oracle_ops", os.path.join(ROOT, "tools", "fluid_oracle_ops.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)
with open(os.path.join(ROOT, "tests", "data", "fluid_oracle", "ops.json"), encoding="utf-8") as _f:
    RECORDED = json.load(_f)["runs"]


def test_auc_takes_fluids_state_variables_and_computes_its_values():
    got = oracle.run_auc(fluid)
    assert got["state_shapes"] == RECORDED["auc"]["state_shapes"]
    np.testing.assert_allclose(got["steps"], RECORDED["auc"]["steps"], rtol=1e-12)


def test_swish_ignores_beta_as_fluid_does():
    np.testing.assert_allclose(oracle.run_swish(fluid), RECORDED["swish"], atol=1e-6)
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.warns(UserWarning, match="beta=2.0 is ignored, as Fluid 1.8.5 ignores it"):
            fluid.layers.swish(fluid.layers.data("x", [3]), beta=2.0)


@pytest.mark.parametrize("key", ["False-False", "True-False", "True-True"])
def test_sparse_adam_equals_fluids(key):
    sparse, lazy = (k == "True" for k in key.split("-"))
    np.testing.assert_allclose(
        oracle.run_sparse_adam(fluid, sparse, lazy), RECORDED["sparse_adam"][key], rtol=1e-5, atol=2e-6
    )


def test_sparse_adam_differs_from_dense_in_fluid_and_pe():
    recorded = RECORDED["sparse_adam"]
    assert np.abs(np.array(recorded["True-False"]) - np.array(recorded["False-False"])).max() > 1e-2


def test_lazy_adam_op_leaves_its_outputs_other_rows_alone():
    got = oracle.run_lazy_adam_op(fluid)
    for name, value in RECORDED["lazy_adam_op"].items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_beam_search_decoding_follows_fluids_finished_flags():
    ids, lengths = oracle.run_beam_decode(fluid)
    assert ids == RECORDED["beam_decode"][0] and lengths == RECORDED["beam_decode"][1]
