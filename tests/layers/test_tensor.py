"""Tensor, math and activation layers as users build them: shapes inferred at build time, mistakes
reported there (naming the layer and both shapes), values and gradients when run."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import OpError, PeError, ShapeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


# -- build-time errors ----------------------------------------------------------------------------


def test_matmul_mismatch_names_layer_and_both_shapes(prog):
    x = layers.data("x", [3])
    y = layers.data("y", [4, 5], append_batch_size=False)
    with pytest.raises(
        ShapeError,
        match=r"op 'matmul' of layer 'matmul_\d+' built at .*: X \[-1, 3\] and Y \[4, 5\] cannot multiply: X's columns \(3\) != Y's rows \(4\)",
    ) as e:
        layers.matmul(x, y)
    msg = str(e.value)
    assert "matmul_0" in msg and "test_tensor.py:" in msg
    assert "X [-1, 3]" in msg and "Y [4, 5]" in msg and "3" in msg


def test_matmul_transposed_mismatch_says_transposed(prog):
    x = layers.data("x", [3, 4], append_batch_size=False)
    y = layers.data("y", [5, 4], append_batch_size=False)
    with pytest.raises(
        ShapeError,
        match=r"X \[3, 4\] \(transposed\) and Y \[5, 4\] cannot multiply: "
        r"X's columns \(3\) != Y's rows \(5\)",
    ):
        layers.matmul(x, y, transpose_x=True)
    assert layers.matmul(x, y, transpose_y=True).shape == (3, 5)
    assert layers.matmul(layers.data("v", [4], append_batch_size=False), y, transpose_y=True).shape == (5,)


def test_matmul_batch_dims_must_broadcast(prog):
    x = layers.data("x", [2, 3, 4], append_batch_size=False)
    y = layers.data("y", [5, 4, 6], append_batch_size=False)
    with pytest.raises(ShapeError, match=r"batch dims \[2\] and \[5\] cannot broadcast"):
        layers.matmul(x, y)


def test_reshape_with_wrong_sizes(prog):
    x = layers.data("x", [2, 3, 4], append_batch_size=False)
    with pytest.raises(
        ShapeError,
        match=r"op 'reshape2' of layer 'reshape2_\d+' built at .*: cannot reshape X \[2, 3, 4\] to shape \[5, 5\]: X's elements number 24, but the shape holds 25",
    ) as e:
        layers.reshape(x, [5, 5])
    msg = str(e.value)
    assert "reshape2_0" in msg and "X [2, 3, 4]" in msg and "[5, 5]" in msg and "24" in msg and "25" in msg
    with pytest.raises(ShapeError, match=r"not a multiple of 5, so the -1 cannot be inferred"):
        layers.reshape(x, [-1, 5])
    with pytest.raises(AssertionError, match="Only one dimension value of 'shape' in reshape can be -1"):
        layers.reshape(x, [-1, -1])  # Fluid's AssertionError (tests/data/fluid_oracle); a PeError too


def test_reshape_error_at_run_time_when_batch_unknown(prog):
    x = layers.data("x", [3, 4])
    out = layers.reshape(x, [-1, 5])  # 12 * batch elements: checked when run
    assert out.shape == (-1, 5)
    with pytest.raises(OpError, match=r"cannot reshape X of shape \[2, 3, 4\] to \[-1, 5\]"):
        run(prog, {"x": np.zeros((2, 3, 4), "float32")}, [out])


def test_elementwise_mismatch_names_both_shapes(prog):
    x = layers.data("x", [3, 4])
    y = layers.data("y", [5], append_batch_size=False)
    with pytest.raises(ShapeError, match=r"elementwise_add_0.*X \[-1, 3, 4\] and Y \[5\] cannot broadcast"):
        layers.elementwise_add(x, y)


def test_concat_mismatch(prog):
    a = layers.data("a", [3, 4])
    b = layers.data("b", [3, 5])
    with pytest.raises(ShapeError, match=r"input #1 \[-1, 3, 5\] does not match input #0 \[-1, 3, 4\]"):
        layers.concat([a, b], axis=1)
    assert layers.concat([a, b], axis=2).shape == (-1, 3, 9)


def test_split_errors(prog):
    x = layers.data("x", [6, 4], append_batch_size=False)
    with pytest.raises(ShapeError, match=r"X \[6, 4\] cannot split into 3 equal parts along axis 1"):
        layers.split(x, 3, dim=1)
    with pytest.raises(ShapeError, match=r"sections=\[2, 2\] sum to 4, but X \[6, 4\] has 6 along axis 0"):
        layers.split(x, [2, 2], dim=0)
    parts = layers.split(x, [1, -1, 2], dim=0)
    assert [p.shape for p in parts] == [(1, 4), (3, 4), (2, 4)]


def test_attribute_checks(prog):
    x = layers.data("x", [3])
    with pytest.raises(PeError, match=r"alpha='a' is out of range; expected a number"):
        layers.leaky_relu(x, alpha="a")
    layers.relu6(x, threshold=-1.0)  # as Fluid 1.8.5: no range check, Out = min(max(X, 0), -1)
    with pytest.raises(PeError, match=r"approximate=2 is not one of"):
        layers.gelu(x, approximate=2)
    with pytest.raises(ShapeError, match=r"axis=2 is out of range for X \[-1, 3\]"):
        layers.softmax(x, axis=2)
    with pytest.raises(ShapeError, match=r"min=2.0 is greater than max=1.0"):
        layers.clip(x, 2.0, 1.0)
    with pytest.raises(
        PeError, match=r"one_hot needs depth \(the number of classes, > 0\) or a depth_tensor, got depth=0"
    ):
        layers.one_hot(layers.data("ids", [1], dtype="int64"), 0)
    with pytest.raises(ShapeError, match=r"axis=\[0, 0\] is not a permutation"):
        layers.transpose(x, [0, 0])
    with pytest.raises(ShapeError, match=r"dim 1 has size 3, only dims of size 1 can be squeezed"):
        layers.squeeze(x, [1])
    with pytest.raises(ShapeError, match=r"\[5:7\] along axis 1 \(size 3\) is empty"):
        layers.slice(x, axes=[1], starts=[5], ends=[7])
    layers.gather(x, layers.data("i", [1]))  # a float index builds, as in Fluid: its dtype is checked when run
    with pytest.raises(TypeError, match=r"sigmoid: x 'n' is int64; it must be one of float16, float32, float64"):
        layers.sigmoid(layers.data("n", [3], dtype="int64"))  # Fluid's layer checks the dtype first


# -- shapes and values when run -------------------------------------------------------------------


def test_shapes_inferred_with_unknown_batch(prog):
    x = layers.data("x", [3, 4])
    assert layers.reshape(x, [0, -1]).shape == (-1, 12)
    assert layers.reshape(x, [-1, 2, 2]).shape == (-1, 2, 2)
    assert layers.flatten(x, axis=2).shape == (-1, 4)
    assert layers.transpose(x, [1, 0, 2]).shape == (3, -1, 4)
    assert layers.unsqueeze(x, [1]).shape == (-1, 1, 3, 4)
    assert layers.slice(x, axes=[2], starts=[1], ends=[-1]).shape == (-1, 3, 2)
    assert layers.matmul(x, layers.data("w", [4, 5], append_batch_size=False)).shape == (-1, 3, 5)
    assert layers.reduce_sum(x).shape == (1,)
    assert layers.reduce_mean(x, dim=1, keep_dim=True).shape == (-1, 1, 4)
    assert layers.one_hot(layers.data("ids", [1], dtype="int64"), 7).shape == (-1, 7)
    assert layers.cast(x, "float64").dtype == "float64"


def test_forward_values(prog):
    x = layers.data("x", [3, 4])
    ids = layers.data("ids", [1], dtype="int64")
    w = layers.assign((np.arange(20, dtype="float64").reshape(4, 5) / 10).astype("float32"))
    a, b = layers.split(x, [1, 2], dim=1)
    outs = [
        layers.reshape(x, [0, -1], act="relu"),
        layers.matmul(x, w, alpha=2.0),
        layers.concat([b, a], axis=1),
        layers.softmax(x),
        layers.log_softmax(x, axis=1),
        layers.gather(layers.reshape(x, [-1, 12]), layers.reshape(ids, [-1])),
        layers.one_hot(ids, 4),
        layers.elementwise_sub(x, layers.fill_constant([4], "float32", 0.5)),
        layers.elementwise_mul(x, layers.reduce_max(x, dim=2), axis=0, act="tanh"),
        layers.sums([a, a, a]),
        layers.clip(x, -0.5, 0.5),
        layers.stack([a, a], axis=1),
        layers.expand(a, [1, 2, 1]),
    ]
    xv = np.random.default_rng(0).normal(size=(2, 3, 4)).astype("float32")
    idv = np.array([[1], [0]], dtype="int64")
    got = run(prog, {"x": xv, "ids": idv}, outs)
    wv = (np.arange(20).reshape(4, 5) / 10).astype("float32")
    e = np.exp(xv - xv.max(axis=-1, keepdims=True))
    e1 = np.exp(xv - xv.max(axis=1, keepdims=True))
    want = [
        np.maximum(xv.reshape(2, 12), 0),
        2 * xv @ wv,
        np.concatenate([xv[:, 1:], xv[:, :1]], axis=1),
        e / e.sum(-1, keepdims=True),
        np.log(e1 / e1.sum(1, keepdims=True)),
        xv.reshape(2, 12)[[1, 0]],
        np.eye(4, dtype="float32")[[1, 0]],
        xv - 0.5,
        np.tanh(xv * xv.max(axis=2)[:, :, None]),
        3 * xv[:, :1],
        np.clip(xv, -0.5, 0.5),
        np.stack([xv[:, :1], xv[:, :1]], axis=1),
        np.tile(xv[:, :1], (1, 2, 1)),
    ]
    for i, (g, w_) in enumerate(zip(got, want)):
        assert g.dtype == np.float32, f"output {i} is {g.dtype}"
        np.testing.assert_allclose(g, w_, rtol=1e-5, atol=1e-6, err_msg=f"output {i}")


def test_every_activation_layer_runs(prog):
    x = layers.data("x", [4])
    names = [
        "relu",
        "leaky_relu",
        "elu",
        "relu6",
        "sigmoid",
        "logsigmoid",
        "hard_sigmoid",
        "swish",
        "tanh",
        "gelu",
        "softplus",
        "softsign",
        "sqrt",
        "rsqrt",
        "reciprocal",
        "exp",
        "log",
        "square",
        "abs",
        "sign",
        "softmax",
        "log_softmax",
    ]
    outs = [getattr(layers, n)(x) for n in names]
    assert all(o.shape == (-1, 4) and o.dtype == "float32" for o in outs)
    got = run(prog, {"x": np.array([[0.5, 1.0, 2.0, 3.0]], "float32")}, outs)
    assert all(g.dtype == np.float32 and g.shape == (1, 4) and np.isfinite(g).all() for g in got)


def test_gradients_through_layers(prog):
    x = layers.data("x", [3, 4], stop_gradient=False)
    idx = layers.data("idx", [1], dtype="int64")
    h = layers.cast(x, "float64")  # gradient cast back to float32
    h = layers.transpose(layers.reshape(h, [-1, 12]), [1, 0])
    rows = layers.gather(h, layers.reshape(idx, [-1]))  # repeated rows accumulate
    parts = layers.split(layers.flatten(rows, axis=1), 2, dim=0)
    loss = layers.reduce_sum(layers.elementwise_add(parts[0], parts[1]))
    grads = fluid.gradients(loss, [x])
    assert grads[0].dtype == "float32" and grads[0].shape == (-1, 3, 4)
    xv = np.ones((2, 3, 4), "float32")
    (g,) = run(prog, {"x": xv, "idx": np.array([[3], [3], [5], [0]], "int64")}, grads)
    want = np.zeros((12, 2), "float32")
    want[3] += 2
    want[5] += 1
    want[0] += 1
    np.testing.assert_array_equal(g, want.T.reshape(2, 3, 4))


def test_assign_and_fill_constant(prog):
    a = layers.assign(np.array([[1.5, 2.5]], dtype="float32"))
    assert a.dtype == "float32" and a.shape == (1, 2)
    # Fluid 1.8 takes bool, float32, int32 and int64 arrays only
    with pytest.raises(
        TypeError, match="assign: a numpy array given to assign must be bool, float32, int32 or int64, got float64"
    ):
        layers.assign(np.array([[1.5, 2.5]]))
    ids = layers.assign(np.array([3, 4], dtype="int64"))
    c = layers.fill_constant([2, 2], "int64", 7)
    assert c.stop_gradient
    z, o = layers.zeros([2], "float32"), layers.ones([2], "float64")
    got = run(prog, {}, [a, ids, c, z, o, layers.zeros_like(a)])
    np.testing.assert_array_equal(got[0], [[1.5, 2.5]])
    np.testing.assert_array_equal(got[1], [3, 4])
    assert got[2].dtype == np.int64 and (got[2] == 7).all()
    assert got[3].dtype == np.float32 and got[4].dtype == np.float64 and (got[4] == 1).all()
    np.testing.assert_array_equal(got[5], [[0, 0]])


def test_one_hot_out_of_range_is_an_error_when_run(prog):
    ids = layers.data("ids", [1], dtype="int64")
    out = layers.one_hot(ids, 3)
    with pytest.raises(OpError, match=r"id 5 is outside \[0, 3\)"):
        run(prog, {"ids": np.array([[1], [5]], "int64")}, [out])


def test_gather_index_out_of_range_is_an_error_when_run(prog):
    x = layers.data("x", [2])
    out = layers.gather(x, layers.data("i", [1], dtype="int64", append_batch_size=False))
    with pytest.raises(OpError, match=r"index 4 is out of range for X with 3 rows"):
        run(prog, {"x": np.zeros((3, 2), "float32"), "i": np.array([4], "int64")}, [out])


# -- every op case of these modules, run in float32, gives float32 ----------------------------------


def _float32_cases():
    import dataclasses
    import importlib

    cases = []
    for module in ("cases_activation", "cases_linalg", "cases_manipulation", "cases_elementwise"):
        for case in importlib.import_module(f"tests.ops.{module}").CASES:

            def f32(v):
                return v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == np.float64 else v

            inputs = {k: [f32(a) for a in v] if isinstance(v, list) else f32(v) for k, v in case.inputs.items()}
            if case.op == "cast":
                continue  # its output dtype is an attribute
            cases.append((case, dataclasses.replace(case, inputs=inputs)))
    return cases


_F32 = _float32_cases()


@pytest.mark.parametrize("case64,case", _F32, ids=[c.id for _, c in _F32])
def test_float32_in_float32_out(case64, case):
    """Forward outputs and gradients stay float32, and the gradients match the float64 ones."""
    from op_test import analytic_grads, run_forward

    for slot, value in run_forward(case).items():
        if value is not None and value.dtype.kind == "f":  # None: an empty XShape, fetched as Fluid's
            assert value.dtype == np.float32, f"{case.id}: output {slot} is {value.dtype}"
    if case.grad:
        grads32 = analytic_grads(case)[0]
        grads64 = analytic_grads(case64)[0]
        for name, g in grads32.items():
            assert g.dtype == np.float32, f"{case.id}: gradient {name} is {g.dtype}"
            np.testing.assert_allclose(g, grads64[name], rtol=1e-3, atol=1e-4, err_msg=f"{case.id}: {name}")


def test_elementwise_explicit_axis_must_fit(prog):
    x = layers.data("x", [3, 4], append_batch_size=False)
    y = layers.data("y", [4], append_batch_size=False)
    with pytest.raises(ShapeError, match=r"X \[3, 4\] and Y \[4\] cannot broadcast \(axis=0"):
        layers.elementwise_add(x, y, axis=0)
    assert layers.elementwise_add(x, y, axis=1).shape == (3, 4)
    assert layers.elementwise_add(x, layers.data("z", [3], append_batch_size=False), axis=0).shape == (3, 4)
