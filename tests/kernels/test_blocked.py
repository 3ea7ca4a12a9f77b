"""The kernels on blocked values (kernels/cpu/blocked.py, nChw16c) against the NCHW kernels they
stand in for: oneDNN's convolutions (but an input gradient from and to blocked values, float32
rounding), global average pooling and the elementwise ops (sum, a residual add + relu) give the
same bits in either layout; batch norm, with relu or without
(_blocked_loops.py), the same numbers to float32 rounding, the same bits on 1 and 2 threads; where
the blocked path does not apply (float64, inference, a narrow input) the NCHW kernel's bits through
conversions."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import blocked, convolution, elementwise, fused, normalization, pooling
from pe_cli.kernels.cpu.runtime import loops, onednn as _onednn, threads
from pe_cli.shapes.conv_plans import ConvGeometry
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(3)
needs_onednn = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")


def test_to_blocked_and_back_is_the_layout_of_nchw16c():
    x = rng.normal(size=(2, 32, 3, 5)).astype(np.float32)
    b = blocked.to_blocked(x)
    assert b.shape == (2, 2, 3, 5, 16) == blocked.blocked_shape(x.shape)
    assert b[1, 1, 2, 4, 7] == x[1, 16 + 7, 2, 4]
    assert np.array_equal(blocked.to_plain(b), x)


def _conv_attrs(**given):
    a = registry.get("conv2d").default_attrs()
    a.update(given)
    return a


CONVS = {
    "3x3": (16, 32, 9, 3, 1, [1, 1]),
    "stride 2": (32, 16, 10, 3, 2, [1, 1]),
    "1x1 stride 2": (16, 32, 8, 1, 2, [0, 0]),
}


@needs_onednn
@pytest.mark.parametrize("slots", [{"Input"}, {"Output"}, {"Input", "Output"}], ids=lambda s: "+".join(sorted(s)))
@pytest.mark.parametrize("case", CONVS, ids=str)
def test_conv2d_on_blocked_values_gives_the_nchw_bits(case, slots):
    c, m, hw, k, stride, pad = CONVS[case]
    x = rng.normal(size=(4, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, k, k)).astype(np.float32)
    attrs = _conv_attrs(strides=[stride, stride], paddings=pad)
    want = convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"]
    ins = {"Input": blocked.to_blocked(x) if "Input" in slots else x, "Filter": w}
    got = blocked.conv2d(ins, attrs, KernelContext(blocked=frozenset(slots)))["Output"]
    assert np.array_equal(blocked.to_plain(got) if "Output" in slots else got, want)


@needs_onednn
@pytest.mark.parametrize(
    "slots",
    [{"Output@GRAD"}, {"Input", "Input@GRAD"}, {"Input", "Output@GRAD", "Input@GRAD"}],
    ids=lambda s: "+".join(sorted(s)),
)
@pytest.mark.parametrize("case", CONVS, ids=str)
def test_conv2d_grad_on_blocked_values_gives_the_nchw_numbers(case, slots, monkeypatch):
    monkeypatch.setattr(threads, "_share", 1)  # the filter gradient's bits follow oneDNN's threads
    c, m, hw, k, stride, pad = CONVS[case]
    x = rng.normal(size=(4, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, k, k)).astype(np.float32)
    attrs = _conv_attrs(strides=[stride, stride], paddings=pad)
    dout = rng.normal(size=convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"].shape).astype(np.float32)
    want = convolution.conv2d_grad({"Input": x, "Filter": w, "Output@GRAD": dout}, attrs)
    ins = {
        "Input": blocked.to_blocked(x) if "Input" in slots else x,
        "Filter": w,
        "Output@GRAD": blocked.to_blocked(dout) if "Output@GRAD" in slots else dout,
    }
    got = blocked.conv2d_grad(ins, attrs, KernelContext(blocked=frozenset(slots)))
    bctx = KernelContext(blocked=frozenset(slots))
    alone = dict(blocked.conv2d_grad_input(ins, attrs, bctx), **blocked.conv2d_grad_filter(ins, attrs, bctx))
    for got in (got, alone):
        dx = got["Input@GRAD"]
        dx = blocked.to_plain(dx) if "Input@GRAD" in slots else dx
        if {"Input@GRAD", "Output@GRAD"} <= slots:  # both gradients given to oneDNN as nChw16c (_grad_input_desc):
            # its implementation there sums each element's C*kh*kw products in another order, which
            # the CPU decides (on an AMD EPYC an element near 0 differed by 1.9e-5 where others reach
            # 50): within a few float32 ulps of the largest values, not of each element
            scale = np.abs(want["Input@GRAD"]).max()
            np.testing.assert_allclose(dx, want["Input@GRAD"], rtol=1e-5, atol=4e-6 * scale)
        else:
            assert np.array_equal(dx, want["Input@GRAD"])
        assert np.array_equal(got["Filter@GRAD"], want["Filter@GRAD"])


def test_conv2d_where_onednn_does_not_apply_runs_the_nchw_kernel_through_conversions():
    x = rng.normal(size=(3, 16, 6, 6))  # float64: pe's own paths
    w = rng.normal(size=(16, 16, 3, 3))
    attrs = _conv_attrs(paddings=[1, 1])
    want = convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"]
    got = blocked.conv2d(
        {"Input": blocked.to_blocked(x), "Filter": w}, attrs, KernelContext(blocked=frozenset({"Input", "Output"}))
    )["Output"]
    assert got.shape == (3, 1, 6, 6, 16) and np.array_equal(blocked.to_plain(got), want)


@needs_onednn
def test_a_first_convolution_on_3_channels_runs_on_onednn_where_its_output_is_blocked():
    x = rng.normal(size=(4, 3, 9, 9)).astype(np.float32)
    w = rng.normal(size=(16, 3, 3, 3)).astype(np.float32)
    attrs = _conv_attrs(paddings=[1, 1])
    geo = ConvGeometry(x.shape, w.shape, attrs)
    got = blocked.conv2d({"Input": x, "Filter": w}, attrs, KernelContext(blocked=frozenset({"Output"})))["Output"]
    assert np.array_equal(got, blocked.to_blocked(_onednn.conv2d(x, w, geo)))  # oneDNN's, not pe's own
    np.testing.assert_allclose(
        blocked.to_plain(got), convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"], rtol=1e-4, atol=1e-4
    )
    dout = rng.normal(size=(4, 16, 9, 9)).astype(np.float32)
    dw = blocked.conv2d_grad_filter(
        {"Input": x, "Filter": w, "Output@GRAD": blocked.to_blocked(dout)},
        attrs,
        KernelContext(blocked=frozenset({"Output@GRAD"})),
    )["Filter@GRAD"]
    np.testing.assert_allclose(
        dw,
        convolution.conv2d_grad_filter({"Input": x, "Filter": w, "Output@GRAD": dout}, attrs)["Filter@GRAD"],
        rtol=1e-4,
        atol=1e-3,
    )
    plain = blocked.conv2d({"Input": x, "Filter": w}, attrs, KernelContext(blocked=frozenset()))["Output"]
    assert np.array_equal(plain, convolution.conv2d({"Input": x, "Filter": w}, attrs)["Output"])  # NCHW: pe's own


# batch norm: fused_batch_norm_act (relu) and batch_norm, against their NCHW kernels
BN_OPS = {
    True: (
        "fused_batch_norm_act",
        fused.fused_batch_norm_act,
        fused.fused_batch_norm_act_grad,
        blocked.fused_batch_norm_act,
        blocked.fused_batch_norm_act_grad,
    ),
    False: (
        "batch_norm",
        normalization.batch_norm,
        normalization.batch_norm_grad,
        blocked.batch_norm,
        blocked.batch_norm_grad,
    ),
}
BN_SLOTS = frozenset({"X", "Y", "Y@GRAD", "X@GRAD"})


def _bn(c, dtype, relu=True, **given):
    attrs = registry.get(BN_OPS[relu][0]).default_attrs()
    attrs.update(given)
    ins = {
        "X": (rng.normal(size=(6, c, 5, 7)) * 3 + 1).astype(dtype),
        "Scale": rng.normal(size=c).astype(dtype),
        "Bias": rng.normal(size=c).astype(dtype),
        "Mean": rng.normal(size=c).astype(dtype),
        "Variance": rng.random(c).astype(dtype),
    }
    return ins, attrs


def _blocked_ins(ins, slots):
    return {k: blocked.to_blocked(v) if k in slots else v for k, v in ins.items()}


def _bn_grad_ins(ins, out, dy, relu):
    g = {
        "X": ins["X"],
        "Scale": ins["Scale"],
        "SavedMean": out["SavedMean"],
        "SavedVariance": out["SavedVariance"],
        "Y@GRAD": dy,
    }
    return dict(g, Y=out["Y"]) if relu else g


@pytest.mark.parametrize("relu", [True, False], ids=["relu", "no act"])
@pytest.mark.parametrize(
    "dtype,device_threads",
    [  # float64's parallel twins: a slow compile of their own,
        pytest.param(np.float32, 1, id="serial-float32"),  # with no split that float32's does not cover
        pytest.param(np.float64, 1, id="serial-float64"),
        pytest.param(np.float32, 2, id="parallel-float32"),
    ],
    indirect=["device_threads"],
)
@pytest.mark.parametrize("c", [16, 48])
def test_batch_norm_on_blocked_values_matches_the_nchw_loops(c, dtype, relu, device_threads):
    _, forward, backward, bforward, bbackward = BN_OPS[relu]
    ins, attrs = _bn(c, dtype, relu)
    bctx = KernelContext(blocked=BN_SLOTS)
    want, got = forward(ins, attrs), bforward(_blocked_ins(ins, BN_SLOTS), attrs, bctx)
    tol = {"rtol": 2e-5, "atol": 2e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(blocked.to_plain(got["Y"]), want["Y"], **tol)
    for slot in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance"):
        np.testing.assert_allclose(got[slot], want[slot], **tol)
        assert got[slot].dtype == want[slot].dtype
    gins = _bn_grad_ins(ins, want, rng.normal(size=ins["X"].shape).astype(dtype), relu)
    gwant = backward(gins, attrs)
    ggot = bbackward(_blocked_ins(gins, BN_SLOTS), attrs, bctx)
    np.testing.assert_allclose(blocked.to_plain(ggot["X@GRAD"]), gwant["X@GRAD"], **tol)
    for slot in ("Scale@GRAD", "Bias@GRAD"):
        np.testing.assert_allclose(ggot[slot], gwant[slot], **tol)


@pytest.mark.parametrize("relu", [True, False], ids=["relu", "no act"])
def test_batch_norm_on_blocked_values_is_the_same_bits_on_1_and_2_threads(relu, monkeypatch):
    monkeypatch.setattr(loops, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(loops, "EAGER", True)
    _, _, _, bforward, bbackward = BN_OPS[relu]
    ins, attrs = _bn(32, np.float32, relu)
    bins, bctx = _blocked_ins(ins, BN_SLOTS), KernelContext(blocked=BN_SLOTS)
    dy = blocked.to_blocked(rng.normal(size=ins["X"].shape).astype(np.float32))
    runs = []
    for share in (1, 2):
        monkeypatch.setattr(threads, "_share", share)
        out = bforward(bins, attrs, bctx)
        grads = bbackward(_bn_grad_ins(bins, out, dy, relu), attrs, bctx)
        runs.append([out["Y"], out["SavedMean"], out["SavedVariance"], grads["X@GRAD"], grads["Scale@GRAD"]])
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("relu", [True, False], ids=["relu", "no act"])
def test_batch_norm_in_inference_on_blocked_values_runs_the_nchw_kernel(relu):
    _, forward, _, bforward, _ = BN_OPS[relu]
    ins, attrs = _bn(16, np.float32, relu, is_test=True)
    slots = frozenset({"X", "Y"})
    want = forward(ins, attrs)["Y"]
    got = bforward(_blocked_ins(ins, slots), attrs, KernelContext(blocked=slots))["Y"]
    assert np.array_equal(blocked.to_plain(got), want)


def test_global_average_pooling_on_blocked_values_gives_the_nchw_bits():
    attrs = dict(registry.get("pool2d").default_attrs(), pooling_type="avg", global_pooling=True)
    x = rng.normal(size=(3, 32, 5, 7)).astype(np.float32)
    want = pooling.pool2d({"X": x}, attrs)["Out"]
    got = blocked.pool2d({"X": blocked.to_blocked(x)}, attrs, KernelContext(blocked=frozenset({"X"})))["Out"]
    assert got.shape == want.shape == (3, 32, 1, 1) and np.array_equal(got, want)
    dout = rng.normal(size=want.shape).astype(np.float32)
    gwant = pooling.pool2d_grad({"X": x, "Out": want, "Out@GRAD": dout}, attrs)["X@GRAD"]
    ggot = blocked.pool2d_grad(
        {"X": blocked.to_blocked(x), "Out": want, "Out@GRAD": dout},
        attrs,
        KernelContext(blocked=frozenset({"X", "X@GRAD"})),
    )["X@GRAD"]
    assert np.array_equal(blocked.to_plain(ggot), gwant)


def test_sum_and_a_residual_add_relu_on_blocked_values_give_the_nchw_bits(device_threads):
    xs = [rng.normal(size=(4, 32, 6, 6)).astype(np.float32) for _ in range(3)]
    bxs = [blocked.to_blocked(x) for x in xs]
    for k in (2, 3):
        got = blocked.sum({"X": bxs[:k]}, {}, KernelContext(blocked=frozenset({"X", "Out"})))["Out"]
        assert np.array_equal(blocked.to_plain(got), elementwise.sum({"X": xs[:k]}, {})["Out"])
    attrs = registry.get("fused_elemwise_activation").default_attrs()
    slots = frozenset({"X", "Y", "Out", "IntermediateOut", "Out@GRAD", "X@GRAD", "Y@GRAD"})
    want = fused.fused_elemwise_activation({"X": xs[0], "Y": xs[1]}, attrs)
    got = blocked.fused_elemwise_activation({"X": bxs[0], "Y": bxs[1]}, attrs, KernelContext(blocked=slots))
    for slot in ("Out", "IntermediateOut"):
        assert np.array_equal(blocked.to_plain(got[slot]), want[slot])
    gins = {"X": xs[0], "Y": xs[1], "Out": want["Out"], "Out@GRAD": xs[2]}
    gwant = fused.fused_elemwise_activation_grad(gins, attrs)
    ggot = blocked.fused_elemwise_activation_grad(
        {k: blocked.to_blocked(v) for k, v in gins.items()}, attrs, KernelContext(blocked=slots)
    )
    for slot in ("X@GRAD", "Y@GRAD"):
        assert np.array_equal(blocked.to_plain(ggot[slot]), gwant[slot])
