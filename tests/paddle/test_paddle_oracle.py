"""pe against Paddle 2.6.2's recorded behaviour (tests/data/paddle_oracle/, written by
tools/paddle_oracle.py on paddlepaddle==2.6.2): a LeNet, an LSTM text classifier (2-layer
bidirectional, sequence lengths, padding_idx, global-norm clipping), a 2-layer Transformer
encoder classifier (padding mask, AdamW decaying only the weights) and a GRU (time-major, lengths) +
SimpleRNN + pre-norm GELU encoder classifier (additive mask, warm-up), built with ``paddle.nn`` in
static mode, replayed on pe from the same initial weights and batches for 5 steps of AdamW, on 1
CPU place and on 2 (CompiledProgram.with_data_parallel, the same global batch split in two).

- the first batch's logits, the 5 losses and the first step's gradients equal Paddle's to float32
  rounding; the parameters after every step equal Paddle's to 1e-6 (lr 0.005 to 0.01: a few float32
  ulps of the weights);
- the parameters have Paddle's structured names and shapes, and pe's default initializers draw
  from Paddle's distributions (mean and spread, within sampling error);
- single layers (layers.json): Conv3D, Conv3DTranspose, BatchNorm2D (and its running statistics),
  max pools' masks, MaxUnPool1D/2D/3D, rnnt_loss/RNNTLoss: forward values and the input's gradient
  equal Paddle's; SpectralNorm: see its test.

The one parameter left out of the trajectory comparison is the attention's key bias: adding a
constant to every key adds the same number to a query's scores, which softmax ignores, so its
gradient is exactly zero and both engines compute float32 noise of ~1e-9; Adam normalises noise
into full-size steps, different on each engine. The test asserts that gradient is noise-sized on both.
"""

import importlib.util
import json
import os

import numpy as np
import pytest

from pe_cli import paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "paddle_oracle")
_spec = importlib.util.spec_from_file_location("paddle_oracle", os.path.join(ROOT, "tools", "paddle_oracle.py"))
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)

ZERO_GRADIENT = ("self_attn.k_proj.bias",)  # softmax's shift invariance: see the docstring


def _recorded(model):
    with open(os.path.join(DATA, f"{model}.json"), encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 2.6.2"
    return data["run"]


_RUNS = {}


def _replay(model, devices):
    """pe's run of ``model`` on ``devices`` places (once per module) and Paddle's recording."""
    if (model, devices) not in _RUNS:
        _RUNS[model, devices] = oracle.run(paddle, model, devices)
    return model, devices, _RUNS[model, devices], _recorded(model)


@pytest.fixture(params=[(m, d) for m in oracle.MODELS for d in (1, 2)], ids=lambda p: f"{p[0]}-{p[1]}dev")
def replay(request):
    return _replay(*request.param)


@pytest.fixture(params=list(oracle.MODELS))
def replay_1dev(request):
    return _replay(request.param, 1)


def test_forward_and_losses_equal_paddle(replay):
    model, devices, got, want = replay
    np.testing.assert_allclose(got["forward"], want["forward"], rtol=1e-5, atol=2e-6, err_msg=model)
    np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-6, atol=1e-6, err_msg=model)


def test_parameter_trajectories_equal_paddle(replay):
    model, devices, got, want = replay
    assert len(got["params"]) == len(want["params"]) == oracle.STEPS
    compared = 0
    for step, (mine, theirs) in enumerate(zip(got["params"], want["params"])):
        assert sorted(mine) == sorted(theirs)
        for name in theirs:
            if name.endswith(ZERO_GRADIENT):
                continue
            np.testing.assert_allclose(
                mine[name]["at"],
                theirs[name]["at"],
                rtol=1e-5,
                atol=1e-6,
                err_msg=f"{model} {name} after step {step + 1} on {devices} device(s)",
            )
            assert abs(mine[name]["norm"] - theirs[name]["norm"]) <= 1e-5 * theirs[name]["norm"] + 1e-6
            compared += 1
    assert compared >= oracle.STEPS * 6


def test_first_gradients_equal_paddle(replay_1dev):
    """(on 1 device: fetched on several, a gradient is each place's copy, joined)"""
    model, _, got, want = replay_1dev
    for name, theirs in want["grads"].items():
        mine = got["grads"][name]
        if name.endswith(ZERO_GRADIENT):
            assert mine["norm"] < 1e-6 and theirs["norm"] < 1e-6, name
            continue
        scale = max(abs(v) for v in theirs["at"]) + 1e-6
        np.testing.assert_allclose(mine["at"], theirs["at"], rtol=1e-4, atol=1e-4 * scale, err_msg=f"{model} {name}")
        assert abs(mine["norm"] - theirs["norm"]) <= 1e-4 * theirs["norm"] + 1e-7, name


def test_default_initializers_draw_from_paddles_distributions(replay_1dev):
    model, _, got, want = replay_1dev
    assert sorted(got["init"]) == sorted(want["init"])
    for name, theirs in want["init"].items():
        mine = got["init"][name]
        assert mine["shape"] == theirs["shape"], name
        n = int(np.prod(theirs["shape"]))
        spread = max(theirs["std"], 1e-7)
        # two independent samples of n draws: their means and standard deviations differ by sampling error
        assert abs(mine["mean"] - theirs["mean"]) <= 6 * spread / np.sqrt(n) + 1e-7, (name, mine, theirs)
        assert abs(mine["std"] - theirs["std"]) <= 6 * spread / np.sqrt(2 * n) + 1e-7, (name, mine, theirs)


# -- single layers: Conv3D, Conv3DTranspose, SpectralNorm, max pools' masks, MaxUnPool1D/2D/3D, RNNTLoss --
LAYER_DATA = os.path.join(DATA, "layers.json")


@pytest.fixture(scope="module")
def layers_recorded():
    with open(LAYER_DATA, encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 2.6.2"
    return data["layers"]


@pytest.mark.parametrize("name", [n for n in oracle.LAYERS if n != "spectral_norm"])
def test_layer_forward_and_input_gradient_equal_paddle(name, layers_recorded):
    got, want = oracle.run_layer(paddle, name), layers_recorded[name]
    assert len(got["outputs"]) == len(want["outputs"])
    for i, (mine, theirs) in enumerate(zip(got["outputs"], want["outputs"])):
        mine, theirs = np.asarray(mine), np.asarray(theirs)
        if theirs.ndim == 0:  # Paddle 2.6's reductions are 0-D; pe's [1] (docs/COMPAT.md)
            mine = mine.reshape(())
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=2e-6, err_msg=f"{name} output {i}")
    np.testing.assert_allclose(got["grad_x"], want["grad_x"], rtol=1e-5, atol=2e-6, err_msg=f"{name} gradient")


def test_float32_tanh_has_paddles_bits():
    """Paddle 2.6.2's float32 tanh op (Eigen 3.4's rational form: x clamped to +-7.9053111, x itself below 0.0004)
    over 1,003 values: pe's, in a Paddle 2.x program, gives the same bits (Fluid 1.8's form, which a Fluid program
    gets, differs in 74 of the 992 the two recordings share: tests/fluid/test_fluid_oracle.py)."""
    with open(os.path.join(DATA, "tanh.json"), encoding="utf-8") as f:
        recorded = json.load(f)
    assert recorded["engine"] == "paddlepaddle 2.6.2"
    got = np.asarray(oracle.run_tanh_bits(paddle), np.int32)
    assert got.size == 1003
    np.testing.assert_array_equal(got, np.asarray(recorded["bits"], np.int32))


def test_spectral_norm_equals_paddle_forward_and_the_derivative_where_paddle_2_6_does_not(layers_recorded):
    """SpectralNorm's forward equals Paddle's. Its weight gradient is the derivative of W / sigma(W) with
    the power iteration's u, v held fixed, (dOut - sum(dOut * W / sigma) u v^T) / sigma, as Fluid 1.8's
    kernel (and pe's, checked by finite differences in tests/ops/cases_linalg.py); Paddle 2.6.2's phi
    kernel computes dOut * (1 - u v^T * sum(W / sigma)) / sigma instead. Both formulas are evaluated here
    from the recorded input: Paddle's recording equals the second, pe the first."""
    got, want = oracle.run_layer(paddle, "spectral_norm"), layers_recorded["spectral_norm"]
    np.testing.assert_allclose(got["outputs"][0], want["outputs"][0], rtol=1e-5, atol=2e-6)
    x = oracle._distinct(np.random.RandomState(len("spectral_norm")), 3, 4, 2).astype("float64")
    mat = x.transpose(1, 0, 2).reshape(4, 6)  # dim=1 first
    u, v = (
        oracle.initial_value("weight_u", [4]).astype("float64"),
        oracle.initial_value("weight_v", [6]).astype("float64"),
    )
    for _ in range(3):
        v = mat.T @ u
        v /= np.linalg.norm(v) + 1e-12
        u = mat @ v
        u /= np.linalg.norm(u) + 1e-12
    sigma = u @ mat @ v
    dout = mat / sigma + 1.0  # d(sum(out^2) / 2 + sum(out)) / d out
    derivative = (dout - (dout * mat / sigma).sum() * np.outer(u, v)) / sigma
    paddle_26 = dout * (1.0 - np.outer(u, v) * (mat / sigma).sum()) / sigma
    back = lambda m: m.reshape(4, 3, 2).transpose(1, 0, 2)  # noqa: E731
    np.testing.assert_allclose(want["grad_x"], back(paddle_26), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["grad_x"], back(derivative), rtol=1e-4, atol=1e-5)
    assert np.abs(back(derivative) - back(paddle_26)).max() > 0.1
