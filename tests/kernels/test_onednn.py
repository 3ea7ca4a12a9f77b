"""conv2d and its gradients by oneDNN (kernels/cpu/runtime/onednn.py, the ``onednn`` extra) against pe's own
paths (``PE_ONEDNN=0``) on the geometries the op allows, the thread behaviour each direction has,
and the switch that turns it off. The op tests (tests/ops) check conv2d's forward against numpy and
its float64 gradients by finite differences; float32 runs on oneDNN wherever it is installed."""

import numpy as np
import pytest

from pe_cli.kernels.cpu.runtime import loops, onednn as _onednn, threads
from pe_cli.kernels.cpu import convolution
from pe_cli.ops import registry
from pe_cli.shapes import conv_pool

pytestmark = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")

rng = np.random.default_rng(0)


def attrs_of(**given):
    a = registry.get("conv2d").default_attrs()
    a.update(given)
    return a


def _all(x, w, dout, attrs):
    ins = {"Input": x, "Filter": w, "Output@GRAD": dout}
    return (
        convolution.conv2d(ins, attrs)["Output"],
        convolution.conv2d_grad_input(ins, attrs)["Input@GRAD"],
        convolution.conv2d_grad_filter(ins, attrs)["Filter@GRAD"],
    )


@pytest.fixture
def pe_paths(monkeypatch):
    """Runs ``fn`` with oneDNN off (pe's own paths), then turns it back on."""

    def run(fn):
        with monkeypatch.context() as m:
            m.setenv("PE_ONEDNN", "0")
            m.setattr(_onednn, "_loaded", False)
            m.setattr(_onednn, "_lib", None)
            return fn()

    return run


def _case(c, m, hw, k, stride, pad, dil, groups, n=5):
    x = rng.normal(size=(n, c, hw, hw + 1)).astype(np.float32)
    w = rng.normal(size=(m, c // groups, k, k)).astype(np.float32)
    attrs = attrs_of(strides=[stride, stride], paddings=pad, dilations=[dil, dil], groups=groups)
    ho, wo = convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"].shape[2:]
    return x, w, rng.normal(size=(n, m, ho, wo)).astype(np.float32), attrs


GEOMETRIES = {  # C, M, H, k, stride, paddings, dilation, groups
    "3x3": (16, 16, 12, 3, 1, [1, 1], 1, 1),
    "first layer": (3, 16, 12, 3, 1, [1, 1], 1, 1),
    "5x5 unpadded": (6, 16, 14, 5, 1, [0, 0], 1, 1),
    "stride 2": (16, 32, 12, 3, 2, [1, 1], 1, 1),
    "dilation 2": (8, 8, 11, 3, 1, [2, 2], 2, 1),
    "asymmetric paddings": (8, 8, 9, 3, 1, [0, 2, 1, 0], 1, 1),
    "groups": (8, 16, 10, 3, 1, [1, 1], 1, 2),
    "depthwise": (8, 8, 9, 3, 1, [1, 1], 1, 8),
    "1x1": (4, 12, 7, 1, 1, [0, 0], 1, 1),
}


@pytest.mark.parametrize("name", sorted(GEOMETRIES))
def test_onednn_computes_what_pe_own_paths_compute(name, pe_paths, monkeypatch):
    monkeypatch.setattr(conv_pool, "ONEDNN_MIN_CHANNELS", 1)  # every geometry on oneDNN, however thin
    _onednn._plans.clear()
    x, w, dout, attrs = _case(*GEOMETRIES[name])
    mine = _all(x, w, dout, attrs)
    assert _onednn._plans, "oneDNN did not run"
    theirs = pe_paths(lambda: _all(x, w, dout, attrs))
    for slot, a, b in zip(("Output", "Input@GRAD", "Filter@GRAD"), mine, theirs):
        assert a.shape == b.shape and a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5 * np.abs(b).max(), err_msg=f"{name} {slot}")


def test_float64_and_thin_inputs_run_on_pe_own_paths():
    x, w, dout, attrs = _case(*GEOMETRIES["3x3"])
    _onednn._plans.clear()
    _all(x.astype(np.float64), w.astype(np.float64), dout.astype(np.float64), attrs)
    assert not _onednn._plans
    for name in ("first layer", "depthwise"):  # fewer than MIN_CHANNELS input channels a group
        _all(*_case(*GEOMETRIES[name]))
        assert not _onednn._plans, name


def test_forward_and_input_gradient_give_the_same_bits_on_any_threads_the_filter_gradient_on_fixed_ones(monkeypatch):
    monkeypatch.setattr(loops, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(threads, "_quiet_share", 2)
    x, w, dout, attrs = _case(16, 16, 16, 3, 1, [1, 1], 1, 1, n=13)
    runs = {}
    for share in (1, 2, 1, 2):
        monkeypatch.setattr(threads, "_share", share)
        runs.setdefault(share, []).append(_all(x, w, dout, attrs))
    for one, two in zip(runs[1], runs[2]):
        np.testing.assert_array_equal(one[0], two[0])
        np.testing.assert_array_equal(one[1], two[1])
        np.testing.assert_allclose(one[2], two[2], rtol=1e-5, atol=1e-5 * np.abs(one[2]).max())
    for share in (1, 2):  # on fixed threads, the same bits call after call
        np.testing.assert_array_equal(runs[share][0][2], runs[share][1][2])


def test_pe_onednn_0_turns_it_off(pe_paths):
    assert pe_paths(_onednn.library) is None
    assert _onednn.library() is not None


def test_the_plans_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(_onednn, "MAX_PLANS", 3)
    _onednn._plans.clear()
    for hw in range(6, 12):  # a program whose image size keeps changing
        x, w, dout, attrs = _case(4, 4, hw, 3, 1, [1, 1], 1, 1, n=2)
        ref = _all(x, w, dout, attrs)
        assert len(_onednn._plans) <= 3
    assert all(np.isfinite(a).all() for a in ref)


@pytest.mark.parametrize("name", ["3x3", "stride 2"])
def test_conv2d_grad_converts_the_output_gradient_once_for_both_directions(name, monkeypatch):
    monkeypatch.setattr(conv_pool, "ONEDNN_MIN_CHANNELS", 1)
    x, w, dout, attrs = _case(*GEOMETRIES[name])
    ins = {"Input": x, "Filter": w, "Output@GRAD": dout}
    conversions = []
    converted = _onednn._Plan.converted
    monkeypatch.setattr(
        _onednn._Plan, "converted", lambda plan, arg, array: conversions.append(arg) or converted(plan, arg, array)
    )
    apart = (
        convolution.conv2d_grad_input(ins, attrs)["Input@GRAD"],
        convolution.conv2d_grad_filter(ins, attrs)["Filter@GRAD"],
    )
    assert conversions.count(_onednn.DIFF_DST) == 2
    conversions.clear()
    both = convolution.conv2d_grad(ins, attrs)
    assert conversions.count(_onednn.DIFF_DST) == 1
    np.testing.assert_array_equal(both["Input@GRAD"], apart[0])
    np.testing.assert_array_equal(both["Filter@GRAD"], apart[1])


def test_conv2d_grad_on_pe_own_paths_is_its_two_kernels():
    x, w, dout, attrs = (a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in _case(*GEOMETRIES["3x3"]))
    ins = {"Input": x, "Filter": w, "Output@GRAD": dout}
    both = convolution.conv2d_grad(ins, attrs)
    np.testing.assert_array_equal(both["Input@GRAD"], convolution.conv2d_grad_input(ins, attrs)["Input@GRAD"])
    np.testing.assert_array_equal(both["Filter@GRAD"], convolution.conv2d_grad_filter(ins, attrs)["Filter@GRAD"])


@pytest.mark.parametrize("stride", [1, 2])
def test_no_plan_runs_onednn_s_reference_convolution(stride):
    """On an AVX2 CPU oneDNN has no jit kernel for nChw16c input gradients and answered with its
    reference convolution (a ResNet step took minutes): pe asks for its own layout instead, and a
    plan whose only implementation is the reference one is refused (pe's own paths run)."""
    from pe_cli.shapes.conv_plans import ConvGeometry

    x_shape, w_shape = (8, 16, 12, 12), (16, 16, 3, 3)
    geo = ConvGeometry(x_shape, w_shape, attrs_of(strides=[stride, stride], paddings=[1, 1]))
    y_shape = (8, 16, geo.ho, geo.wo)
    blocked = frozenset({_onednn.SRC, _onednn.DST, _onednn.DIFF_SRC, _onednn.DIFF_DST})
    for direction in ("forward", "grad_input", "grad_filter"):
        for layout in (frozenset(), blocked):
            plan = _onednn._plan(direction, x_shape, w_shape, y_shape, geo, 1, layout)
            assert plan is None or not plan.implementation.startswith("ref"), (direction, plan.implementation)
    assert _onednn._plan("grad_input", x_shape, w_shape, y_shape, geo, 1, blocked) is not None
