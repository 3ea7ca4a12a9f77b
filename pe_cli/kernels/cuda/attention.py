"""CUDA kernels of scaled_dot_product_attention and its gradient (pe_cli/ops/attention.py): the unfused
chain's device kernels in turn (the heads' transposes, the batched products with alpha, the mask's
add, the row softmax and its gradient), on the device, no copy to the host. The numbers are the
chain's on the GPU."""

from . import activation, elementwise, linalg, manipulation
from ..context import NO_CONTEXT

_HEADS = {"axis": [0, 2, 1, 3]}


def _t(x):
    return manipulation.transpose({"X": x}, _HEADS)["Out"]


def _product(x, y, trans_x=False, trans_y=False, alpha=1.0):
    return linalg.matmul({"X": x, "Y": y}, {"transpose_X": trans_x, "transpose_Y": trans_y, "alpha": alpha})["Out"]


def scaled_dot_product_attention(ins, attrs):
    q, k, v = _t(ins["Q"]), _t(ins["K"]), _t(ins["V"])
    scores = _product(q, k, trans_y=True, alpha=attrs["alpha"])
    if ins.get("Mask") is not None:
        scores = elementwise.elementwise_add({"X": scores, "Y": ins["Mask"]}, {"axis": -1})["Out"]
    w = activation.softmax({"X": scores}, {"axis": -1})["Out"]
    return {"Out": _t(_product(w, v)), "Weights": w}


def scaled_dot_product_attention_grad(ins, attrs, ctx=NO_CONTEXT):
    q, k, v, w, alpha = _t(ins["Q"]), _t(ins["K"]), _t(ins["V"]), ins["Weights"], attrs["alpha"]
    dout = _t(ins["Out@GRAD"])
    ds = activation.softmax_grad({"Out": w, "Out@GRAD": _product(dout, v, trans_y=True)}, {"axis": -1})["X@GRAD"]
    grads = {
        "Q@GRAD": lambda: _product(ds, k, alpha=alpha),
        "K@GRAD": lambda: _product(ds, q, trans_x=True, alpha=alpha),
        "V@GRAD": lambda: _product(w, dout, trans_x=True),
    }
    wanted = ctx.wanted(tuple(grads))
    return {slot: _t(make()) for slot, make in grads.items() if slot in wanted}
