"""Paddle 2.x's top-level functions pe builds from its ops (tensor_elementwise.py, tensor_reduce.py)
and the in-place names in static mode (tensor_inplace.py), against numpy: every case is built into
one program and run once."""

import inspect
import warnings

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.executor.scope import Scope

S = paddle.static
RNG = np.random.RandomState(11)
X = (RNG.rand(3, 4).astype("float32") - 0.5) * 4  # mixed signs
Y = RNG.randn(3, 4).astype("float32")
U = (RNG.rand(3, 4).astype("float32") - 0.5) * 1.8  # inside (-0.9, 0.9)
TIES = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 0.0]], "float32")
NANS = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 4.0]], "float32")


def _cases(x, y, u, ties, nans):
    yield "neg", paddle.neg(x), -X
    yield "deg2rad", paddle.deg2rad(x), np.deg2rad(X)
    yield "rad2deg", paddle.rad2deg(x), np.rad2deg(X)
    yield "trunc", paddle.trunc(x), np.trunc(X)
    yield "frac", paddle.frac(x), X - np.trunc(X)
    yield "sgn", paddle.sgn(x), np.sign(X)
    yield "asinh", paddle.asinh(x * 5.0), np.arcsinh(X * 5)
    yield "acosh", paddle.acosh(paddle.abs(x) + 1.0), np.arccosh(np.abs(X) + 1)
    yield "atanh", paddle.atanh(u), np.arctanh(U)
    yield "hypot", paddle.hypot(x, y), np.hypot(X, Y)
    yield "lerp", paddle.lerp(x, y, 0.25), X + 0.25 * (Y - X)
    yield "lerp_tensor", paddle.lerp(x, y, u), X + U * (Y - X)
    yield "logaddexp", paddle.logaddexp(x * 30.0, y), np.logaddexp(X * 30, Y)
    yield "isclose", paddle.isclose(x, x + 1e-6), np.isclose(X, X + np.float32(1e-6))
    yield "isclose_nan", paddle.isclose(nans, nans, equal_nan=True), np.isclose(NANS, NANS, equal_nan=True)
    yield "masked_fill", paddle.masked_fill(x, x > 0, -1.0), np.where(X > 0, -1, X)
    yield "clone", paddle.clone(x), X
    yield "amax", paddle.amax(ties, axis=1), TIES.max(1)
    yield "amin_keepdim", paddle.amin(ties, axis=[0, 1], keepdim=True), TIES.min(keepdims=True)
    yield "count_nonzero", paddle.count_nonzero(paddle.trunc(x), axis=0), np.count_nonzero(np.trunc(X), axis=0)
    yield "nansum", paddle.nansum(nans, axis=1), np.nansum(NANS, axis=1)
    yield "nanmean", paddle.nanmean(nans), np.nanmean(NANS, keepdims=True)[0]  # [1], as paddle.mean in pe


def test_functions_match_numpy_and_amax_shares_the_gradient_of_ties():
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        feeds = {
            n: S.data(n, list(a.shape), "float32")
            for n, a in (("x", X), ("y", Y), ("u", U), ("ties", TIES), ("nans", NANS))
        }
        feeds["ties"].stop_gradient = False
        feeds["x"].stop_gradient = False
        cases = list(_cases(*feeds.values()))
        total = paddle.add(paddle.sum(paddle.amax(feeds["ties"], axis=1)), paddle.sum(paddle.asinh(feeds["x"])))
        g_amax, g_asinh = S.gradients([total], [feeds["ties"], feeds["x"]])
    exe = S.Executor(paddle.CPUPlace())
    with S.scope_guard(Scope()):
        exe.run(startup)
        got = exe.run(
            main,
            feed={"x": X, "y": Y, "u": U, "ties": TIES, "nans": NANS},
            fetch_list=[c[1] for c in cases] + [g_amax, g_asinh],
        )
    for (name, _, want), have in zip(cases, got):
        assert have.shape == np.shape(want), name
        np.testing.assert_allclose(have, want, rtol=2e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(got[-2], [[0, 0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0]], rtol=1e-6)
    np.testing.assert_allclose(got[-1], 1 / np.sqrt(X.astype("float64") ** 2 + 1), rtol=1e-5)


def test_dtype_tests_and_integer_inputs():
    with S.program_guard(S.Program(), S.Program()):
        f, i = S.data("f", [2], "float32"), S.data("i", [2], "int64")
        assert paddle.is_floating_point(f) and not paddle.is_floating_point(i)
        assert paddle.is_integer(i) and not paddle.is_integer(f) and not paddle.is_complex(f)
        assert paddle.deg2rad(i).dtype == paddle.deg2rad(f).dtype
        assert paddle.count_nonzero(f).dtype == i.dtype


def test_in_place_names_build_their_out_of_place_function_with_paddles_warning():
    assert list(inspect.signature(paddle.tril_).parameters) == ["x", "diagonal", "name"]
    assert list(inspect.signature(paddle.logical_not_).parameters) == ["x", "name"]
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("x", [3, 4], "float32")
        with pytest.warns(UserWarning, match=r"abs_\(\) is the same as abs\(\)"):
            out = paddle.abs_(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cum, low = paddle.cumsum_(x, axis=1), paddle.tril_(x)
            both = paddle.logical_and_(x > 0, x < 1)
    assert out.name != x.name  # a new variable: x is not overwritten
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed={"x": X}, fetch_list=[out, cum, low, both, x])
    for have, want in zip(got, (np.abs(X), np.cumsum(X, 1), np.tril(X), (X > 0) & (X < 1), X)):
        np.testing.assert_allclose(have, want, rtol=1e-6)


def test_axis_functions_and_dtype_names():
    a = RNG.randn(2, 3, 4).astype("float32")
    v, w = np.array([1.0, 2.0, 3.0], "float32"), np.array([4.0, 5.0], "float32")
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("a", [2, 3, 4], paddle.float32)
        xv, xw = S.data("v", [3], "float32"), S.data("w", [2], "float32")
        iv = S.data("iv", [2, 2], "int64")
        assert x.dtype == paddle.float32 and paddle.int64 == "int64"
        cases = [
            (paddle.moveaxis(x, [0, 1], [2, 0]), np.moveaxis(a, [0, 1], [2, 0])),
            (paddle.diff(x, n=2, axis=1), np.diff(a, n=2, axis=1)),
            (paddle.diff(xv, prepend=xw, append=xw), np.diff(v, prepend=w, append=w)),
            (paddle.diff(xv > 1.5), np.diff(v > 1.5)),
            (paddle.vsplit(x, [1, 1])[1], np.vsplit(a, [1])[1]),
            (paddle.reverse(x, [0, 2]), a[::-1, :, ::-1]),
            (paddle.inner(x, paddle.reshape(x, [6, 4])), np.inner(a, a.reshape(6, 4))),
            (paddle.outer(xv, xw), np.outer(v, w)),
            (paddle.outer(iv, iv), np.outer([1, 2, 3, 4], [1, 2, 3, 4])),
        ]
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(
            main, feed={"a": a, "v": v, "w": w, "iv": np.array([[1, 2], [3, 4]])}, fetch_list=[c[0] for c in cases]
        )
    for i, ((_, want), have) in enumerate(zip(cases, got)):
        assert have.shape == want.shape, i
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6, err_msg=str(i))
    assert paddle.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    with pytest.raises(ValueError, match="shape mismatch: objects cannot be broadcast to a single shape"):
        paddle.broadcast_shape([2, 3], [4])
    with pytest.raises(ValueError, match="source"):
        paddle.moveaxis(x, 5, 0)


def test_nan_aware_and_quadrant_functions():
    z = np.array([[0.0, 1.0, -2.0, np.nan], [np.inf, -np.inf, 0.5, 3.0]], "float32")
    w = np.array([[-1.0, np.nan, 0.0, 2.0], [1.0, -3.0, -0.5, 0.0]], "float32")
    p = np.array([[0.2, 0.5, 0.9, 0.01]], "float32")
    main = S.Program()
    with S.program_guard(main, S.Program()):
        zv, wv, pv = S.data("z", [2, 4], "float32"), S.data("w", [2, 4], "float32"), S.data("p", [1, 4], "float32")
        finite = paddle.nan_to_num(zv, posinf=9.0)
        cases = [
            (paddle.atan2(finite, paddle.nan_to_num(wv)), np.arctan2(np.nan_to_num(z, posinf=9.0), np.nan_to_num(w))),
            (paddle.fmax(zv, wv), np.fmax(z, w)),
            (paddle.fmin(zv, wv), np.fmin(z, w)),
            (paddle.heaviside(finite, pv), np.heaviside(np.nan_to_num(z, posinf=9.0), p)),
            (finite, np.nan_to_num(z, posinf=9.0)),
            (paddle.nan_to_num(zv), np.nan_to_num(z)),
            (paddle.logit(pv), np.log(p / (1 - p))),
            (paddle.logit(pv, eps=0.1), np.log(np.clip(p, 0.1, 0.9) / (1 - np.clip(p, 0.1, 0.9)))),
        ]
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed={"z": z, "w": w, "p": p}, fetch_list=[c[0] for c in cases])
    for i, ((_, want), have) in enumerate(zip(cases, got)):
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6, err_msg=str(i))


def test_products_rotations_and_regrouping():
    a = RNG.randn(2, 3, 4).astype("float32")
    b = RNG.randn(4, 3, 5).astype("float32")
    v = np.array([1.0, 2.0], "float32")
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x, y, xv = S.data("a", [2, 3, 4], "float32"), S.data("b", [4, 3, 5], "float32"), S.data("v", [2], "float32")
        cases = (
            [
                (paddle.tensordot(x, y, [[1, 2], [1, 0]]), np.tensordot(a, b, [[1, 2], [1, 0]])),
                (paddle.tensordot(x, paddle.transpose(y, [0, 1, 2]), 1), np.tensordot(a, b, 1)),
            ]
            + [(paddle.rot90(x, k, axes=[1, 2]), np.rot90(a, k, axes=(1, 2))) for k in (1, 2, 3, -1)]
            + [
                (paddle.atleast_2d(xv), np.atleast_2d(v)),
                (paddle.atleast_3d(xv), np.atleast_3d(v)),
                (paddle.atleast_1d(xv, x)[1], a),
                (paddle.unflatten(x, 2, [2, -1]), a.reshape(2, 3, 2, 2)),
                (paddle.repeat_interleave(x, 2, axis=1), np.repeat(a, 2, axis=1)),
                (paddle.repeat_interleave(xv, 3), np.repeat(v, 3)),
                (paddle.crop(x, [1, 2, 2], [1, 1, 1]), a[1:2, 1:3, 1:3]),
            ]
        )
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed={"a": a, "b": b, "v": v}, fetch_list=[c[0] for c in cases])
    for i, ((_, want), have) in enumerate(zip(cases, got)):
        assert have.shape == want.shape, i
        np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-5, err_msg=str(i))


def test_logspace_and_triangle_indices():
    main = S.Program()
    with S.program_guard(main, S.Program()):
        cases = [
            (paddle.logspace(0, 3, 4), np.logspace(0, 3, 4)),
            (paddle.logspace(1, -1, 5, base=2.0, dtype="float64"), np.logspace(1, -1, 5, base=2.0)),
            (paddle.logspace(0, 2, 3, dtype="int64"), np.array([1, 10, 100])),
            (paddle.tril_indices(3, 4, 1), np.stack(np.tril_indices(3, 1, 4))),
            (paddle.triu_indices(3, offset=-1, dtype="int32"), np.stack(np.triu_indices(3, -1))),
            # col None: the row's (Paddle 2.6's test_tril_indices_op.py, TestTrilIndicesAPICaseDefault)
            (paddle.tril_indices(4, None, 2), np.stack(np.tril_indices(4, 2))),
        ]
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, fetch_list=[c[0] for c in cases])
    for i, ((var, want), have) in enumerate(zip(cases, got)):
        np.testing.assert_allclose(have, want, rtol=1e-6, err_msg=str(i))
    assert [g.dtype.name for g in got] == ["float32", "float64", "int64", "int64", "int32", "int64"]


@pytest.mark.parametrize("fn", [paddle.tril_indices, paddle.triu_indices])
@pytest.mark.parametrize("args", [(1.0, 1, 2), (4, -1, 2), (4, 4, 2.0)])
def test_triangle_indices_refuse_what_is_no_int_as_paddle(fn, args):
    """A row, col or offset that is no int (4.0 too) or a negative size: Paddle 2.6's TypeError (its
    test_tril_indices_op.py / test_triu_indices_op.py, TestTrilIndicesAPICaseError); pe took int(4.0)."""
    with S.program_guard(S.Program(), S.Program()), pytest.raises(TypeError, match="should be a"):
        fn(*args)


def test_dtype_limits_and_parameter_creation():
    assert paddle.finfo(paddle.float32).eps == np.finfo(np.float32).eps
    assert paddle.iinfo("int64").max == 2**63 - 1
    with pytest.raises(TypeError, match=r"paddle\.finfo: int32 is not a float dtype"):
        paddle.finfo("int32")
    with S.program_guard(S.Program(), S.Program()):
        w = paddle.create_parameter([3, 2], "float32", name="cp_w")
        assert w.persistable and list(w.shape) == [3, 2]
        with pytest.warns(UserWarning, match="neg_"):
            paddle.neg_(w)


def test_diagonals_and_broadcast_tensors():
    a = RNG.randn(3, 4, 2).astype("float32")
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x = S.data("a", [3, 4, 2], "float32")
        x.stop_gradient = False
        first = paddle.diagonal(x, offset=1)
        cases = [
            (first, np.diagonal(a, 1)),
            (paddle.diagonal(x, -1, 1, 0), np.diagonal(a, -1, 1, 0)),
            (paddle.diagonal(x, 0, 2, 1), np.diagonal(a, 0, 2, 1)),
            (paddle.diagflat(paddle.slice(x, [0, 1], [0, 0], [1, 2]), offset=1), np.diagflat(a[:1, :2], 1)),
        ]
        cases += list(
            zip(paddle.broadcast_tensors([x, paddle.slice(x, [1], [0], [1])]), np.broadcast_arrays(a, a[:, :1]))
        )
        (grad,) = S.gradients([paddle.sum(first)], [x])
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed={"a": a}, fetch_list=[c[0] for c in cases] + [grad])
    for i, ((_, want), have) in enumerate(zip(cases, got)):
        assert have.shape == want.shape, i
        np.testing.assert_allclose(have, want, rtol=1e-6, err_msg=str(i))
    want_grad = np.zeros_like(a)
    for i in range(3):
        want_grad[i, i + 1, :] = 1
    np.testing.assert_allclose(got[-1], want_grad)
