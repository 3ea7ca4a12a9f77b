"""Kernels of ops/conv_transpose.py: conv2d's kernels (kernels/cpu/nn.py) with the roles swapped.
conv2d_transpose's Output is conv2d_grad_input of a conv2d whose input is that Output, whose filter
is Filter [C_in = that conv's num_filters, C_out/groups, kh, kw] and whose output gradient is Input."""
from ...errors import PeError
from ...shapes import conv_transpose_geometry
from . import nn


class ShapeOf:
    """What conv2d_grad_input reads of its Input: the shape and dtype, no values."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype
        self.ndim = len(self.shape)


def conv_plan(x_shape, w_shape, attrs):
    """(Output's shape, the attrs of the conv2d it transposes) for this run's Input and Filter."""
    if x_shape[1] != w_shape[0]:
        raise PeError(f"conv2d_transpose: Input {list(x_shape)} has {x_shape[1]} channels but Filter "
                      f"{list(w_shape)} is for {w_shape[0]}")
    pads, dil, out_hw, error = conv_transpose_geometry(x_shape, w_shape, attrs)
    if error:
        raise PeError(f"conv2d_transpose: {error}")
    conv_attrs = {"strides": list(attrs["strides"]), "paddings": pads, "dilations": dil, "groups": attrs["groups"],
                  "padding_algorithm": "EXPLICIT", "data_format": "NCHW"}
    return (x_shape[0], w_shape[1] * attrs["groups"], *out_hw), conv_attrs


def transpose_kernels(conv2d, conv2d_grad_input, conv2d_grad_filter):
    """conv2d_transpose's three kernels from one device's conv2d kernels."""
    def forward(ins, attrs):
        x, w = ins["Input"], ins["Filter"]
        out_shape, conv_attrs = conv_plan(tuple(x.shape), tuple(w.shape), attrs)
        like = ShapeOf(out_shape, x.dtype)
        return {"Output": conv2d_grad_input({"Input": like, "Filter": w, "Output@GRAD": x}, conv_attrs)["Input@GRAD"]}

    def grad_input(ins, attrs):
        x, w = ins["Input"], ins["Filter"]
        _, conv_attrs = conv_plan(tuple(x.shape), tuple(w.shape), attrs)
        return {"Input@GRAD": conv2d({"Input": ins["Output@GRAD"], "Filter": w}, conv_attrs)["Output"]}

    def grad_filter(ins, attrs):
        x, w = ins["Input"], ins["Filter"]
        _, conv_attrs = conv_plan(tuple(x.shape), tuple(w.shape), attrs)
        dw = conv2d_grad_filter({"Input": ins["Output@GRAD"], "Filter": w, "Output@GRAD": x}, conv_attrs)
        return {"Filter@GRAD": dw["Filter@GRAD"]}
    return forward, grad_input, grad_filter


conv2d_transpose, conv2d_transpose_grad_input, conv2d_transpose_grad_filter = transpose_kernels(
    nn.conv2d, nn.conv2d_grad_input, nn.conv2d_grad_filter)
