"""The meta rules of ``scale`` (Out = scale * X + bias, or scale * (X + bias)) and of clip and clip_grad
(below: numpy's forms, fresh variants), structured kernels
(shapes/structured.py; its CPU out-kernel: kernels/cpu/scaling.py), decided once per shape signature:

- "loop": float32/float64 X: one pass of _elementwise_loops.scale (its parallel twin when large: the same
  values), ``loop_inputs`` X, ``args`` (scale, bias, bias_after_scale), the numbers of X's dtype; Out may
  be X's buffer;
- "numpy": any other dtype (float16, ints, bool, complex): two ufuncs into Out (numpy's bits, each rounded to
  X's dtype); Out may be X's buffer;
- "rows": a row-sparse X (SelectedRows): Out has its rows and its values scaled (a fresh variant, as Fluid's).

The scale is the attribute, or ScaleTensor's one value when it is given (read by the out-kernel: it is a
value, not a shape). The rule refuses nothing."""

import numpy as np

from ..base.selected_rows import SelectedRows
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_OUT_OVER_X = {"Out": "X"}


def scale_meta(attrs, ins, facts):
    """scale's Meta (the variants above)."""
    x = ins["X"]
    outputs = {"Out": (tuple(x.shape), x.dtype)}
    if isinstance(x, SelectedRows):
        return Meta(outputs, "rows", fresh=True)
    if x.dtype in _FLOATS:
        args = (x.dtype.type(attrs["scale"]), x.dtype.type(attrs["bias"]), bool(attrs["bias_after_scale"]))
        return Meta(outputs, "loop", "scale", ("X",), inplace=_OUT_OVER_X, args=args)
    return Meta(outputs, "numpy", inplace=_OUT_OVER_X)


def clip_meta(attrs, ins, facts):
    """clip's Meta: "numpy", np.clip between X's dtype's min and max (a fresh variant: numpy's array)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "numpy", fresh=True)


def clip_grad_meta(attrs, ins, facts):
    """clip_grad's Meta: "numpy", Out@GRAD where min < X < max, else 0 (of Out@GRAD's dtype; a fresh variant)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    try:
        shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(dout.shape)))
    except ValueError:  # (numpy refuses them when the values are computed, in the same words)
        shape = tuple(dout.shape)
    return Meta({"X@GRAD": (shape, dout.dtype)}, "numpy", fresh=True)
