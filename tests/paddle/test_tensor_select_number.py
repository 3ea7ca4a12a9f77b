"""Paddle 2.6's tensor functions that Paddle 2.6's own unit tests use and seed 002's index lacks
(tensor_select.py, tensor_number.py, tensor_bitwise.py, searchsorted/bucketize, renorm,
randint_like, Paddle's tensordot rule): fetched values against numpy, float64 gradients against
finite differences, and the argument errors Paddle raises."""

import itertools

import numpy as np
import pytest

from pe_cli import paddle
from tests.paddle.test_index import _grads, _numeric
from tests.paddle.test_tensor import run

R = np.random.RandomState(11)
X = R.uniform(-2, 2, (3, 4))
INTS = np.array([0, -4, 6, 9, 12, 25], "int32")
SEQ = np.array([1.0, 3.0, 5.0, 7.0, 9.0])
VALS = np.array([[3.0, 6.0, 9.0], [3.0, 6.0, 0.5]])
ROWS = np.array([[0, 1], [0, 1], [1, 1], [0, 1], [0, 1]], "float32")


def _renorm_ref(x, p, axis, max_norm):
    others = tuple(d for d in range(x.ndim) if d != axis)
    norm = (np.abs(x) ** p).sum(others, keepdims=True) ** (1.0 / p)
    return x * np.where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)


def _put(x, index, value, accumulate=False):
    x = x.copy()
    if accumulate:
        np.add.at(x, index, value)
    else:
        x[index] = value
    return x


def _unique_consecutive_ref(x):
    keep = np.concatenate([[True], x[1:] != x[:-1]])
    starts = np.flatnonzero(keep)
    return x[keep], np.cumsum(keep) - 1, np.diff(np.append(starts, len(x)))


VALUES = [
    ("gcd", lambda x: paddle.gcd(x, paddle.full([1], 6, "int32")), (INTS,), np.gcd(INTS, 6)),
    ("lcm", lambda x: paddle.lcm(x, paddle.full([1], 6, "int32")), (INTS,), np.lcm(INTS, 6)),
    ("ldexp", lambda x, y: paddle.ldexp(x, y), (X[0], np.array([1, 2, -1, 0], "int32")), np.ldexp(X[0], [1, 2, -1, 0])),
    (
        "frexp",
        lambda x: list(paddle.frexp(x)),
        (np.array([0.0, 1.5, -3.0, 7.0, 0.1]),),
        [np.frexp([0.0, 1.5, -3.0, 7.0, 0.1])[0], np.frexp([0.0, 1.5, -3.0, 7.0, 0.1])[1].astype("float64")],
    ),
    (
        "searchsorted",
        lambda s, v: [paddle.searchsorted(s, v), paddle.searchsorted(s, v, right=True)],
        (SEQ, VALS),
        [np.searchsorted(SEQ, VALS), np.searchsorted(SEQ, VALS, side="right")],
    ),
    (
        "searchsorted_rows",
        lambda s, v: paddle.searchsorted(s, v, out_int32=True),
        (np.sort(X, 1), X[:, :2]),
        np.stack([np.searchsorted(np.sort(X, 1)[i], X[i, :2]) for i in range(3)]).astype("int32"),
    ),
    ("bucketize", lambda v, s: paddle.bucketize(v, s), (VALS, SEQ), np.searchsorted(SEQ, VALS)),
    (
        "take_wrap",
        lambda x, i: paddle.take(x, i, mode="wrap"),
        (X, np.array([[-13, 5], [14, 0]])),
        X.reshape(-1)[np.array([[-13, 5], [14, 0]]) % 12],
    ),
    ("take_clip", lambda x, i: paddle.take(x, i, mode="clip"), (X, np.array([-3, 5, 40])), X.reshape(-1)[[0, 5, 11]]),
    (
        "index_fill",
        lambda x, i: paddle.index_fill(x, i, 1, -1.5),
        (X, np.array([3, 0])),
        np.where(np.isin(np.arange(4), [3, 0]), -1.5, X),
    ),
    ("select_scatter", lambda x, v: paddle.select_scatter(x, v, 0, -1), (X, X[0] * 10), np.vstack([X[:2], X[:1] * 10])),
    (
        "index_put",
        lambda x, i, j, v: paddle.index_put(x, (i, j), v),
        (X, np.array([[2], [0]]), np.array([1, 3]), X[0, :2]),
        _put(X, (np.array([[2], [0]]), np.array([1, 3])), X[0, :2]),
    ),
    (
        "index_put_accumulate",
        lambda x, i, v: paddle.index_put(x, (i,), v, True),
        (X, np.array([1, 1, 2]), X[0]),
        _put(X, (np.array([1, 1, 2]),), X[0], True),
    ),
    (
        "index_put_mask",
        lambda x, m, v: paddle.index_put(x, (m,), v),
        (X, X > 0.5, np.array([-7.0])),
        np.where(X > 0.5, -7.0, X),
    ),
    (
        "index_put_bool",
        lambda x, i, v: paddle.index_put(x, (i,), v),
        (X > 0, np.array([0, 2]), np.array([True])),
        _put(X > 0, (np.array([0, 2]),), True),
    ),
    (
        "index_fill_bool",
        lambda x, i: paddle.index_fill(x, i, 1, True),
        (X > 0, np.array([2])),
        np.where(np.arange(4) == 2, True, X > 0),
    ),
    ("combinations", lambda x: paddle.combinations(x, 3), (X[0],), np.array(list(itertools.combinations(X[0], 3)))),
    (
        "combinations_repl",
        lambda x: paddle.combinations(x, 2, with_replacement=True),
        (X[0],),
        np.array(list(itertools.combinations_with_replacement(X[0], 2))),
    ),
    ("vander", lambda x: paddle.vander(x, 5), (X[0],), np.vander(X[0], 5)),
    ("vander_inc", lambda x: paddle.vander(x, increasing=True), (INTS[:4],), np.vander(INTS[:4], increasing=True)),
    ("renorm", lambda x: paddle.renorm(x, 1.0, 1, 2.05), (X,), _renorm_ref(X, 1.0, 1, 2.05)),
    (
        "unique_consecutive",
        lambda x: list(paddle.unique_consecutive(x, True, True)),
        (np.array([1, 1, 2, 2, 3, 1, 1, 2]),),
        list(_unique_consecutive_ref(np.array([1, 1, 2, 2, 3, 1, 1, 2]))),
    ),
    (
        "unique_consecutive_axis",
        lambda x: list(paddle.unique_consecutive(x, True, True, axis=0)),
        (ROWS,),
        [ROWS[[0, 2, 3]], np.array([0, 0, 1, 2, 2]), np.array([2, 1, 2])],
    ),
    (
        "bitwise",
        lambda x, y: [
            paddle.bitwise_and(x, y),
            paddle.bitwise_or(x, y),
            paddle.bitwise_xor(x, y),
            paddle.bitwise_not(x),
        ],
        (INTS, INTS[::-1].copy()),
        [INTS & INTS[::-1], INTS | INTS[::-1], INTS ^ INTS[::-1], ~INTS],
    ),
    ("mod_int", lambda x: paddle.mod(x, paddle.full([1], -5, "int32")), (INTS,), INTS % -5),
    ("clip_int", lambda x: paddle.clip(x, 0, 10), (INTS,), np.clip(INTS, 0, 10)),
    (
        "tensordot_padded_axes",
        lambda x, y: paddle.tensordot(x, y, [[1, 0], [1]]),
        (X, X + 1),
        np.tensordot(X, X + 1, [[1, 0], [1, 0]]).reshape([]),
    ),
    (
        "tensordot_size_1",
        lambda x, y: paddle.tensordot(x, y, [[1], [0]]),
        (X[:, :1].copy(), X.T.copy()),
        X[:, :1] @ X.T.sum(0, keepdims=True),
    ),
    ("amax_exact", lambda x: paddle.amax(x), (np.array([[0.2, 0.9, 0.9], [0.9, 0.9, 0.2]]),), np.array([0.9])),
    ("reshape_0d", lambda x: paddle.reshape(x, []), (np.array([[4.0]]),), np.array(4.0)),
]


@pytest.mark.parametrize("name,build,ins,want", VALUES, ids=[v[0] for v in VALUES])
def test_values_match_numpy(name, build, ins, want):
    got = run(build, *ins)
    for g, w in zip(got, want if isinstance(want, list) else [want]):
        assert np.shape(g) == np.shape(w), (name, np.shape(g), np.shape(w))
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0 if name == "amax_exact" else 1e-12, err_msg=name)


GRADS = [
    ("renorm", lambda x: paddle.renorm(x, 2.0, 0, 1.5), lambda x: _renorm_ref(x, 2.0, 0, 1.5).sum()),
    (
        "take",
        lambda x: paddle.square(paddle.take(x, paddle.assign(np.array([[1, -1], [1, 4]])))),
        lambda x: (x.reshape(-1)[[1, -1, 1, 4]] ** 2).sum(),
    ),
    (
        "index_fill",
        lambda x: paddle.square(paddle.index_fill(x, paddle.assign(np.array([1])), 0, 2.0)),
        lambda x: (np.where(np.arange(3)[:, None] == 1, 2.0, x) ** 2).sum(),
    ),
    (
        "index_put",
        lambda x: paddle.square(
            paddle.index_put(x, (paddle.assign(np.array([2, 0])),), paddle.scale(paddle.slice(x, [0], [1], [2]), 3.0))
        ),
        lambda x: (_put(x, (np.array([2, 0]),), 3 * x[1:2]) ** 2).sum(),
    ),
    (
        "select_scatter",
        lambda x: paddle.square(
            paddle.select_scatter(x, paddle.scale(paddle.slice(x, [0], [0], [1]).reshape([4]), 3.0), 0, 2)
        ),
        lambda x: (np.vstack([x[:2], 3 * x[:1]]) ** 2).sum(),
    ),
    (
        "amax",
        lambda x: paddle.multiply(paddle.amax(x, axis=1), paddle.full([1], 2.0, "float64")),
        lambda x: 2 * x.max(1).sum(),
    ),
    (
        "ldexp",
        lambda x: paddle.ldexp(x, paddle.assign(np.array([1, 2, 0, -1], "int32"))),
        lambda x: np.ldexp(x, [1, 2, 0, -1]).sum(),
    ),
    (
        "tensordot",
        lambda x: paddle.tensordot(x, paddle.square(x), [[1, 0], [1]]),
        lambda x: np.tensordot(x, x**2, [[1, 0], [1, 0]]).sum(),
    ),
]


@pytest.mark.parametrize("name,build,ref", GRADS, ids=[g[0] for g in GRADS])
def test_gradient_matches_finite_differences(name, build, ref):
    x = X.copy()
    (got,) = _grads(build, x)
    np.testing.assert_allclose(got, _numeric(ref, x), rtol=1e-5, atol=1e-6, err_msg=name)


def _data(name, shape, dtype):
    return paddle.static.data(name, shape, dtype)


@pytest.mark.parametrize(
    "call,error, message",
    [
        (
            lambda: paddle.gcd(_data("f", [3], "float32"), _data("g", [3], "float32")),
            TypeError,
            "gcd: x 'f' is float32; it must be one of int32, int64",
        ),
        (
            lambda: paddle.ldexp(np.ones(3), _data("i", [3], "int32")),
            TypeError,
            r"x must be tensor type, but got <class 'numpy\.ndarray'>",
        ),
        (
            lambda: paddle.frexp(_data("i", [3], "int32")),
            TypeError,
            r"The data type of input must be one of \['float32', 'float64'\], but got int32",
        ),
        (
            lambda: paddle.bucketize(_data("x", [2, 5], "float64"), _data("s", [2, 2], "float64")),
            ValueError,
            "sorted_sequence tensor must be 1 dimension, but got dim 2",
        ),
        (
            lambda: paddle.take(_data("x", [3], "float64"), np.array([1])),
            TypeError,
            r"The type of 'index' must be Tensor, but got <class 'numpy\.ndarray'>",
        ),
        (
            lambda: paddle.take(_data("x", [3], "float64"), _data("i", [2], "float32")),
            TypeError,
            "take: index 'i' is float32; it must be one of int32, int64",
        ),
        (
            lambda: paddle.take(_data("x", [3], "float64"), _data("i", [2], "int64"), mode="nearest"),
            ValueError,
            r"'mode' in 'take' should be 'raise', 'wrap', 'clip', but received nearest\.",
        ),
        (
            lambda: paddle.index_fill(_data("x", [3], "float64"), np.array([1]), 0, 1.0),
            ValueError,
            "index must be Tensor",
        ),
        (
            lambda: paddle.index_fill(_data("x", [3], "float64"), _data("i", [1], "int64"), 1, 1.0),
            ValueError,
            r"The axis should be int, and in range \[-rank\(x\), rank\(x\)\)",
        ),
        (
            lambda: paddle.combinations(_data("x", [2, 2], "float64")),
            TypeError,
            r"Expect a 1-D vector, but got x shape \[2, 2\]",
        ),
        (
            lambda: paddle.combinations(_data("x", [3], "float64"), -1),
            ValueError,
            "Expect a non-negative int, but got r=-1",
        ),
        (lambda: paddle.vander(1), TypeError, "vander: x must be Variable, got int"),
        (
            lambda: paddle.vander(_data("x", [3, 2], "int32")),
            ValueError,
            r"The input of x is expected to be a 1-D Tensor\.But now the dims of Input\(X\) is 2\.",
        ),
        (lambda: paddle.vander(_data("x", [3], "int32"), n=-1), ValueError, r"N must be non-negative\."),
        (
            lambda: paddle.renorm(_data("x", [3, 2], "float64"), 2.0, 2, 1.0),
            ValueError,
            r"the axis:2 should be less then the shape's size 2:\[3, 2\]",
        ),
        (
            lambda: paddle.randint_like(_data("x", [3], "int32"), low=5, high=5),
            ValueError,
            "randint_like's low must less then high, but received low = 5, high = 5",
        ),
        (
            lambda: paddle.randint_like(_data("x", [3], "int32"), low=-5),
            ValueError,
            r"If high is None, low must be greater than 0, but received low = -5\.",
        ),
        (
            lambda: paddle.bitwise_and(_data("x", [3], "float32"), _data("y", [3], "float32")),
            TypeError,
            "bitwise_and: x 'x' is float32; it must be one of bool, uint8, int8, int16, int32, int64",
        ),
        (
            lambda: paddle.index_select(_data("x", [3, 4], "float64"), _data("i", [2, 2], "int64")),
            ValueError,
            r"paddle\.index_select: index \[2, 2\] must be a 1-D Tensor \(or \[N, 1\]\)",
        ),
        (
            lambda: paddle.count_nonzero(_data("x", [3, 4], "int32"), axis=10),
            ValueError,
            r"op 'reduce_sum' of layer 'reduce_sum_\d+' built at .*: dim 10 is out of range for X \[3, 4\]",
        ),
        (
            lambda: paddle.nanmean(_data("x", [3, 4], "int32")),
            TypeError,
            "nanmean: x/input 'x' is int32; it must be one of float16, float32, float64",
        ),
        (
            lambda: paddle.rot90(_data("x", [3], "float32"), axes=[0, 1]),
            ValueError,
            r"paddle\.rot90: x has 1 dims; it needs at least 2",
        ),
        (
            lambda: paddle.inner(_data("x", [3], "int8"), _data("y", [3], "int8")),
            TypeError,
            "inner: x 'x' is int8; it must be one of float16, float32, float64",
        ),
        (
            lambda: paddle.outer(_data("x", [3], "int8"), _data("y", [3], "int8")),
            TypeError,
            "outer: x 'x' is int8; it must be one of float16, float32, float64, int32, int64",
        ),
        (
            lambda: paddle.frac(_data("x", [3], "bool")),
            TypeError,
            r"The data type of input must be one of \['int32', 'int64', 'float32', 'float64'\], but got bool",
        ),
        (
            lambda: paddle.where(_data("c", [3], "bool"), _data("x", [3], "bool"), _data("y", [3], "bool")),
            TypeError,
            "where: x 'x' is bool; it must be one of float16, uint16, float32, float64, int32, int64",
        ),
        (lambda: paddle.diagflat([1, 2]), TypeError, "diagflat: x must be Variable, got list"),
    ],
)
def test_bad_arguments_raise_paddles_errors(call, error, message):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(error, match=message):
            call()


def test_randint_like_draws_in_range_with_xs_shape_and_dtype():
    (drawn,) = run(lambda x: paddle.randint_like(x, 3, 7), np.zeros((40, 5), "float32"))
    assert drawn.shape == (40, 5) and drawn.dtype == np.float32
    assert set(np.unique(drawn)) == {3.0, 4.0, 5.0, 6.0}
