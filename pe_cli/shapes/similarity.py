"""The meta rules of cos_sim, squared_l2_distance, dist and their gradients, structured kernels
(shapes/structured.py; their CPU out-kernels: kernels/cpu/similarity.py). cos_sim and squared_l2_distance work on
rows (each input as [its first dim, the rest]); their outputs and dist's gradients are numpy forms, ``fresh``
variants. dist's Out is written into its buffer: 0-D where the op's facts say ``zero_dim`` (a Paddle 2.x
program's), else [1]; its variant is p's form ("count" for p = 0, "max" / "min" for +-inf, "pnorm"). dist_grad's
variant is its form at p, and for another p the program's meaning, from the op's facts (``paddle2``, the
``paddle2_semantics`` trait): "paddle2" (Paddle 2.6's p_norm_grad: 0 at a zero distance) or "fluid" (Fluid
1.8's: NaN there). squared_l2_distance refuses Y of other rows or width in one line, as its kernel did."""

import numpy as np

from ..base.dims import numel
from ..base.errors import PeError
from .loss_classification import _broadcast
from .reduction import scalar_shape
from .structured import Meta


def _rows(shape):
    """``shape`` as rows, [shape[0], the rest], or None where numpy's reshape of it would fail (0-D, 0 rows: the
    out-kernel raises numpy's error as the values are read)."""
    if not shape or not shape[0]:
        return None
    return (shape[0], numel(shape) // shape[0])


def _float(dtype):
    """The dtype of a square root of sums of ``dtype``'s products (an int's: float64)."""
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def cos_sim_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    rx, ry = _rows(tuple(x.shape)), _rows(tuple(y.shape))
    if rx is None or ry is None:
        return Meta({"Out": ((), x.dtype), "XNorm": ((), x.dtype), "YNorm": ((), y.dtype)}, "rows", fresh=True)
    outputs = {
        "Out": (_broadcast((rx[0], 1), (ry[0], 1)), x.dtype),
        "XNorm": ((rx[0], 1), _float(x.dtype)),
        "YNorm": ((ry[0], 1), _float(y.dtype)),
    }
    return Meta(outputs, "rows", fresh=True)


def cos_sim_grad_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype), "Y@GRAD": (tuple(y.shape), y.dtype)}, "rows", fresh=True)


def squared_l2_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    rx, ry = _rows(tuple(x.shape)), _rows(tuple(y.shape))
    if rx is None or ry is None:
        return Meta({"sub_result": ((), x.dtype), "Out": ((), x.dtype)}, "rows", fresh=True)
    if rx[1] != ry[1] or ry[0] not in (1, rx[0]):
        raise PeError(
            f"squared_l2_distance: Y {list(y.shape)} must have the rows of X {list(x.shape)} (or one row) of X's size"
        )
    return Meta({"sub_result": (rx, x.dtype), "Out": ((rx[0], 1), x.dtype)}, "rows", fresh=True)


def squared_l2_grad_meta(attrs, ins, facts):
    dtype = ins["sub_result"].dtype
    return Meta(
        {"X@GRAD": (tuple(ins["X"].shape), dtype), "Y@GRAD": (tuple(ins["Y"].shape), dtype)}, "rows", fresh=True
    )


def _p_form(p):
    return "count" if p == 0 else "max" if p == np.inf else "min" if p == -np.inf else None


def dist_meta(attrs, ins, facts):
    x = ins["X"]
    return Meta({"Out": (scalar_shape(facts.zero_dim), x.dtype)}, _p_form(attrs["p"]) or "pnorm")


def dist_grad_meta(attrs, ins, facts):
    x, y, p = ins["X"], ins["Y"], attrs["p"]
    form = _p_form(p)
    variant = "zero" if form == "count" else "extreme" if form else "paddle2" if facts.paddle2 else "fluid"
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype), "Y@GRAD": (tuple(y.shape), y.dtype)}, variant, fresh=True)
