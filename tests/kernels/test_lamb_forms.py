"""lamb's two forms: Fluid 1.8's (moments as they are, the trust ratio ||Param|| / ||r|| always) and Paddle 2.6's,
an op of a Paddle 2.x program (``paddle2``) or pe's Paddle face (``bias_correction``): bias-corrected moments, the
trust ratio only where weight_decay > 0 or ``always_adapt`` (phi/kernels/impl/lamb_kernel_impl.h). pe applied the
ratio to every parameter in both before 2026-11-30, so a Paddle 2.x parameter without weight decay (excluded by
``exclude_from_weight_decay_fn``, or ``lamb_weight_decay=0``) took other steps (Paddle 2.6's test_lamb_op.py,
TestLambOp3). The reference is that test's ``lamb_step``. On the CPU and CUDA."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(29)


def _inputs():
    return {
        "Param": rng.uniform(-1, 1, (7, 5)).astype("float32"),
        "Grad": rng.uniform(-1, 1, (7, 5)).astype("float32"),
        "LearningRate": np.array([0.001], "float32"),
        "Moment1": rng.uniform(-1, 1, (7, 5)).astype("float32"),
        "Moment2": rng.uniform(0.1, 1, (7, 5)).astype("float32"),
        "Beta1Pow": np.array([0.78**3], "float32"),
        "Beta2Pow": np.array([0.836**3], "float32"),
    }


def _paddle_step(i, a):
    """test_lamb_op.py's lamb_step (Paddle 2.6's reference)."""
    m1 = a["beta1"] * i["Moment1"] + (1 - a["beta1"]) * i["Grad"]
    m2 = a["beta2"] * i["Moment2"] + (1 - a["beta2"]) * np.square(i["Grad"])
    r = (m1 / (1 - i["Beta1Pow"])) / (np.sqrt(m2 / (1 - i["Beta2Pow"])) + a["epsilon"]) + a["weight_decay"] * i["Param"]
    lr = i["LearningRate"]
    if a["weight_decay"] > 0 or a.get("always_adapt"):
        lr = lr * np.linalg.norm(i["Param"]) / np.linalg.norm(r)
    return i["Param"] - lr * r


@pytest.mark.parametrize("weight_decay,always_adapt", [(0.0, False), (0.0, True), (0.01, False)])
def test_a_paddle2_lamb_takes_the_trust_ratio_only_with_weight_decay_or_always_adapt(weight_decay, always_adapt):
    lamb = registry.get("lamb")
    attrs = dict(lamb.default_attrs(), epsilon=1e-8, beta1=0.78, beta2=0.836, weight_decay=weight_decay)
    attrs["always_adapt"] = always_adapt
    ins = _inputs()
    want = _paddle_step(ins, attrs)
    for ctx, given in ((KernelContext(paddle2=True), attrs), (KernelContext(), dict(attrs, bias_correction=True))):
        got = lamb.kernel("cpu")(dict(ins), given, ctx)["ParamOut"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_fluid_lamb_takes_the_trust_ratio_always_and_moments_as_they_are():
    lamb = registry.get("lamb")
    attrs = dict(lamb.default_attrs(), weight_decay=0.0)
    ins = _inputs()
    m1 = attrs["beta1"] * ins["Moment1"] + (1 - attrs["beta1"]) * ins["Grad"]
    m2 = attrs["beta2"] * ins["Moment2"] + (1 - attrs["beta2"]) * np.square(ins["Grad"])
    r = m1 / (np.sqrt(m2) + attrs["epsilon"])
    want = ins["Param"] - ins["LearningRate"] * np.linalg.norm(ins["Param"]) / np.linalg.norm(r) * r
    got = lamb.kernel("cpu")(dict(ins), attrs, KernelContext())["ParamOut"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_cuda_lamb_takes_the_same_forms():
    rt = pytest.importorskip("pe_cli.kernels.cuda.runtime")
    if not rt.available():
        pytest.skip("no CUDA device and no simulator")
    lamb = registry.get("lamb")
    ins = _inputs()
    for weight_decay, ctx in ((0.0, KernelContext(paddle2=True)), (0.0, KernelContext()), (0.01, KernelContext())):
        attrs = dict(lamb.default_attrs(), weight_decay=weight_decay)
        want = lamb.kernel("cpu")(dict(ins), attrs, ctx)["ParamOut"]
        got = lamb.kernel("cuda")({k: rt.to_device(v) for k, v in ins.items()}, attrs, ctx)["ParamOut"]
        np.testing.assert_allclose(rt.to_host(got), want, rtol=1e-5, atol=1e-6)
