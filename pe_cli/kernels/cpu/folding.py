"""fold's kernels over unfold's (kernels/cpu/image.py): fold is unfold's gradient, its gradient unfold."""

import numpy as np

from .image import unfold, unfold_grad


def _unfold_attrs(attrs):
    p = list(attrs["paddings"])
    return {
        "kernel_sizes": attrs["kernel_sizes"],
        "strides": attrs["strides"],
        "dilations": attrs["dilations"],
        "paddings": p * 2 if len(p) == 2 else p,
    }


def _image_shape(x, attrs):
    kh, kw = attrs["kernel_sizes"]
    return (x.shape[0], x.shape[1] // (kh * kw)) + tuple(attrs["output_sizes"])


def fold(ins, attrs):
    x = ins["X"]
    shape = _image_shape(x, attrs)
    return {"Y": unfold_grad({"X": np.empty(shape, x.dtype), "Y@GRAD": x}, _unfold_attrs(attrs))["X@GRAD"]}


def fold_grad(ins, attrs):
    x, dy = ins["X"], ins["Y@GRAD"]
    return {"X@GRAD": unfold({"X": dy}, _unfold_attrs(attrs))["Y"].reshape(x.shape).astype(x.dtype, copy=False)}
