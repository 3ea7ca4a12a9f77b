"""CPU out-kernels of ops/linalg_fused.py (structured kernels; meta rules: shapes/linalg_fused.py), computing what
Fluid 1.8's jit kernels do by numpy's GEMMs: "out" writes each product, sum and square through its out= into the
buffers handed (the numbers of the numpy forms, to the bit), "fresh" hands over the numpy form's arrays."""

import numpy as np

from ...shapes import linalg_fused as meta_rules
from ..structured import adapter, fresh_output, fresh_outputs
from .launches import by_variant


def _repeated_fc_relu(ins, outs, attrs, meta):
    h = ins["X"]
    layers = outs["ReluOut"] + [outs["Out"]]
    for w, b, out in zip(ins["W"], ins["Bias"], layers):
        np.matmul(h, w, out=out)
        np.add(out, np.reshape(b, -1), out=out)
        np.maximum(out, 0, out=out)
        h = out


def _repeated_fc_relu_fresh(ins, outs, attrs, meta):
    h, relus = np.asarray(ins["X"]), []
    for w, b in zip(ins["W"], ins["Bias"]):
        h = np.maximum(h @ w + np.reshape(b, -1), 0).astype(h.dtype, copy=False)
        relus.append(h)
    inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
    outs["ReluOut"] = [fresh_output(r, s, inputs) for r, s in zip(relus[:-1], meta.outputs["ReluOut"])]
    outs["Out"] = fresh_output(relus[-1], meta.outputs["Out"], inputs)


def _scalar(x, attrs):
    return x.dtype.type(np.float32(attrs["scalar"]))  # Fluid's float attribute, in X's type


def _squared_mat_sub(ins, outs, attrs, meta):
    x, y, sxy, out = ins["X"], ins["Y"], outs["SquaredXY"], outs["Out"]
    np.matmul(x, y, out=sxy)
    np.square(sxy, out=sxy)
    np.square(x, out=outs["SquaredX"])
    np.square(y, out=outs["SquaredY"])
    np.matmul(outs["SquaredX"], outs["SquaredY"], out=out)
    np.subtract(sxy, out, out=out)
    np.multiply(out, _scalar(x, attrs), out=out)


def _squared_mat_sub_fresh(ins, outs, attrs, meta):
    x, y = np.asarray(ins["X"]), np.asarray(ins["Y"])
    squared_xy = np.square(x @ y)
    squared_x, squared_y = np.square(x), np.square(y)
    out = (squared_xy - squared_x @ squared_y) * _scalar(x, attrs)
    made = {"SquaredX": squared_x, "SquaredY": squared_y, "SquaredXY": squared_xy, "Out": out}
    fresh_outputs(made, ins, outs, meta)


REPEATED_FC_RELU = by_variant("fusion_repeated_fc_relu_out", None, out=_repeated_fc_relu, fresh=_repeated_fc_relu_fresh)
SQUARED_MAT_SUB = by_variant("fusion_squared_mat_sub_out", None, out=_squared_mat_sub, fresh=_squared_mat_sub_fresh)
# (the kernels by name, for CUDA's host fallbacks: kernels/cuda/linalg_fused.py's HOST_OPS)
fusion_repeated_fc_relu = adapter(meta_rules.repeated_fc_relu_meta, REPEATED_FC_RELU, "fusion_repeated_fc_relu")
fusion_squared_mat_sub = adapter(meta_rules.squared_mat_sub_meta, SQUARED_MAT_SUB, "fusion_squared_mat_sub")
