"""Op cases for family cumulative: cumprod, cummax, cummin, logcumsumexp. References are written here
with plain loops over each line (numpy's cumprod; the running extreme with Paddle's rule for equal values
and NaN; logcumsumexp as log(cumsum(exp)) in float64)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(761)


def _along(x, axis, fn):
    """fn applied to each 1-D line of x along ``axis`` (fn returns one array, or a tuple of them)."""
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    results = [fn(line) for line in flat]
    many = isinstance(results[0], tuple)
    parts = list(zip(*results)) if many else [results]
    outs = [np.moveaxis(np.array(p).reshape(moved.shape), -1, axis) for p in parts]
    return outs if many else outs[0]


def _running(greater):
    def line(v):
        out, idx, best, at = [], [], v[0], 0
        for i, e in enumerate(v):
            if np.isnan(e) or (not np.isnan(best) and (e >= best if greater else e <= best)):
                best, at = e, i
            out.append(best)
            idx.append(at)
        return np.array(out), np.array(idx)

    return line


def _extreme_ref(greater, axis, index_dtype=np.int64):
    def ref(i, a):
        out, idx = _along(i["x"], axis, _running(greater))
        return {"out": out.astype(i["x"].dtype), "indices": idx.astype(index_dtype)}

    return ref


def _lcse(x, axis, reverse=False, exclusive=False):
    def line(v):
        v = v[::-1] if reverse else v
        with np.errstate(divide="ignore"):
            s = np.log(np.cumsum(np.exp(v)))
        if exclusive:
            s = np.concatenate([[np.finfo(v.dtype).min], s[:-1]])
        return s[::-1] if reverse else s

    return _along(x, axis, line)


_DISTINCT = rng.permutation(24).reshape(2, 3, 4) / 6.0 - 2.0  # no ties: the gradient has one home
_TIES = np.array([[1.0, 3.0, 2.0, 3.0, np.nan, 0.5, np.nan, 9.0], [-1.0, -1.0, 4.0, -2.0, 0.0, 4.0, -2.0, 1.0]])
_WITH_ZEROS = np.array(
    [[1.5, -0.5, 0.0, 2.0, 0.0, 1.2], [0.0, 1.1, 0.9, -1.3, 0.7, 2.0], [0.8, 1.3, -0.6, 1.1, 0.9, 1.4]]
)

CASES = [
    OpCase(
        "cumprod",
        {"X": rng.uniform(0.5, 1.5, (2, 3, 4))},
        lambda i, a: {"Out": np.cumprod(i["X"], axis=1)},
        attrs={"dim": 1},
        grad=("X",),
    ),
    OpCase(
        "cumprod",
        {"X": _WITH_ZEROS},
        lambda i, a: {"Out": np.cumprod(i["X"], axis=-1)},
        attrs={"dim": -1},
        grad=("X",),
        name="cumprod_with_zeros",
    ),
    OpCase(
        "cumprod",
        {"X": np.array([[3, 1], [2, 5]], np.int64)},
        lambda i, a: {"Out": np.array([[3, 1], [6, 5]])},
        attrs={"dim": 0},
        name="cumprod_int64",
    ),
    OpCase("cummax", {"x": _DISTINCT}, _extreme_ref(True, 2), attrs={"axis": -1}, grad=("x",)),
    OpCase("cummin", {"x": _DISTINCT}, _extreme_ref(False, 1, np.int32), attrs={"axis": 1, "dtype": 2}, grad=("x",)),
    OpCase("cummax", {"x": _TIES}, _extreme_ref(True, 1), attrs={"axis": 1}, name="cummax_ties_and_nan"),
    OpCase("cummin", {"x": _TIES}, _extreme_ref(False, 1), attrs={"axis": 1}, name="cummin_ties_and_nan"),
    OpCase(
        "cummax",
        {"x": np.array([[3, 1], [2, 5]], np.int64)},
        _extreme_ref(True, 0),
        attrs={"axis": 0},
        name="cummax_int64",
    ),
    OpCase(
        "logcumsumexp",
        {"X": rng.normal(size=(2, 3, 4)) * 3},
        lambda i, a: {"Out": _lcse(i["X"], 1)},
        attrs={"axis": 1},
        grad=("X",),
    ),
    OpCase(
        "logcumsumexp",
        {"X": rng.normal(size=(3, 4))},
        lambda i, a: {"Out": _lcse(i["X"].reshape(-1), 0)},
        attrs={"flatten": True},
        grad=("X",),
        name="logcumsumexp_flatten",
    ),
    OpCase(
        "logcumsumexp",
        {"X": rng.normal(size=(2, 5))},
        lambda i, a: {"Out": _lcse(i["X"], 1, reverse=True)},
        attrs={"reverse": True},
        grad=("X",),
        name="logcumsumexp_reverse",
    ),
    OpCase(
        "logcumsumexp",
        {"X": rng.normal(size=(2, 5))},
        lambda i, a: {"Out": _lcse(i["X"], 1, reverse=True, exclusive=True)},
        attrs={"reverse": True, "exclusive": True},
        name="logcumsumexp_reverse_exclusive",
    ),
    OpCase(
        "logcumsumexp",
        {"X": np.array([[-np.inf, -np.inf, 1.0, np.inf, 2.0], [800.0, 801.0, -5.0, 0.0, 1.0]])},
        lambda i, a: {
            "Out": np.array(
                [
                    [np.finfo(np.float64).min] * 2 + [1.0, np.inf, np.inf],
                    [
                        800.0,
                        801.0 + np.log1p(np.exp(-1.0)),
                        801.0 + np.log1p(np.exp(-1.0)),
                        801.0 + np.log1p(np.exp(-1.0)),
                        801.0 + np.log1p(np.exp(-1.0)),
                    ],
                ]
            )
        },
        name="logcumsumexp_infinities_and_no_overflow",
    ),
]
