"""The loops planned steps run for the comparisons, the logical ops and cast (kernels/cpu/_logic_loops.py) give
numpy's bits: every comparison and logical op over every dtype they take, with NaN, infinities, -0.0 and an
operand of one value; equal and not_equal of floats by Fluid 1.8's and Paddle 2.6's near rules (logic.near's), with
differences just inside and outside 1e-8 and float64 values past float32's range; cast over every pair of dtypes its launch takes (bool, integers, float32/64; a float to an
integer stays numpy's), with values at the limits of each dtype."""

import itertools

import numpy as np
import pytest

from pe_cli.kernels.cpu import logic, manipulation
from pe_cli.kernels.cpu.runtime import loops

DTYPES = sorted(logic.PLAIN, key=str)
rng = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setattr(loops, "EAGER", True)


def awkward(dtype, n=64):
    """``n`` values of ``dtype``: its limits, 0, ties between the two operands, and (floats) NaN, inf, -0.0."""
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[:4] = [info.min, info.max, 0, 1]
        return x
    x = (rng.standard_normal(n) * 1e3).astype(dtype)
    x[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).max, np.finfo(dtype).tiny, 2.5]
    return x


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_comparisons_and_logical_ops(dtype):
    x, y = awkward(dtype), awkward(dtype)
    y[8:24] = x[8:24]  # (ties)
    compare, logical = loops.lazy("_logic_loops")().compare, loops.lazy("_logic_loops")().logical
    ufuncs = [np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal]
    for (code, ufunc), (xs, ys) in itertools.product(enumerate(ufuncs), [(1, 1), (1, 0), (0, 1)]):
        a, b = (x if xs else x[:1]), (y if ys else y[:1])
        out = np.empty(64, bool)
        compare(x, xs, y, ys, code, out)
        assert np.array_equal(out, ufunc(a, b)), (ufunc, xs, ys)
    for code, ufunc in enumerate([np.logical_and, np.logical_or, np.logical_xor]):
        out = np.empty(64, bool)
        logical(x, 1, y[:1], 0, code, out)
        assert np.array_equal(out, ufunc(x, y[:1])), ufunc
    out = np.empty(64, bool)
    logical(x, 1, x, 1, 3, out)
    assert np.array_equal(out, np.logical_not(x))


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64)], ids=str)
def test_equal_of_floats_by_the_near_rules(dtype):
    x, y = awkward(dtype), awkward(dtype)
    y[8:24] = x[8:24]  # (ties)
    x[24:32] = rng.standard_normal(8) * 1e-8
    y[24:32] = x[24:32] + np.array([0.4e-8, -0.6e-8, 0.99e-8, 1.01e-8, -2e-8, 0.0, 1e-9, -1e-9], dtype)
    if dtype == np.float64:
        x[32:36], y[32:36] = [1e300, -1e300, 3.5e38, 1e39], [1e300, 1e39, 3.5e38, 1e39]  # (inf as float32)
    near = loops.lazy("_logic_loops")().near
    for paddle2, negate, (xs, ys) in itertools.product([False, True], [False, True], [(1, 1), (1, 0), (0, 1)]):
        out = np.empty(64, bool)
        near(x, xs, y, ys, paddle2, negate, out)
        want = logic.near(x if xs else x[:1], y if ys else y[:1], paddle2)
        assert np.array_equal(out, np.broadcast_to(want != negate, (64,))), (paddle2, negate, xs, ys)


@pytest.mark.parametrize("src", DTYPES, ids=str)
def test_cast_of_every_pair_its_launch_takes(src):
    x, convert = awkward(src), loops.lazy("_logic_loops")().convert
    taken = [dst for dst in DTYPES if manipulation._converted(src, dst)]
    assert len(taken) == (len(DTYPES) if src.kind != "f" else 3)  # (a float: to bool, float32, float64)
    for dst in taken:
        out = np.empty(x.size, dst)
        with np.errstate(all="ignore"):
            want = x.astype(dst)
        convert(x, out)
        assert out.tobytes() == want.tobytes(), (src, dst)
