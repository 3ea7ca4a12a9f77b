"""The CPU kernels give the same bits on one thread and on two (serial loops and parallel twins): a
run's numbers must not depend on how many cores were free, nor on whether a parallel twin was
compiled yet (kernels/cpu/runtime/loops.py runs the serial loop meanwhile). The cases are large enough
that each kernel takes its split path (a GEMM of 9M multiply-adds, 13 samples). The convolutions
here are pe's own paths (``PE_ONEDNN=0``); oneDNN's are in test_onednn.py (its filter gradient's
bits follow the thread count)."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu import (
    convolution,
    elementwise,
    linalg as kmath,
    normalization,
    optimizer,
    pooling,
)
from pe_cli.kernels.cpu.runtime import loops as _numba, onednn, threads
from pe_cli.ops import registry

rng = np.random.default_rng(0)


def attrs_of(op, **given):
    a = registry.get(op).default_attrs()
    a.update(given)
    return a


@pytest.fixture
def twins(monkeypatch):
    monkeypatch.setattr(_numba, "EAGER", True)
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(threads, "_quiet_share", 2)  # a 2-core machine, one core busy or not
    monkeypatch.setenv("PE_ONEDNN", "0")
    monkeypatch.setattr(onednn, "_loaded", False)
    monkeypatch.setattr(onednn, "_lib", None)

    def on(share, fn):
        monkeypatch.setattr(threads, "_share", share)
        return fn()

    return on


X = rng.normal(size=(13, 3, 12, 12)).astype(np.float32)
W = rng.normal(size=(4, 3, 5, 5)).astype(np.float32)
DOUT = rng.normal(size=(13, 4, 8, 8)).astype(np.float32)
A, B = rng.normal(size=(300, 200)).astype(np.float32), rng.normal(size=(200, 150)).astype(np.float32)
P = rng.normal(size=(70000,)).astype(np.float32)
ROIS = np.c_[rng.uniform(0, 6, (9, 2)), rng.uniform(7, 12, (9, 2))].astype(np.float32)
ROI_ATTRS = {
    "pooled_height": 3,
    "pooled_width": 3,
    "spatial_scale": 1.0,
    "sampling_ratio": 2,
}
ROI_CTX = KernelContext(lod={"ROIs": [list(range(10)) + [9] * 4]})  # images 0..8 one roi each, 9..12 none

BN_INS = {
    "X": X,
    "Scale": rng.normal(size=3).astype(np.float32),
    "Bias": rng.normal(size=3).astype(np.float32),
    "Mean": np.zeros(3, np.float32),
    "Variance": np.ones(3, np.float32),
}

LN_X = rng.normal(size=(600, 64)).astype(np.float32)  # enough values for layer_norm's parallel runs
LN_INS = {
    "X": LN_X,
    "Scale": rng.uniform(0.5, 1.5, 64).astype(np.float32),
    "Bias": rng.normal(size=64).astype(np.float32),
}

# an attention of 32 (sample, head) pairs of [33, 16] queries and keys: over SPLIT_GEMM_MACS, so split
QKV = {s: rng.normal(size=(8, 33, 4, 16)).astype(np.float32) for s in ("Q", "K", "V")}
SDPA = registry.get("scaled_dot_product_attention").kernel("cpu")(QKV, {"alpha": 0.25})

KERNELS = {
    "conv2d": lambda: convolution.conv2d({"Input": X, "Filter": W}, attrs_of("conv2d")),
    "conv2d_grad_filter": lambda: convolution.conv2d_grad_filter(
        {"Input": X, "Filter": W, "Output@GRAD": DOUT}, attrs_of("conv2d")
    ),
    "conv2d_grad_input": lambda: convolution.conv2d_grad_input(
        {"Input": X, "Filter": W, "Output@GRAD": DOUT}, attrs_of("conv2d")
    ),
    "max_pool": lambda: pooling.pool2d({"X": X}, attrs_of("pool2d", pooling_type="max", ksize=[2, 2], strides=[2, 2])),
    "mul": lambda: kmath.mul({"X": A, "Y": B}, attrs_of("mul")),
    "roi_align": lambda: registry.get("roi_align").kernel("cpu")({"X": X, "ROIs": ROIS}, ROI_ATTRS, ROI_CTX),
    "roi_pool": lambda: registry.get("roi_pool").kernel("cpu")({"X": X, "ROIs": ROIS}, ROI_ATTRS, ROI_CTX),
    "batch_norm": lambda: normalization.batch_norm(BN_INS, attrs_of("batch_norm")),
    "batch_norm_grad": lambda: normalization.batch_norm_grad(
        {
            "X": X,
            "Scale": BN_INS["Scale"],
            "SavedMean": X.mean(axis=(0, 2, 3)),
            "SavedVariance": 1 / X.std(axis=(0, 2, 3)),
            "Y@GRAD": X[:, ::-1] * 0.5,
        },
        attrs_of("batch_norm"),
    ),
    "layer_norm": lambda: registry.get("layer_norm").kernel("cpu")(LN_INS, attrs_of("layer_norm", begin_norm_axis=1)),
    "layer_norm_grad": lambda: registry.get("layer_norm_grad").kernel("cpu")(
        dict(LN_INS, Mean=LN_X.mean(axis=1), Variance=LN_X.var(axis=1), **{"Y@GRAD": LN_X[::-1] * 0.5}),
        attrs_of("layer_norm", begin_norm_axis=1),
    ),
    "elementwise_add": lambda: elementwise.elementwise_add({"X": X, "Y": X[::-1]}, attrs_of("elementwise_add")),
    "sum": lambda: elementwise.sum({"X": [X, X[:, ::-1]]}, {}),
    "fused_add_relu": lambda: registry.get("fused_elemwise_activation").kernel("cpu")(
        {"X": X, "Y": X[::-1]}, attrs_of("fused_elemwise_activation")
    ),
    "attention": lambda: registry.get("scaled_dot_product_attention").kernel("cpu")(QKV, {"alpha": 0.25}),
    "attention_grad": lambda: registry.get("scaled_dot_product_attention_grad").kernel("cpu")(
        dict(QKV, Weights=SDPA["Weights"], **{"Out@GRAD": QKV["Q"][::-1] * 0.5}), {"alpha": 0.25}
    ),
    "momentum": lambda: optimizer.momentum(
        {"Param": P, "Grad": P * 0.5, "Velocity": P * 0.1, "LearningRate": np.array([0.1], np.float32)},
        attrs_of("momentum"),
    ),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_one_thread_and_two_give_the_same_bits(name, twins):
    one, two = twins(1, KERNELS[name]), twins(2, KERNELS[name])
    assert one.keys() == two.keys()
    for slot in one:
        np.testing.assert_array_equal(one[slot], two[slot], err_msg=f"{name} {slot}")
