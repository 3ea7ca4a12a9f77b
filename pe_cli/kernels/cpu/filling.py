"""Kernels of pe_cli/ops/filling.py (numpy). fill_any, fill_any_grad, empty, full_int_array, tril_indices and
triu_indices are structured kernels' out-kernels (their meta rules: shapes/filling.py) computing into the buffers
they are handed; the kernels by name the CUDA kernels run on the host are the same two (kernels/structured.adapter).
logspace's, whose length is Num's value, a fresh variant."""

import numpy as np

from ...shapes import filling as rules
from ..structured import adapter


def fill_any_out(ins, outs, attrs, meta):
    """Out = value (a float32 for a float Out), cast as numpy's full casts it."""
    out = outs["Out"]
    np.copyto(out, np.float32(attrs["value"]) if out.dtype.kind == "f" else attrs["value"], casting="unsafe")


def fill_any_grad_out(ins, outs, attrs, meta):
    outs["X@GRAD"].fill(0)


def empty_out(ins, outs, attrs, meta):
    outs["Out"].fill(0)  # (Paddle leaves the memory as it was; pe gives zeros)


def full_int_array_out(ins, outs, attrs, meta):
    out = outs["out"]
    np.copyto(out, np.array(attrs["value"], dtype=out.dtype))


def triangle_out(ins, outs, attrs, meta):
    """out = [rows, cols] of the positions of the triangle kept, row by row."""
    rows, cols, offset = meta.args
    r, c = np.indices((rows, cols))
    keep = (c - r >= offset) if meta.variant == "upper" else (c - r <= offset)
    out = outs["out"]
    out[0] = r[keep]
    out[1] = c[keep]


fill_any = adapter(rules.like_meta, fill_any_out, "fill_any")
fill_any_grad = adapter(rules.like_meta, fill_any_grad_out, "fill_any_grad")
empty = adapter(rules.empty_meta, empty_out, "empty")
full_int_array = adapter(rules.full_int_array_meta, full_int_array_out, "full_int_array")
tril_indices = adapter(rules.TRIL_INDICES, triangle_out, "tril_indices")
triu_indices = adapter(rules.TRIU_INDICES, triangle_out, "triu_indices")


def logspace_out(ins, outs, attrs, meta):
    """Paddle 2.6's LogspaceKernel: step = (stop - start) / (num - 1), the first num / 2 values from start,
    the others back from stop, each base ** t."""
    dtype = meta.outputs["Out"][1]
    start, stop, base = (float(np.asarray(ins[s]).astype(dtype).reshape(-1)[0]) for s in ("Start", "Stop", "Base"))
    num = int(np.asarray(ins["Num"]).reshape(-1)[0])
    if num <= 1:
        outs["Out"] = np.array([base**start] if num == 1 else [], dtype=dtype)
        return
    step = (stop - start) / (num - 1)
    i = np.arange(num)
    t = np.where(i < num // 2, start + step * i, stop - step * (num - i - 1))
    outs["Out"] = np.power(base, t).astype(dtype)  # (a fresh variant: its length is Num's value)


logspace = adapter(rules.logspace_meta, logspace_out, "logspace")
