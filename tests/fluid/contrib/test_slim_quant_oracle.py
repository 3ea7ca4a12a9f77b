"""contrib.slim's quantization passes against Fluid 1.8.5's (tests/data/fluid_oracle/slim_quant.json,
written by tools/slim_quant_oracle.py on paddlepaddle==1.8.5): the same program, starting weights and
batches through QuantizationTransformPass (with AddQuantDequantPass and the out-scale passes in one
case), three training steps of the graph, QuantizationFreezePass, ConvertToInt8Pass and
TransformForMobilePass. pe inserts the ops Fluid inserts, with their attributes, and computes Fluid's
losses, scales, outputs and weights (float32 rounding; the integer weights exactly)."""

import importlib.util
import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_spec = importlib.util.spec_from_file_location("slim_quant_oracle", os.path.join(ROOT, "tools", "slim_quant_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


@pytest.fixture(autouse=True)
def one_place(monkeypatch):
    """Fluid recorded the training flow on one CPU place (CPU_NUM unset): so does pe, whatever CPU_NUM
    the process holds."""
    monkeypatch.setenv("CPU_NUM", "1")


@pytest.fixture(scope="module")
def recorded():
    with open(oracle.OUT, encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 1.8.5" and sorted(data["cases"]) == sorted(oracle.CASES)
    return data


def _close(mine, theirs, what):
    np.testing.assert_allclose(
        np.array(mine, dtype="float64"), np.array(theirs, dtype="float64"), rtol=2e-5, atol=1e-6, err_msg=what
    )


def _ops_equal(mine, theirs, what):
    """The op records, with float attributes (a scale written into out_threshold) compared as floats."""

    def split(records):
        return (
            [
                json.dumps(
                    dict(r, attrs={k: v for k, v in r["attrs"].items() if not isinstance(v, float)}), sort_keys=True
                )
                for r in records
            ],
            [v for r in records for v in r["attrs"].values() if isinstance(v, float)],
        )

    (mine_text, mine_floats), (their_text, their_floats) = split(mine), split(theirs)
    assert sorted(mine_text) == sorted(their_text), what
    _close(sorted(mine_floats), sorted(their_floats), what)


@pytest.mark.parametrize("case", sorted(oracle.CASES))
def test_quantization_aware_training_flow_equals_fluids(case, recorded):
    mine, theirs = oracle.run(fluid, case), recorded["cases"][case]
    for key in ("train_ops", "test_ops", "frozen_ops", "int8_ops"):
        _ops_equal(mine[key], theirs[key], f"{case}: {key}")
    assert mine["mobile_op_types"] == theirs["mobile_op_types"]
    for key in ("losses", "pred_quantized", "pred_frozen"):
        _close(mine[key], theirs[key], f"{case}: {key}")
    assert sorted(mine["scales"]) == sorted(theirs["scales"])
    for name in theirs["scales"]:
        _close(mine["scales"][name], theirs["scales"][name], f"{case}: scale {name}")
    for key in ("frozen_weights", "int8_weights"):
        for name, value in theirs[key].items():
            np.testing.assert_array_equal(np.array(mine[key][name]), np.array(value), err_msg=f"{case}: {name}")


def _flat(table, prefix=""):
    out = {}
    for key, value in table.items():
        out.update(_flat(value, prefix + key + "/") if isinstance(value, dict) else {prefix + key: value})
    return out


@pytest.mark.parametrize("algo", oracle.PTQ_ALGOS)
def test_post_training_quantization_equals_fluids(algo, recorded, tmp_path):
    """A saved inference model calibrated on 2 batches of 4 samples: Fluid's thresholds (the KL clip
    points too), quantized program with its notes, outputs, frozen weights and saved model's outputs."""
    mine, theirs = oracle.run_ptq(fluid, algo, str(tmp_path)), recorded["ptq"][algo]
    got, want = _flat(mine["thresholds"]), _flat(theirs["thresholds"])
    assert sorted(got) == sorted(want)
    for name in want:
        _close(got[name], want[name], f"{algo}: threshold of {name}")
    assert [(r["type"], r["inputs"], sorted(r["notes"])) for r in mine["program"]] == [
        (r["type"], r["inputs"], sorted(r["notes"])) for r in theirs["program"]
    ]

    def numbers(program):
        return np.hstack([np.ravel(v) for r in program for v in r["notes"].values() if not isinstance(v, str)])

    _close(numbers(mine["program"]), numbers(theirs["program"]), f"{algo}: notes")
    for key in ("pred", "saved_pred"):
        _close(mine[key], theirs[key], f"{algo}: {key}")
    for name, value in theirs["weights"].items():
        np.testing.assert_array_equal(np.array(mine["weights"][name]), np.array(value), err_msg=name)


@pytest.mark.parametrize("weight_type", oracle.WEIGHT_TYPES)
def test_weight_quantization_equals_fluids(weight_type, recorded, tmp_path):
    """The int8 weights (exactly), and the test model's ops with their scales, weights and outputs."""
    mine, theirs = oracle.run_weight_quantization(fluid, weight_type, str(tmp_path)), recorded["weight"][weight_type]
    assert mine["int8"] == theirs["int8"]
    assert mine["test_model"]["program"] == theirs["test_model"]["program"]
    _close(mine["test_model"]["pred"], theirs["test_model"]["pred"], weight_type)
    for name, value in theirs["test_model"]["weights"].items():
        _close(mine["test_model"]["weights"][name], value, name)
