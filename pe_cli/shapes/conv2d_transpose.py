"""conv2d_transpose's and depthwise_conv2d_transpose's meta rules and their gradients' (structured kernels,
shapes/structured.py): conv2d's with the roles swapped (kernels/conv_transpose.py). Output is the input gradient
of the conv2d (conv_transpose_plan's attributes) whose input is that Output, whose filter is Filter and whose
output gradient is Input; Input@GRAD is that conv2d run forward on Output@GRAD; Filter@GRAD its filter gradient
with Output@GRAD as its input and Input as its output gradient. Fluid's kernel convolves the first k = C_in //
groups * groups input channels (``TransposePlan.k``: those the groups leave over take no part, their gradients
0). Once per shape signature: the outputs' shapes and dtypes (NCHW: an NHWC op's values are transposed around
its step) and, for each direction the op computes, the ConvPlan and variant of conv2d's rules
(shapes/conv2d.py). The op's variant is "transpose"."""

from typing import NamedTuple

import numpy as np

from .conv2d import plan
from .conv_plans import conv_transpose_plan
from .structured import Meta

TRANSPOSE = "transpose"


class TransposePlan(NamedTuple):
    """``k``: the input channels that take part; ``conv``, ``variant``: the ConvPlan and variant of the conv2d
    direction that gives Output (the forward) or Input@GRAD (the gradients; None where not written);
    ``filter_conv``, ``filter_variant``: Filter@GRAD's (None where not written)."""

    k: int
    conv: object
    variant: str
    filter_conv: object = None
    filter_variant: str = ""


def _used(x, w, groups):
    """(Input's shape, Filter's shape, k): of the k input channels that take part."""
    k = w[0] // groups * groups
    if k == w[0] or k == 0:
        return x, w, w[0]
    return (x[0], k) + tuple(x[2:]), (k,) + tuple(w[1:]), k


def _shapes(ins):
    return tuple(ins["Input"].shape), tuple(ins["Filter"].shape), np.dtype(ins["Input"].dtype)


def conv2d_transpose_meta(attrs, ins, facts):
    """conv2d_transpose, depthwise_conv2d_transpose: Output [N, C_out, H_out, W_out] of Input's dtype."""
    x, w, xd = _shapes(ins)
    xk, wk, k = _used(x, w, attrs["groups"])
    out_shape, conv_attrs = conv_transpose_plan(xk, wk, attrs)
    conv, variant, _ = plan(conv_attrs, out_shape, wk, (xd, np.dtype(ins["Filter"].dtype), xd))
    return Meta({"Output": (out_shape, xd)}, TRANSPOSE, args=TransposePlan(k, conv, variant))


def _grad_meta(attrs, ins, slots):
    x, w, xd = _shapes(ins)
    wd, dd = np.dtype(ins["Filter"].dtype), np.dtype(ins["Output@GRAD"].dtype)
    dout = tuple(ins["Output@GRAD"].shape)
    xk, wk, k = _used(x, w, attrs["groups"])
    _, conv_attrs = conv_transpose_plan(xk, wk, attrs)
    outputs, conv, variant, filter_conv, filter_variant = {}, None, "", None, ""
    if "Input@GRAD" in slots:  # (conv2d's Output: of Output@GRAD's dtype)
        conv, variant, _ = plan(conv_attrs, dout, wk, (dd, wd))
        outputs["Input@GRAD"] = (x, dd)
    if "Filter@GRAD" in slots:
        filter_conv, filter_variant, _ = plan(conv_attrs, dout, wk, (dd, wd, xd))
        outputs["Filter@GRAD"] = (w, wd)
    return Meta(outputs, TRANSPOSE, args=TransposePlan(k, conv, variant, filter_conv, filter_variant))


def conv2d_transpose_grad_meta(attrs, ins, facts):
    """conv2d_transpose_grad (and its depthwise twin's): the gradients the op writes (``facts.wanted``)."""
    return _grad_meta(attrs, ins, facts.wanted(("Input@GRAD", "Filter@GRAD")))


def conv2d_transpose_grad_input_meta(attrs, ins, facts):
    return _grad_meta(attrs, ins, ("Input@GRAD",))


def conv2d_transpose_grad_filter_meta(attrs, ins, facts):
    return _grad_meta(attrs, ins, ("Filter@GRAD",))
