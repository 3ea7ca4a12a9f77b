"""The dense gradients of lookup_table and gather add rows by index in a numba loop
(_scatter_loops.add_rows): the bits of numpy's np.add.at, duplicates and padding_idx included; and
lookup_table's rows copied out on the device's threads (lookup_rows_parallel, its out-kernel's "rows" variant) are
numpy's w[ids]."""

import numpy as np
import pytest

from pe_cli.kernels.cpu.runtime import loops
from pe_cli.kernels.cpu import _scatter_loops
from pe_cli.ops import registry
from pe_cli.shapes import embedding as meta_rules

rng = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    """The loop itself, compiled on its first call (not np.add.at while it compiles)."""
    monkeypatch.setattr(loops, "EAGER", True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pad", [-1, 3])
def test_lookup_table_grad_adds_rows_as_add_at(dtype, pad):
    w = np.zeros((50, 8), dtype)
    ids = rng.integers(0, 50, (300, 1))  # many duplicates: the order of the adds shows in the bits
    ids[::7] = 3
    dout = rng.standard_normal((300, 8)).astype(dtype)
    grad = registry.get("lookup_table_grad").kernel("cpu")(
        {"W": w, "Ids": ids, "Out@GRAD": dout}, {"padding_idx": pad, "is_sparse": False}
    )["W@GRAD"]
    keep = ids[:, 0] != pad
    want = np.zeros_like(w)
    np.add.at(want, ids[keep, 0], dout[keep])
    np.testing.assert_array_equal(grad, want)
    assert pad < 0 or not grad[pad].any()


def _gather_grad(ins):
    """gather_grad's CPU kernel (its meta rule and out-kernel), with the op's default attributes."""
    opdef = registry.get("gather_grad")
    return opdef.kernel("cpu")(ins, opdef.default_attrs())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_gather_grad_adds_rows_as_add_at(dtype):
    x = np.zeros((20, 3, 4), dtype)
    index = rng.integers(0, 20, 64)
    dout = (rng.standard_normal((64, 3, 4)) * 10).astype(dtype)
    grad = _gather_grad({"X": x, "Index": index, "Out@GRAD": dout})["X@GRAD"]
    want = np.zeros_like(x)
    np.add.at(want, index, dout)
    np.testing.assert_array_equal(grad, want)
    assert grad.dtype == dtype


def test_no_rows_give_zeros():
    grad = _gather_grad(
        {"X": np.ones((5, 2), np.float32), "Index": np.zeros(0, np.int64), "Out@GRAD": np.zeros((0, 2), np.float32)}
    )["X@GRAD"]
    assert grad.shape == (5, 2) and not grad.any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("pad", [-1, 3])
@pytest.mark.parametrize("count", [1, 2, 5, 301])
def test_lookup_table_rows_on_the_devices_threads_are_numpys(dtype, pad, count, device_threads, monkeypatch):
    monkeypatch.setattr(meta_rules, "GATHER_PARALLEL_MIN_ROWS", 1)
    w = rng.standard_normal((40, 7)).astype(dtype)
    ids = rng.integers(0, 40, (count, 1))
    ids[::3] = 3  # duplicates, and padding_idx where it is 3
    out = registry.get("lookup_table").kernel("cpu")({"W": w, "Ids": ids}, {"padding_idx": pad})["Out"]
    want = w[ids[:, 0]]
    want[ids[:, 0] == pad] = 0
    assert out.shape == (count, 7) and out.dtype == dtype
    np.testing.assert_array_equal(out, want)


def test_a_padding_idx_beyond_the_table_is_never_read_by_the_loop(device_threads, monkeypatch):
    monkeypatch.setattr(meta_rules, "GATHER_PARALLEL_MIN_ROWS", 1)
    w = rng.standard_normal((40, 7)).astype(np.float32)
    ids = np.full((300, 1), 40)  # every id is padding_idx, one row past the table
    with pytest.raises(IndexError, match="index 40 is out of bounds for axis 0 with size 40"):
        registry.get("lookup_table").kernel("cpu")({"W": w, "Ids": ids}, {"padding_idx": 40})


@pytest.mark.parametrize("pad", [-1, 5])
@pytest.mark.parametrize("parts", [1, 2, 3, 8])
def test_lookup_loops_copy_each_row_whatever_the_blocks(parts, pad):
    """Each id's row (zeros for padding_idx, none where it is negative), serial or in blocks, and the ids' check."""
    w = rng.standard_normal((100, 16)).astype(np.float32)
    ids = rng.integers(0, 100, 7)  # fewer ids than some blocks: empty blocks copy nothing
    ids[2] = 5
    out = np.full((7, 16), np.nan, np.float32)
    if parts == 1:
        _scatter_loops.lookup_rows(w, ids, out, pad)
    else:
        _scatter_loops.lookup_rows_parallel(w, ids, out, pad, parts)
    want = w[ids]
    want[ids == pad] = 0
    np.testing.assert_array_equal(out, want)
    assert _scatter_loops.bad_id(ids, 100, pad) == -1
    for bad, at in ((100, 4), (-1, 6)):  # (past the table, negative)
        wrong = ids.copy()
        wrong[at] = bad
        assert _scatter_loops.bad_id(wrong, 100, pad) == at
    assert _scatter_loops.bad_id(np.array([3, 5]), 5, 5) == -1  # (a padding_idx may lie past the table)
