"""The kernels on blocked values (kernels/cpu/blocked.py, nChw16c) against the NCHW kernels they
stand in for: oneDNN's convolutions give the same bits in either layout; batch norm with relu
(_blocked_loops.py) the same numbers to float32 rounding, the same bits on 1 and 2 threads; where
the blocked path does not apply (float64, inference) the NCHW kernel's bits through conversions."""
import numpy as np
import pytest

from pe_cli.kernels.cpu import _numba, _onednn, blocked, fused, nn, threads
from pe_cli.ops import registry

rng = np.random.default_rng(3)
needs_onednn = pytest.mark.skipif(_onednn.library() is None, reason="the onednn extra is not installed")


@pytest.fixture(params=[1, 2], ids=["serial", "parallel"])
def device_threads(request, monkeypatch):
    monkeypatch.setattr(threads, "_share", request.param)
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    return request.param


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


CONVS = {"3x3": (16, 32, 9, 3, 1, [1, 1]), "stride 2": (32, 16, 10, 3, 2, [1, 1]), "1x1 stride 2": (16, 32, 8, 1, 2, [0, 0])}


@needs_onednn
@pytest.mark.parametrize("slots", [{"Input"}, {"Output"}, {"Input", "Output"}], ids=lambda s: "+".join(sorted(s)))
@pytest.mark.parametrize("case", CONVS, ids=str)
def test_conv2d_on_blocked_values_gives_the_nchw_bits(case, slots):
    c, m, hw, k, stride, pad = CONVS[case]
    x = rng.normal(size=(4, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, k, k)).astype(np.float32)
    attrs = _conv_attrs(strides=[stride, stride], paddings=pad)
    want = nn.conv2d({"Input": x, "Filter": w}, attrs)["Output"]
    ins = {"Input": blocked.to_blocked(x) if "Input" in slots else x, "Filter": w}
    got = blocked.conv2d(ins, dict(attrs, _blocked=frozenset(slots)))["Output"]
    assert np.array_equal(blocked.to_plain(got) if "Output" in slots else got, want)


@needs_onednn
@pytest.mark.parametrize("slots", [{"Output@GRAD"}, {"Input", "Input@GRAD"}, {"Input", "Output@GRAD", "Input@GRAD"}],
                         ids=lambda s: "+".join(sorted(s)))
@pytest.mark.parametrize("case", CONVS, ids=str)
def test_conv2d_grad_on_blocked_values_gives_the_nchw_bits(case, slots, monkeypatch):
    monkeypatch.setattr(threads, "_share", 1)       # the filter gradient's bits follow oneDNN's threads
    c, m, hw, k, stride, pad = CONVS[case]
    x = rng.normal(size=(4, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, k, k)).astype(np.float32)
    attrs = _conv_attrs(strides=[stride, stride], paddings=pad)
    dout = rng.normal(size=nn.conv2d({"Input": x, "Filter": w}, attrs)["Output"].shape).astype(np.float32)
    want = nn.conv2d_grad({"Input": x, "Filter": w, "Output@GRAD": dout}, attrs)
    ins = {"Input": blocked.to_blocked(x) if "Input" in slots else x, "Filter": w,
           "Output@GRAD": blocked.to_blocked(dout) if "Output@GRAD" in slots else dout}
    got = blocked.conv2d_grad(ins, dict(attrs, _blocked=frozenset(slots)))
    battrs = dict(attrs, _blocked=frozenset(slots))
    alone = dict(blocked.conv2d_grad_input(ins, battrs), **blocked.conv2d_grad_filter(ins, battrs))
    for got in (got, alone):
        dx = got["Input@GRAD"]
        assert np.array_equal(blocked.to_plain(dx) if "Input@GRAD" in slots else dx, want["Input@GRAD"])
        assert np.array_equal(got["Filter@GRAD"], want["Filter@GRAD"])


def test_conv2d_where_onednn_does_not_apply_runs_the_nchw_kernel_through_conversions():
    x = rng.normal(size=(3, 16, 6, 6))              # float64: pe's own paths
    w = rng.normal(size=(16, 16, 3, 3))
    attrs = _conv_attrs(paddings=[1, 1])
    want = nn.conv2d({"Input": x, "Filter": w}, attrs)["Output"]
    got = blocked.conv2d({"Input": blocked.to_blocked(x), "Filter": w},
                         dict(attrs, _blocked=frozenset({"Input", "Output"})))["Output"]
    assert got.shape == (3, 1, 6, 6, 16) and np.array_equal(blocked.to_plain(got), want)


def _bn(c, dtype, **given):
    attrs = registry.get("fused_batch_norm_act").default_attrs()
    attrs.update(given)
    ins = {"X": (rng.normal(size=(6, c, 5, 7)) * 3 + 1).astype(dtype), "Scale": rng.normal(size=c).astype(dtype),
           "Bias": rng.normal(size=c).astype(dtype), "Mean": rng.normal(size=c).astype(dtype),
           "Variance": rng.random(c).astype(dtype)}
    return ins, attrs


def _blocked_ins(ins, slots):
    return {k: blocked.to_blocked(v) if k in slots else v for k, v in ins.items()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c", [16, 48])
def test_batch_norm_relu_on_blocked_values_matches_the_nchw_loops(c, dtype, device_threads):
    ins, attrs = _bn(c, dtype)
    slots = frozenset({"X", "Y", "Y@GRAD", "X@GRAD"})
    battrs = dict(attrs, _blocked=slots)
    want, got = fused.fused_batch_norm_act(ins, attrs), blocked.fused_batch_norm_act(_blocked_ins(ins, slots), battrs)
    tol = {"rtol": 2e-5, "atol": 2e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(blocked.to_plain(got["Y"]), want["Y"], **tol)
    for slot in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance"):
        np.testing.assert_allclose(got[slot], want[slot], **tol)
        assert got[slot].dtype == want[slot].dtype
    gins = {"X": ins["X"], "Scale": ins["Scale"], "SavedMean": want["SavedMean"], "SavedVariance": want["SavedVariance"],
            "Y": want["Y"], "Y@GRAD": rng.normal(size=ins["X"].shape).astype(dtype)}
    gwant = fused.fused_batch_norm_act_grad(gins, attrs)
    ggot = blocked.fused_batch_norm_act_grad(_blocked_ins(gins, slots), battrs)
    np.testing.assert_allclose(blocked.to_plain(ggot["X@GRAD"]), gwant["X@GRAD"], **tol)
    for slot in ("Scale@GRAD", "Bias@GRAD"):
        np.testing.assert_allclose(ggot[slot], gwant[slot], **tol)


def test_batch_norm_relu_on_blocked_values_is_the_same_bits_on_1_and_2_threads(monkeypatch):
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    ins, attrs = _bn(32, np.float32)
    slots = frozenset({"X", "Y", "Y@GRAD", "X@GRAD"})
    bins, battrs = _blocked_ins(ins, slots), dict(attrs, _blocked=slots)
    dy = blocked.to_blocked(rng.normal(size=ins["X"].shape).astype(np.float32))
    runs = []
    for share in (1, 2):
        monkeypatch.setattr(threads, "_share", share)
        out = blocked.fused_batch_norm_act(bins, battrs)
        grads = blocked.fused_batch_norm_act_grad(
            {"X": bins["X"], "Scale": ins["Scale"], "SavedMean": out["SavedMean"],
             "SavedVariance": out["SavedVariance"], "Y": out["Y"], "Y@GRAD": dy}, battrs)
        runs.append([out["Y"], out["SavedMean"], out["SavedVariance"], grads["X@GRAD"], grads["Scale@GRAD"]])
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


def test_batch_norm_in_inference_on_blocked_values_runs_the_nchw_kernel():
    ins, attrs = _bn(16, np.float32, is_test=True)
    slots = frozenset({"X", "Y"})
    want = fused.fused_batch_norm_act(ins, attrs)["Y"]
    got = blocked.fused_batch_norm_act(_blocked_ins(ins, slots), dict(attrs, _blocked=slots))["Y"]
    assert np.array_equal(blocked.to_plain(got), want)
