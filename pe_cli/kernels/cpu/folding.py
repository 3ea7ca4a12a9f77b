"""fold's out-kernels (structured kernels, fresh; their meta rules: shapes/framing.py) over unfold's (kernels/cpu/image.py): fold is unfold's gradient, its gradient unfold."""

import numpy as np

from ...shapes import framing as rules
from ..structured import adapter, fresh_output
from .image import unfold, unfold_grad


def _unfold_attrs(attrs):
    p = list(attrs["paddings"])
    return {
        "kernel_sizes": attrs["kernel_sizes"],
        "strides": attrs["strides"],
        "dilations": attrs["dilations"],
        "paddings": p * 2 if len(p) == 2 else p,
    }


def fold_out(ins, outs, attrs, meta):
    x, spec = ins["X"], meta.outputs["Y"]
    y = unfold_grad({"X": np.empty(*spec), "Y@GRAD": x}, _unfold_attrs(attrs))["X@GRAD"]
    outs["Y"] = fresh_output(y, spec, ins.values())


def fold_grad_out(ins, outs, attrs, meta):
    x, dy = ins["X"], ins["Y@GRAD"]
    dx = unfold({"X": dy}, _unfold_attrs(attrs))["Y"].reshape(x.shape).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(dx, meta.outputs["X@GRAD"], ins.values())


# (the kernels by name CUDA runs on the host: kernels/cuda/folding.py's HOST_OPS)
fold = adapter(rules.fold_meta, fold_out, "fold")
fold_grad = adapter(rules.fold_grad_meta, fold_grad_out, "fold_grad")
