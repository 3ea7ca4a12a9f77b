"""pe against Fluid 1.8.5's recorded behaviour (tests/data/fluid_oracle/, written by
tools/fluid_oracle.py on paddlepaddle==1.8.5): the same programs, initial weights and batches
replayed on pe.

- dynamic_lstm, hidden size 6: pe's loss trajectory and gradients equal Fluid's.
- dynamic_lstm, hidden size 8: Fluid 1.8.5's CPU lstm_grad drops the cell-state gradient (its AVX
  kernel, used when the hidden size is a multiple of 8), so its gradients are wrong; pe's equal
  float64 finite differences and differ from Fluid's (docs/COMPAT.md).
- fc + softmax + cross_entropy with Adam: the loss trajectory and final weights equal Fluid's.
- bad inputs: pe raises the exception kind Fluid raises (TypeError, ValueError, AssertionError), or
  accepts what Fluid accepts with the same values; where Fluid's C++ core refuses (EnforceNotMet),
  pe refuses too, with its own one-line error (fluid.core.EnforceNotMet where scripts catch it)."""

import importlib.util
import json
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "fluid_oracle")
_spec = importlib.util.spec_from_file_location("fluid_oracle", os.path.join(ROOT, "tools", "fluid_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)


def _recorded(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def lstm_runs():
    return {h: oracle.run_lstm(fluid, h) for h in (6, 8)}


def _fd_and_analytic(hidden, param, entries):
    """float64 central differences of the first batch's loss in ``entries`` of ``param``, and pe's
    float64 analytic gradient there."""
    main, startup, loss = oracle.lstm_program(fluid, hidden, "float64")
    with fluid.unique_name.guard():
        forward, _, forward_loss = oracle.lstm_program(fluid, hidden, "float64", train=False)
    weights, batches, lod = oracle.lstm_data(hidden)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    x = fluid.create_lod_tensor(batches[0], lod, fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        oracle.set_weights(fluid, scope, weights, "float64")
        analytic = np.asarray(exe.run(main, feed={"x": x}, fetch_list=[param + "@GRAD"])[0]).reshape(-1)
        fd = []
        for i in entries:
            values = []
            for sign in (1, -1):
                w = {k: np.array(v, dtype="float64") for k, v in weights.items()}
                w[param].reshape(-1)[i] += sign * 1e-6
                oracle.set_weights(fluid, scope, w, "float64")
                values.append(
                    float(np.asarray(exe.run(forward, feed={"x": x}, fetch_list=[forward_loss])[0]).reshape(-1)[0])
                )
            fd.append((values[0] - values[1]) / 2e-6)
    return np.array(fd), analytic[list(entries)]


def test_lstm_hidden_6_equals_fluid(lstm_runs):
    recorded = _recorded("lstm.json")["runs"]["6"]
    np.testing.assert_allclose(lstm_runs[6]["loss"], recorded["loss"], rtol=1e-5, atol=1e-6)
    for name, grad in recorded["grads"].items():
        np.testing.assert_allclose(lstm_runs[6]["grads"][name], grad, rtol=1e-4, atol=1e-6, err_msg=name)


def test_lstm_hidden_8_matches_finite_differences_where_fluid_does_not(lstm_runs):
    recorded = _recorded("lstm.json")["runs"]["8"]
    entries = list(range(0, 32, 3))  # the four gates' biases
    fd, analytic = _fd_and_analytic(8, "lstm_b", entries)
    np.testing.assert_allclose(analytic, fd, rtol=1e-5, atol=1e-7)
    fluid_grad = np.asarray(recorded["grads"]["lstm_b"]).reshape(-1)[entries]
    assert np.abs(fluid_grad - fd).max() > 1e-2  # Fluid 1.8.5's lstm_grad bug, recorded
    pe_grad = np.asarray(lstm_runs[8]["grads"]["lstm_b"]).reshape(-1)[entries]
    np.testing.assert_allclose(pe_grad, fd, rtol=1e-3, atol=1e-5)
    # the first step's loss is a forward value: the same on both; the trajectories part after it
    assert lstm_runs[8]["loss"][0] == pytest.approx(recorded["loss"][0], rel=1e-5)
    assert abs(lstm_runs[8]["loss"][1] - recorded["loss"][1]) > 1e-2


def test_lstm_hidden_6_gradient_matches_finite_differences():
    fd, analytic = _fd_and_analytic(6, "lstm_w", list(range(0, 144, 13)))
    np.testing.assert_allclose(analytic, fd, rtol=1e-5, atol=1e-7)


def test_adam_trajectory_equals_fluid():
    recorded = _recorded("mlp_adam.json")["run"]
    run = oracle.run_mlp(fluid)
    np.testing.assert_allclose(run["loss"], recorded["loss"], rtol=1e-3)
    for name, value in recorded["final_weights"].items():
        # Adam moves a weight by about lr whatever its gradient's size, so a gradient that is ~0 up to
        # float32 rounding (a relu at its kink) may step differently: 5e-3 is a tenth of lr=0.05
        np.testing.assert_allclose(run["final_weights"][name], value, rtol=1e-2, atol=5e-3, err_msg=name)


def test_bilinear_is_the_kernel_fluid_meant():
    """Fluid 1.8 on Python 3 divides the row index with / (a float): its kernel is not bilinear
    (not even symmetric); pe's is the outer product Fluid computes on Python 2."""
    recorded = np.asarray(_recorded("bilinear.json")["kernel"])[0, 0]
    axis = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(np.asarray(oracle.run_bilinear(fluid))[0, 0], np.outer(axis, axis))
    np.testing.assert_allclose(recorded[:, 0], axis * 0.25)  # Fluid's first column is right
    assert np.abs(recorded - np.outer(axis, axis)).max() > 0.1  # the rest is not


@pytest.mark.parametrize("key", ["integral-True", "integral-False", "11point-True", "11point-False"])
def test_detection_map_equals_fluid(key):
    """metrics.DetectionMAP over two batches: each batch's mAP and the accumulated one."""
    ap_version, difficult = key.split("-")
    recorded = _recorded("detection_map.json")["maps"][key]
    np.testing.assert_allclose(
        oracle.run_detection_map(fluid, ap_version, difficult == "True"), recorded, rtol=1e-5, atol=1e-6
    )


# the cases Fluid's C++ core refuses (EnforceNotMet): pe's one line, naming what is wrong
ENFORCE_MESSAGES = {
    "case_invalid_recursive_lengths": r"set_recursive_sequence_lengths: \[\[2, 2\]\] is not a valid LoD for this "
    r"tensor \(3 rows\): level 0's lengths must be >= 0 and add up to 3",
    "case_one_hot_float_ids": "one_hot_v2: X holds float32 values; it takes int64 or int32",
    "case_softmax_with_cross_entropy_float_label": "softmax_with_cross_entropy: Label holds float32 values; "
    "it takes int64 or int32",
}


@pytest.mark.parametrize("case", oracle.CASES, ids=lambda c: c.__name__)
def test_bad_input_raises_what_fluid_raises(case):
    recorded = _recorded("exceptions.json")["cases"][case.__name__]
    if recorded["raises"] == "EnforceNotMet":  # a check of Fluid's C++ core: pe raises its own error
        with pytest.raises(fluid.core.EnforceNotMet, match=ENFORCE_MESSAGES[case.__name__]) as error:
            case(fluid)
        assert "\n" not in str(error.value)
        return
    got = oracle.outcome(case, fluid)
    assert got["raises"] == recorded["raises"], (got, recorded)
    if recorded["raises"] is None:
        assert got["returns"] == recorded["returns"]


def test_float32_sigmoid_has_fluids_bits():
    """Fluid's float32 sigmoid (Eigen: exps eight at a time by Cephes' polynomial, the tail by libm):
    pe's gives the same bits, on which op_test's float32 finite differences of test_activation_op.py's
    TestSigmoid depend (1 % off with a last bit changed in the tail)."""
    want = np.asarray(_recorded("sigmoid.json")["bits"], np.int32)
    got = np.asarray(oracle.run_sigmoid_bits(fluid), np.int32)
    assert got.size == 187
    np.testing.assert_array_equal(got, want)


def test_float32_tanh_has_fluids_bits():
    """Fluid's float32 tanh op (Eigen 3.3's rational form: x clamped to +-9, a degree-13 odd polynomial over a
    degree-6 even one) over 1,003 values, a tail of 3 among them: pe's gives the same bits, planned or op by op
    (the same loop), where the exp form it had differed in most of them."""
    want = np.asarray(_recorded("tanh.json")["bits"], np.int32)
    got = np.asarray(oracle.run_tanh_bits(fluid), np.int32)
    assert got.size == 1003
    np.testing.assert_array_equal(got, want)


def test_float32_row_conv_has_fluids_bits():
    """row_conv sums in float32 from the first step, as Fluid's kernel: the same bits (test_row_conv_op.py's
    float32 Filter gradient check, within 0.5 %, was 0.64 % off with the sums in float64)."""
    want = np.asarray(_recorded("row_conv.json")["bits"], np.int32)
    np.testing.assert_array_equal(np.asarray(oracle.run_row_conv_bits(fluid), np.int32), want)
