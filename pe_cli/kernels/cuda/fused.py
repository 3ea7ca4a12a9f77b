"""CUDA twins of kernels/cpu/fused.py: the CUDA kernels of the ops the fused ops replace, called
in the same order within one op (pe_cli/kernels/fused_math.py)."""

import numpy as np

from ...shapes.linalg import gemm_rows
from ..fused_math import fused_kernels, fusion_group_kernel
from . import activation, elementwise, normalization
from . import runtime as rt
from ._matmul import matmul as _matmul
from ._reduce import reduce
from ..context import NO_CONTEXT

_KERNELS = fused_kernels(activation, elementwise, normalization)
fused_elemwise_activation = _KERNELS["fused_elemwise_activation"]
fused_elemwise_activation_grad = _KERNELS["fused_elemwise_activation_grad"]
fused_batch_norm_act = _KERNELS["fused_batch_norm_act"]
fused_batch_norm_act_grad = _KERNELS["fused_batch_norm_act_grad"]
fusion_group = fusion_group_kernel(__package__)


# fused_gemm_epilogue and its gradient: the CUDA matmul, then the bias add and relu (or relu's
# gradient) kernels, in the order the unfused ops run them
def fused_gemm_epilogue(ins, attrs):
    x, y = ins["X"], ins["Y"]
    tx = attrs["trans_x"]
    rows, stored = gemm_rows(x.shape, tx)
    out = _matmul(x.reshape(stored), y, trans_a=tx, trans_b=attrs["trans_y"])
    out = elementwise.elementwise_add({"X": out, "Y": ins["Bias"]}, {"axis": -1})["Out"]
    if attrs["activation"] == "relu":
        out = activation.relu({"X": out}, {})["Out"]
    return {"Out": out.reshape(rows + tuple(out.shape)[-1:])}


def fused_gemm_epilogue_grad(ins, attrs, ctx=NO_CONTEXT):
    dout, x, y = ins["DOut"], ins["X"], ins["Y"]
    tx, ty = attrs["trans_x"], attrs["trans_y"]
    wanted = ctx.wanted(("DX", "DY", "DBias"))
    x2 = x.reshape(gemm_rows(x.shape, tx)[1])
    n = tuple(dout.shape)[-1]  # (the simulator's shapes take no negative index)
    d = dout.reshape((dout.size // n, n))
    outs = {}
    if "DBias" in wanted:
        outs["DBias"] = reduce(d, (0,), "sum")
    if "DY" in wanted:
        dy = _matmul(d, x2, trans_a=True, trans_b=tx) if ty else _matmul(x2, d, trans_a=not tx)
        outs["DY"] = dy.reshape(y.shape)
    if "DX" in wanted:
        dx = _matmul(y, d, trans_a=ty, trans_b=True) if tx else _matmul(d, y, trans_b=not ty)
        if attrs["activation_grad"] == "relu_grad":
            dx = activation.relu_grad({"Out": x2, "Out@GRAD": dx}, {})["X@GRAD"]
        outs["DX"] = dx.reshape(x.shape)
    return outs


def fc(ins, attrs):
    x, bias = ins["Input"], ins.get("Bias")
    w = ins["W"]
    if attrs["padding_weights"]:  # the weighing block of W made contiguous (rare: inference programs)
        w = rt.to_device(np.ascontiguousarray(rt.to_host(w)[: w.shape[0] - 4, : w.shape[1] - 4]))
    rows = int(np.prod(tuple(x.shape)[: attrs["in_num_col_dims"]], dtype=np.int64))
    out = _matmul(x.reshape((rows, x.size // max(rows, 1))), w)
    if bias is not None:
        out = elementwise.elementwise_add({"X": out, "Y": bias.reshape((bias.size,))}, {"axis": -1})["Out"]
        if attrs["activation_type"] == "relu":
            out = activation.relu({"X": out}, {})["Out"]
    return {"Out": out.reshape(tuple(x.shape[: attrs["in_num_col_dims"]]) + (tuple(w.shape)[1],))}
