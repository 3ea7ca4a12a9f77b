"""scale, sum and add_position_encoding through their numba loops (_elementwise_loops.py), on one
thread and on two (the parallel twins), against the kernels' numpy expressions (``is_float`` patched
to send floats down that path; scale's numpy variant; sum's: numpy's adds left to right) and against the replicas a
first run uses: the same bits, with NaN, infinities and -0.0 among the values."""

import functools

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu import _elementwise_loops, _replicas, elementwise, position, scaling
from pe_cli.shapes.scaling import scale_meta
from pe_cli.ops import registry


rng = np.random.default_rng(17)
INT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}
DTYPE_THREADS = [
    pytest.param(np.float32, 1, id="serial-float32"),
    pytest.param(np.float64, 1, id="serial-float64"),
    pytest.param(np.float32, 2, id="parallel-float32"),
]


def awkward(shape, dtype):
    x = rng.normal(size=shape).astype(dtype)
    x.reshape(-1)[:5] = [np.nan, -0.0, 0.0, np.inf, -np.inf]
    return x


def assert_bits(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(
        np.ascontiguousarray(got).view(INT[got.dtype]), np.ascontiguousarray(want).view(INT[want.dtype])
    )


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("bias_after", [True, False])
def test_scale_is_numpys_two_roundings(dtype, device_threads, bias_after, monkeypatch):
    x = awkward((6, 7, 5), dtype)
    attrs = {"scale": 0.37, "bias": 0.3, "bias_after_scale": bias_after}  # a bias: a fused multiply-add would show
    fast = elementwise.scale({"X": x}, attrs)
    slow = {"Out": np.empty_like(x)}  # the out-kernel's numpy variant (float16's, ints') over the same values
    scaling.SCALE({"X": x}, slow, attrs, scale_meta(attrs, {"X": x}, None)._replace(variant="numpy"))
    assert_bits(fast["Out"], slow["Out"])
    before = x.copy()
    over = elementwise.scale({"X": x}, attrs, KernelContext(inplace=True))["Out"]  # enable_inplace: written over X
    assert over is x
    assert_bits(over, slow["Out"])
    assert_bits(
        elementwise.scale({"X": before[:, ::2]}, attrs)["Out"],  # a strided view
        slow["Out"][:, ::2],
    )


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("count", [3, 4, 5, 6, 7])
def test_sum_of_several_adds_in_numpys_order(dtype, device_threads, count, monkeypatch):
    xs = [awkward((9, 11), dtype) for _ in range(count)]
    xs[1].reshape(-1)[:5] = [1.0, 0.0, -0.0, -np.inf, np.inf]  # -0.0 + 0.0, inf - inf
    fast = elementwise.sum({"X": xs}, {})  # (its meta's "floats" variant: the add loops, in passes of up to four)
    slow = functools.reduce(np.add, xs)  # numpy's order: ((x0 + x1) + x2) + ...
    assert_bits(fast["Out"], slow)
    assert all(x is not fast["Out"] for x in xs)


def test_sum_of_other_shapes_and_dtypes_stays_numpys():
    x, row = rng.normal(size=(4, 5)), rng.normal(size=(5,))
    np.testing.assert_array_equal(elementwise.sum({"X": [x, x, row]}, {})["Out"], x + x + row)
    ints = [np.arange(6).reshape(2, 3)] * 3
    np.testing.assert_array_equal(elementwise.sum({"X": ints}, {})["Out"], 3 * ints[0])


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("lod", [None, [[0, 3, 7, 12]]])
def test_position_encoding_is_numpys_float64_sum(dtype, device_threads, lod):
    x = awkward((12, 16) if lod else (3, 7, 16), dtype)
    attrs, ctx = {"alpha": 0.7, "beta": 1.3}, KernelContext(lod={"X": lod} if lod else {})
    meta = registry.get("add_position_encoding").structured.meta(attrs, {"X": x}, ctx)
    fast, slow = {"Out": np.empty_like(x)}, {}
    position.ADD_POSITION_ENCODING({"X": x}, fast, attrs, meta)  # (the numba pass)
    position.ADD_POSITION_ENCODING({"X": x}, slow, attrs, meta._replace(variant="fresh", fresh=True))  # (numpy's)
    assert meta.variant == "loop"
    assert_bits(fast["Out"], slow["Out"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_replicas_give_the_loops_bits(dtype):
    x, y, z, w = (awkward((40,), dtype) for _ in range(4))
    s, b = dtype(0.37), dtype(-0.3)
    for name, args in [
        ("scale", (x, s, b, True)),
        ("scale", (x, s, b, False)),
        ("add3", (x, y, z)),
        ("add4", (w, x, y, z)),
        ("add_table_rows", (x.reshape(8, 5), s, rng.normal(size=(4, 5)))),
        ("add_table_rows", (x.reshape(8, 5), s, rng.normal(size=(8, 5)))),
    ]:
        mine, theirs = np.empty_like(args[0]), np.empty_like(args[0])
        getattr(_elementwise_loops, name)(*args, mine)
        getattr(_replicas, name)(*args, theirs)
        assert_bits(theirs, mine)
