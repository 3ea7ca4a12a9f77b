"""top_k's numba loop (_top_k_loops.py, rows wider than 4k) against a stable sort of -x: the same
indices and values, ties lowest index first, -0.0 equal to 0.0, infinities, rows holding NaN."""

import numpy as np
import pytest

from pe_cli.ops import registry

rng = np.random.default_rng(11)


def top_k(ins, attrs):
    return registry.get("top_k").kernel("cpu")(ins, attrs)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    """The loop itself, compiled on its first call."""
    from pe_cli.kernels.cpu.runtime import loops

    monkeypatch.setattr(loops, "EAGER", True)


def _rows(dtype):
    x = rng.integers(-6, 6, (7, 3, 200)).astype(dtype)  # many ties in every row
    x[0, 0] = rng.standard_normal(200)
    x[1, 0, [5, 50, 120]] = np.inf
    x[1, 1, :] = -np.inf
    x[2, 0, :] = 0.0
    x[2, 0, 1::2] = -0.0
    x[3, 0, 17] = np.nan  # NaN: the row is sorted whole
    x[3, 1, :190] = np.nan  # fewer than k numbers
    x[5, 0, 150] = np.nan  # NaN in a block after the k best are held
    x[5, 1, 199] = 7  # the best in the last, short block of 64
    x[4, 0, ::-1] = np.arange(200)  # descending: every value enters
    x[4, 1] = np.arange(200)  # ascending: each pushes the rest down
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [2, 11, 49])
def test_loop_gives_the_stable_sorts_top_k(dtype, k):
    x = _rows(dtype)
    out = top_k({"X": x}, {"k": k})
    want = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    np.testing.assert_array_equal(out["Indices"], want)
    np.testing.assert_array_equal(out["Out"], np.take_along_axis(x, want, axis=-1))
    assert out["Indices"].dtype == np.int64


def test_integers_keep_the_partitioned_path():
    x = rng.integers(-5, 5, (6, 100))
    out = top_k({"X": x}, {"k": 3})
    np.testing.assert_array_equal(out["Indices"], np.argsort(-x, axis=-1, kind="stable")[:, :3])


def test_no_rows_gives_no_indices():
    out = top_k({"X": np.zeros((0, 3, 50), np.float32)}, {"k": 4})
    assert out["Indices"].shape == (0, 3, 4) and out["Out"].shape == (0, 3, 4)
