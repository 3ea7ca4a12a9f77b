"""Fluid 1.8's math names of ``fluid.layers`` (from its paddle.tensor: addcmul, addmm, allclose, bmm,
clamp, cross, dist, dot, elementwise_equal, kron, log1p, logsumexp, t, trace, mish) as its scripts
call them, by its parameter names: values against numpy, and the TypeError / ValueError /
AssertionError Fluid raises for bad arguments. One program holds them all and runs once."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers
rng = np.random.default_rng(3)
A = rng.normal(size=(3, 4)).astype("float32")
B = rng.normal(size=(3, 4)).astype("float32")
M = rng.normal(size=(4, 2)).astype("float32")
V3 = rng.normal(size=(2, 3)).astype("float32")
W3 = rng.normal(size=(2, 3)).astype("float32")
CUBE = rng.normal(size=(2, 3, 3)).astype("float32")


@pytest.fixture(scope="module")
def got():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        a, b, m = (
            layers.data(n, list(v.shape), dtype="float32", append_batch_size=False)
            for n, v in (("a", A), ("b", B), ("m", M))
        )
        v, w, cube = (
            layers.data(n, list(x.shape), dtype="float32", append_batch_size=False)
            for n, x in (("v", V3), ("w", W3), ("cube", CUBE))
        )
        lo = layers.fill_constant([1], "float32", -0.5)
        into = layers.create_tensor("float32")
        outs = {
            "addcmul": layers.addcmul(a, b, a, value=0.5, out=into),
            "addmm": layers.addmm(input=layers.fill_constant([1], "float32", 1.0), x=a, y=m, alpha=2.0, beta=3.0),
            "allclose": layers.allclose(a, layers.scale(a, scale=1.0 + 1e-7)),
            "not_close": layers.allclose(input=a, other=b, rtol=1e-3, atol=1e-3),
            "bmm": layers.bmm(cube, cube),
            "clamp": layers.clamp(a, min=-0.5, max=0.5),
            "clamp_var": layers.clamp(a, min=lo),
            "cross": layers.cross(v, w),
            "dist2": layers.dist(a, b),
            "dist_inf": layers.dist(a, b, p=float("inf")),
            "dist0": layers.dist(a, a, p=0),
            "dist3": layers.dist(a, b, p=3),
            "dot": layers.dot(v, w),
            "equal": layers.elementwise_equal(a, layers.clamp(a, min=-10.0)),
            "kron": layers.kron(v, m),
            "log1p": layers.log1p(layers.abs(a)),
            "lse": layers.logsumexp(a),
            "lse_dim": layers.logsumexp(a, dim=1, keepdim=True),
            "trace": layers.trace(cube, offset=1, dim1=1, dim2=2),
            "t": layers.t(a),
            "mish": layers.mish(a),
        }
    names = list(outs)
    values = fluid.Executor(fluid.CPUPlace()).run(
        main,
        feed={"a": A, "b": B, "m": M, "v": V3, "w": W3, "cube": CUBE},
        fetch_list=[outs[n] for n in names],
        scope=fluid.Scope(),
    )
    return dict(zip(names, values))


def test_products(got):
    np.testing.assert_allclose(got["addcmul"], A + 0.5 * B * A, rtol=1e-6)
    np.testing.assert_allclose(got["addmm"], 2.0 * A @ M + 3.0, rtol=1e-5)
    np.testing.assert_allclose(got["bmm"], CUBE @ CUBE, rtol=1e-5)
    np.testing.assert_allclose(got["cross"], np.cross(V3, W3), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["dot"], (V3 * W3).sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got["kron"], np.kron(V3, M), rtol=1e-6)
    np.testing.assert_allclose(got["trace"], np.trace(CUBE, offset=1, axis1=1, axis2=2), rtol=1e-6)
    np.testing.assert_array_equal(got["t"], A.T)


def test_pointwise_and_reductions(got):
    np.testing.assert_array_equal(got["allclose"], [True])
    np.testing.assert_array_equal(got["not_close"], [False])
    np.testing.assert_array_equal(got["clamp"], np.clip(A, -0.5, 0.5))
    np.testing.assert_array_equal(got["clamp_var"], np.maximum(A, -0.5))
    d = A - B
    np.testing.assert_allclose(got["dist2"], [np.sqrt((d * d).sum())], rtol=1e-5)
    np.testing.assert_allclose(got["dist_inf"], [np.abs(d).max()], rtol=1e-6)
    np.testing.assert_array_equal(got["dist0"], [0.0])
    np.testing.assert_allclose(got["dist3"], [(np.abs(d) ** 3).sum() ** (1 / 3)], rtol=1e-5)
    np.testing.assert_array_equal(got["equal"], np.ones_like(A, bool))
    np.testing.assert_allclose(got["log1p"], np.log1p(np.abs(A)), rtol=1e-6)
    lse = np.log(np.exp(A).sum())
    np.testing.assert_allclose(got["lse"], [lse], rtol=1e-5)
    assert got["lse"].shape == (1,)
    np.testing.assert_allclose(got["lse_dim"], np.log(np.exp(A).sum(1, keepdims=True)), rtol=1e-5)
    np.testing.assert_allclose(got["mish"], A * np.tanh(np.log1p(np.exp(A))), rtol=1e-5)


def test_bad_arguments_raise_what_fluid_raises():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [2, 3], dtype="float32", append_batch_size=False)
        i = layers.data("i", [2, 3], dtype="int64", append_batch_size=False)
        with pytest.raises(TypeError, match="value"):
            layers.addcmul(x, x, x, value=1)  # a float input takes a float value
        with pytest.raises(TypeError, match="min"):
            layers.clamp(x, min=1)  # Fluid's clamp takes float bounds
        with pytest.raises(AssertionError, match="either min or max"):
            layers.clamp(x)
        with pytest.raises(TypeError, match="x"):
            layers.log1p(i)
        with pytest.raises(TypeError, match="input"):
            layers.addmm(np.ones((2, 3)), x, x)
        with pytest.raises(ValueError, match="3-D"):
            layers.bmm(x, x)
        with pytest.raises(AssertionError, match="same dimension"):
            layers.trace(x, dim1=0, dim2=-2)
        with pytest.raises(ValueError, match="at most 2 dims"):
            layers.t(layers.unsqueeze(x, [0]))
