"""Fluid 1.8's minus as a structured kernel (shapes/elementwise.py's minus_meta: elementwise_sub's rule with axis -1
on X and Y of one shape; its out-kernel elementwise_sub's; issue 95). Its op case's buffers are checked with the other
families' in test_structured_kernels.py; here: X and Y of different shapes are refused by the rule with the line
the kernel gave, and minus decides what elementwise_sub decides and puts X - Y."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry


def test_meta_refuses_x_and_y_of_different_shapes():
    meta = registry.get("minus").structured.meta
    with pytest.raises(PeError, match=r"minus takes X and Y of one shape, got X \[2, 3\] and Y \[3\]"):
        meta({}, {"X": np.ones((2, 3)), "Y": np.ones(3)}, KernelContext())


def test_minus_puts_x_minus_y_as_elementwise_sub_does():
    op, sub = registry.get("minus"), registry.get("elementwise_sub")
    x = np.random.default_rng(1).uniform(size=(300, 400)).astype("float32")
    y = np.random.default_rng(2).uniform(size=(300, 400)).astype("float32")
    meta = op.structured.meta({}, {"X": x, "Y": y}, KernelContext())
    assert meta == sub.structured.meta({"axis": -1}, {"X": x, "Y": y}, KernelContext())
    outs = {} if meta.fresh else {"Out": np.full(x.shape, np.nan, np.float32)}
    op.structured.cpu({"X": x, "Y": y}, outs, {}, meta)
    assert outs["Out"].shape == x.shape and outs["Out"].tobytes() == (x - y).tobytes()
