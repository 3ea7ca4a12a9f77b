"""elementwise_div_grad_grad's structured kernel (shapes/elementwise.py's div_grad_grad_meta; kernels/cpu/elementwise.py;
issue 95): the outputs the op writes (its context's), each of the shape and dtype the elementwise kernels it is made of
give, "numpy" (fresh). Checked here: for Y of X's shape or broadcast along axis, DDX or DDY missing, and each subset of
its outputs, the out-kernel puts new C-contiguous arrays of the Meta's shapes and dtypes, sharing no input's memory,
with the values of Fluid's formulas."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(8)


@pytest.mark.parametrize("wanted", [None, frozenset({"DDOut"}), frozenset({"Y@GRAD", "DOut"})])
@pytest.mark.parametrize("given", [("DDX", "DDY"), ("DDX",), ("DDY",)])
@pytest.mark.parametrize("xs, ys, axis", [((3, 4), (3, 4), -1), ((2, 3, 4), (3,), 1)])
def test_out_kernel_puts_the_meta_outputs(xs, ys, axis, given, wanted):
    op = registry.get("elementwise_div_grad_grad")
    y = rng.uniform(0.5, 2, size=ys)
    ins = {"Y": y, "Out": rng.uniform(size=xs), "DX": rng.uniform(size=xs)}
    ins.update({s: rng.uniform(size=xs if s == "DDX" else ys) for s in given})
    ctx, attrs = KernelContext(outputs=wanted), {"axis": axis}
    meta = op.structured.meta(attrs, ins, ctx)
    outs = {}
    assert op.structured.cpu(ins, outs, attrs, meta, ctx) is None and outs.keys() == meta.outputs.keys()
    for slot, (shape, dtype) in meta.outputs.items():
        got = outs[slot]
        assert got.shape == tuple(shape) and got.dtype == dtype and got.flags.c_contiguous
        assert not any(np.shares_memory(got, v) for v in ins.values())
    yb = y.reshape(ys + (1,) * (len(xs) - len(ys) - (axis if axis >= 0 else 0))) if axis >= 0 else y
    ddx, ddy = ins.get("DDX", 0.0), ins.get("DDY")
    ddyb = None if ddy is None else (ddy.reshape(yb.shape) if axis >= 0 else ddy)
    t = ddx - (0.0 if ddy is None else ins["Out"] * ddyb)
    if "DDOut" in outs:
        np.testing.assert_allclose(outs["DDOut"], t / yb)
    if "DOut" in outs:
        np.testing.assert_allclose(outs["DOut"], -ins["DX"] * (0.0 if ddy is None else ddyb))
