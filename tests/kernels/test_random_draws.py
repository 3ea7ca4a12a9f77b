"""uniform_random and gaussian_random of a float32 (or float16) output draw a chunk at a time into it:
the values one whole float64 draw gives, without that float64 copy (test_sgd_op.py's [10000000, 150]
float32 embedding table: 6 GB, where the float64 draw took 12 GB more)."""

import numpy as np

from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu import random as kernels


def test_a_chunked_draw_gives_the_values_of_one_draw(monkeypatch):
    monkeypatch.setattr(kernels, "_CHUNK", 7)
    attrs = {"min": -2.0, "max": 3.0, "shape": [5, 6], "dtype": "float32", "seed": 0}
    out = kernels.uniform_random({}, attrs, KernelContext(rng=np.random.default_rng(11)))["Out"]
    want = np.random.default_rng(11).uniform(-2.0, 3.0, size=(5, 6)).astype(np.float32)
    assert out.dtype == np.float32 and out.shape == (5, 6)
    np.testing.assert_array_equal(out, want)
    attrs = {"mean": 1.0, "std": 2.0, "shape": [4, 9], "dtype": "float16", "seed": 0}
    out = kernels.gaussian_random({}, attrs, KernelContext(rng=np.random.default_rng(3)))["Out"]
    np.testing.assert_array_equal(out, np.random.default_rng(3).normal(1.0, 2.0, size=(4, 9)).astype(np.float16))
